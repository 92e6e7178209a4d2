/**
 * What a browser and a program get for paths the server does not answer itself: a browser gets the
 * app (trailing slashes, mistyped admin paths), a program the JSON 404; `curl /` is told what is here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers';

const APP = '<!doctype html><html lang="en"><title>ProxyHub app</title><div id="root"></div>';
/** The page as the server sends it in `locale`. */
const appIn = (locale: string) => APP.replace('<html lang="en">', `<html lang="${locale}" data-locale="${locale}">`);
let server: TestServer;
let bare: TestServer;
beforeAll(async () => {
  const dist = mkdtempSync(join(tmpdir(), 'web-dist-'));
  writeFileSync(join(dist, 'index.html'), APP);
  server = await startTestServer({ webDistDir: dist });
  bare = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await bare.close();
});

describe('the root and unknown paths', () => {
  it('GET / without Accept: text/html answers 200 saying what is here; a browser gets the app', async () => {
    for (const s of [server, bare]) {
      const r = await s.client().get<string>('/', { accept: '*/*' });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.body).toContain('/docs');
    }
    const page = await server.client().get<string>('/', { accept: 'text/html,application/xhtml+xml' });
    expect(page).toMatchObject({ status: 200, body: appIn('en') });
  });

  it('a browser gets the app on trailing slashes and unknown paths; the status says whether the path exists', async () => {
    for (const [path, status] of [
      ['/admin/', 200],
      ['/api/', 200],
      ['/dashboard/', 200],
      ['/no/such/page', 200],
      ['/admin/nope', 404],
      ['/api/nope', 404],
      ['/auth/nope', 404],
    ] as const) {
      const r = await server.client().get<string>(path, { accept: 'text/html' });
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status, body: appIn('en') });
    }
  });

  it("the page starts in the browser's best language, or the one the visitor chose (the locale cookie)", async () => {
    for (const [headers, locale] of [
      [{ 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.8' }, 'ru'],
      [{ 'accept-language': 'de-DE,pt;q=0.7' }, 'pt-BR'],
      [{ 'accept-language': 'zh-Hans-CN' }, 'zh-CN'],
      [{ 'accept-language': 'de-DE' }, 'en'],
      [{ 'accept-language': 'ru', cookie: 'locale=es' }, 'es'],
      [{ 'accept-language': 'ru', cookie: 'locale=klingon' }, 'ru'],
    ] as const) {
      const r = await server.client().get<string>('/pricing', { accept: 'text/html', ...headers });
      expect({ headers, body: r.body }).toEqual({ headers, body: appIn(locale) });
      expect(r.headers.get('vary')).toMatch(/Accept-Language/);
    }
  });

  it('programs keep the JSON 404', async () => {
    const r = await server.client().get<{ error: string }>('/api/nope', { accept: 'application/json' });
    expect(r).toMatchObject({ status: 404, body: { success: false, error: 'Not found: GET /api/nope' } });
  });
});
