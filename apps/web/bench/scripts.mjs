// The JavaScript a signed-out visitor downloads: each signed-out page opened in a fresh browser
// profile (empty cache, no session), every script response summed at gzip level 9, the way
// `vite build` reports chunk sizes. The server sends them uncompressed; the gzip figure is what a
// compressing proxy or CDN in front of it would send.
import { gzipSync } from 'node:zlib';

export const SIGNED_OUT_PATHS = ['/', '/login', '/forgot-password', '/reset-password?token=x', '/verify-email?token=x'];

/** Opens each path in its own context; returns per-page and combined (each file once) sizes, largest files first. */
export async function signedOutScripts(browser, baseUrl, paths = SIGNED_OUT_PATHS) {
  const all = new Map();
  const pages = [];
  for (const path of paths) {
    const context = await browser.newContext({ baseURL: baseUrl });
    const page = await context.newPage();
    const bodies = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script') bodies.push(r.body().then((b) => ({ url: r.url(), body: b })));
    });
    await page.goto(path, { waitUntil: 'networkidle' });
    const files = (await Promise.all(bodies)).map(({ url, body }) => ({
      name: new URL(url).pathname.replace(/^\/assets\//, ''),
      rawBytes: body.length,
      gzipBytes: gzipSync(body, { level: 9 }).length,
    }));
    for (const f of files) all.set(f.name, f);
    const sum = (xs, k) => xs.reduce((n, x) => n + x[k], 0);
    pages.push({ path, files, rawBytes: sum(files, 'rawBytes'), gzipBytes: sum(files, 'gzipBytes') });
    await context.close();
  }
  const files = [...all.values()].sort((a, b) => b.gzipBytes - a.gzipBytes);
  return {
    pages,
    union: { files, rawBytes: files.reduce((n, f) => n + f.rawBytes, 0), gzipBytes: files.reduce((n, f) => n + f.gzipBytes, 0) },
  };
}
