// Where HTTP messages end: the framing the gateway follows to keep connections between requests.
import { describe, expect, it } from 'vitest';
import { parseHttpHead, type HttpHead } from '../src/protocols/http';
import { BodyTracker, parseResponseHead, requestFraming, responseCloses, responseFraming } from '../src/protocols/http-framing';

function head(text: string): HttpHead {
  const r = parseHttpHead(Buffer.from(`${text}\r\n\r\n`, 'latin1'));
  if (!r?.ok) throw new Error('bad head');
  return r.head;
}

function response(text: string) {
  const r = parseResponseHead(Buffer.from(`${text}\r\n\r\n`, 'latin1'));
  if (!r?.ok) throw new Error('bad response head');
  return r.head;
}

/** Feeds `bytes` in pieces of `step`; returns how many bytes the tracker took and whether it completed. */
function track(tracker: BodyTracker, bytes: Buffer, step: number) {
  let taken = 0;
  for (let i = 0; i < bytes.length && !tracker.done && !tracker.error; i += step) {
    const piece = bytes.subarray(i, Math.min(i + step, bytes.length));
    const n = tracker.consume(piece, 0);
    taken += n;
    if (n < piece.length) break;
  }
  return { taken, done: tracker.done, error: tracker.error };
}

describe('chunked bodies', () => {
  const body = Buffer.from('5\r\nhello\r\n1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n', 'latin1');

  it('ends exactly at the end of the last chunk and its trailers, however the bytes are split', () => {
    const next = Buffer.from('GET / HTTP/1.1\r\n\r\n');
    const all = Buffer.concat([body, next]);
    for (let step = 1; step <= all.length; step++) {
      expect(track(new BodyTracker({ kind: 'chunked' }), all, step)).toEqual({ taken: body.length, done: true, error: null });
    }
  });

  it('refuses what it cannot delimit safely', () => {
    for (const bad of ['x\r\n', '5\r\nhelloXX\r\n', '5\nhello\r\n0\r\n\r\n', `${'f'.repeat(13)}\r\n`, '5\r\nhello\r\n0\r\nbad\ntrailer\r\n\r\n']) {
      const r = track(new BodyTracker({ kind: 'chunked' }), Buffer.from(bad, 'latin1'), 1000);
      expect([bad, r.error]).not.toEqual([bad, null]);
      expect(r.done).toBe(false);
    }
  });

  it('counts Content-Length bodies and leaves what follows', () => {
    const t = new BodyTracker({ kind: 'length', bytes: 10 });
    expect(t.consume(Buffer.from('0123456'), 0)).toBe(7);
    expect(t.consume(Buffer.from('789NEXT'), 0)).toBe(3);
    expect(t.done).toBe(true);
  });
});

describe('framing of requests and responses', () => {
  it('requests: Content-Length, chunked, none; both or a final coding other than chunked refused', () => {
    expect(requestFraming(head('POST http://a/ HTTP/1.1\r\nContent-Length: 12'))).toEqual({ kind: 'length', bytes: 12 });
    expect(requestFraming(head('POST http://a/ HTTP/1.1\r\nContent-Length: 12\r\nContent-Length: 12'))).toEqual({ kind: 'length', bytes: 12 });
    expect(requestFraming(head('POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked'))).toEqual({ kind: 'chunked' });
    expect(requestFraming(head('GET http://a/ HTTP/1.1'))).toEqual({ kind: 'none' });
    for (const bad of [
      'Content-Length: 12\r\nContent-Length: 13',
      'Content-Length: -1',
      'Transfer-Encoding: chunked\r\nContent-Length: 3',
      'Transfer-Encoding: chunked, gzip',
    ]) {
      expect(requestFraming(head(`POST http://a/ HTTP/1.1\r\n${bad}`))).toMatchObject({ ok: false, kind: 'bad_request' });
    }
  });

  it('responses: none for HEAD, 204 and 304; chunked; length; else until the origin closes', () => {
    expect(responseFraming('HEAD', response('HTTP/1.1 200 OK\r\nContent-Length: 100'))).toEqual({ kind: 'none' });
    expect(responseFraming('GET', response('HTTP/1.1 204 No Content'))).toEqual({ kind: 'none' });
    expect(responseFraming('GET', response('HTTP/1.1 304 Not Modified\r\nContent-Length: 100'))).toEqual({ kind: 'none' });
    expect(responseFraming('GET', response('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked'))).toEqual({ kind: 'chunked' });
    expect(responseFraming('GET', response('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip'))).toEqual({ kind: 'close' });
    expect(responseFraming('GET', response('HTTP/1.1 200 OK\r\nContent-Length: 5'))).toEqual({ kind: 'length', bytes: 5 });
    expect(responseFraming('GET', response('HTTP/1.0 200 OK'))).toEqual({ kind: 'close' });
    expect(responseFraming('GET', response('HTTP/1.1 200 OK\r\nContent-Length: 5, 6'))).toBeNull();
    expect(responseCloses(response('HTTP/1.1 200 OK\r\nConnection: close'))).toBe(true);
    expect(responseCloses(response('HTTP/1.0 200 OK'))).toBe(true);
    expect(responseCloses(response('HTTP/1.0 200 OK\r\nConnection: keep-alive'))).toBe(false);
    expect(responseCloses(response('HTTP/1.1 200 OK'))).toBe(false);
  });

  it('refuses malformed response heads', () => {
    for (const bad of ['HTTP/2 200 OK', 'HTTP/1.1 20 OK', 'HTTP/1.1 200 OK\r\nno colon', 'HTTP/1.1 200 OK\r\nbad name: x']) {
      expect(parseResponseHead(Buffer.from(`${bad}\r\n\r\n`))).toMatchObject({ ok: false });
    }
    expect(parseResponseHead(Buffer.from('HTTP/1.1 200 OK\r\n'))).toBeNull();
  });
});
