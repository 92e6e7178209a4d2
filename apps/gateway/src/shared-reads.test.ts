import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { writeChunk } from './shared-reads';

async function socketPair(): Promise<{ writer: Socket; reader: Socket; close(): void }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const writer = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const [reader] = await accepted;
  reader.pause();
  return {
    writer,
    reader,
    close() {
      writer.destroy();
      reader.destroy();
      server.close();
    },
  };
}

describe('writes of chunks that live in the shared read buffer', () => {
  it('copies a chunk that would wait behind queued writes, so reusing the buffer changes nothing sent', async () => {
    const { writer, reader, close } = await socketPair();
    // Fill the kernel's buffers while the reader does not read: later writes queue in the socket.
    const filler = Buffer.alloc(256 * 1024, 0x2e);
    let filled = 0;
    while (writer.writableLength === 0) {
      writeChunk(writer, filler, true);
      filled += filler.length;
    }
    const reused = Buffer.alloc(64 * 1024, 0x41);
    writeChunk(writer, reused, false);
    reused.fill(0x42); // the next read lands in the same memory
    writer.end();
    const got: Buffer[] = [];
    reader.on('data', (d: Buffer) => got.push(d));
    reader.resume();
    await once(reader, 'end');
    const all = Buffer.concat(got);
    expect(all.length).toBe(filled + reused.length);
    expect(all.subarray(filled).every((b) => b === 0x41)).toBe(true);
    close();
  });
});
