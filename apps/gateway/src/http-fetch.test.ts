import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeFetch } from './http-fetch';

let url = '';
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ got: Buffer.concat(chunks).length }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/call`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('createNodeFetch', () => {
  it('sends a body given in parts as one body, in order, with its length', async () => {
    const fetchJson = createNodeFetch();
    const parts = [Buffer.from('{"json":{"a":1},"rows":['), Buffer.from('["é",1]'), Buffer.from(','), Buffer.from('["x",2]'), Buffer.from(']}')];
    const res = await fetchJson(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: parts });
    const body = '{"json":{"a":1},"rows":[["é",1],["x",2]]}';
    expect(res.ok).toBe(true);
    expect(await res.json()).toEqual({ got: Buffer.byteLength(body) });
    expect(received.at(-1)).toMatchObject({ body, headers: { 'content-length': String(Buffer.byteLength(body)) } });
    expect(received.at(-1)!.headers['transfer-encoding']).toBeUndefined();
  });

  it('sends a string body as it is', async () => {
    const res = await createNodeFetch()(url, { method: 'POST', body: '{"json":null}' });
    expect(await res.json()).toEqual({ got: 13 });
    expect(received.at(-1)!.body).toBe('{"json":null}');
  });
});
