import { describe, expect, it } from 'vitest';
import { batchedCalls } from './batched-calls';

/** A server stand-in that records each batch and answers when told to. */
function fakeServer() {
  const batches: number[][] = [];
  const pending: Array<{ items: readonly number[]; resolve: (v: readonly string[]) => void; reject: (e: Error) => void }> = [];
  const send = (items: readonly number[]) =>
    new Promise<readonly string[]>((resolve, reject) => {
      batches.push([...items]);
      pending.push({ items, resolve, reject });
    });
  const answer = (fail = false) => {
    const p = pending.shift()!;
    if (fail) p.reject(new Error('server unreachable'));
    else p.resolve(p.items.map((i) => `answer ${i}`));
  };
  return { batches, pending, send, answer };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('batched server calls', () => {
  it('sends the calls of one moment as one batch and answers each caller in order', async () => {
    const server = fakeServer();
    const call = batchedCalls(server.send);
    const answers = Promise.all([1, 2, 3].map(call));
    await turn();
    expect(server.batches).toEqual([[1, 2, 3]]);
    server.answer();
    expect(await answers).toEqual(['answer 1', 'answer 2', 'answer 3']);
  });

  it('gathers the calls made while a batch is with the server into the next one', async () => {
    const server = fakeServer();
    const call = batchedCalls(server.send);
    const first = call(1);
    await turn();
    const later = [2, 3, 4].map(call);
    await turn();
    await turn();
    expect(server.batches).toEqual([[1]]); // nothing more goes out while the first is answered
    server.answer();
    expect(await first).toBe('answer 1');
    await turn();
    expect(server.batches).toEqual([[1], [2, 3, 4]]);
    server.answer();
    expect(await Promise.all(later)).toEqual(['answer 2', 'answer 3', 'answer 4']);
  });

  it('a failed batch fails its own callers only; the next batch still goes out', async () => {
    const server = fakeServer();
    const call = batchedCalls(server.send);
    const failed = [1, 2].map((i) => call(i).catch((e: Error) => e.message));
    await turn();
    const next = call(3);
    server.answer(true);
    expect(await Promise.all(failed)).toEqual(['server unreachable', 'server unreachable']);
    await turn();
    server.answer();
    expect(await next).toBe('answer 3');
    expect(server.batches).toEqual([[1, 2], [3]]);
  });
});
