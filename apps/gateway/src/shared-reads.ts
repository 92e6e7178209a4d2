/**
 * Socket reads into one shared buffer (net's `onread`): no allocation per read, reads of up to
 * READ_BUFFER_BYTES, and an idle socket holds no buffer of its own. Used for direct targets (set at
 * connect) and for tunnel clients (switched over once the handshake is done).
 *
 * The trap: a socket reads into the buffer it was handed after its previous read, and every socket
 * holds the same one, so a chunk still queued in a write (the kernel took only part of it) lives in
 * memory that the next read of any socket overwrites. The buffer is never replaced; instead, while a
 * write holds part of it (`pinned`), a read into it is copied out and the pinned bytes are put back
 * before anything else runs. A write only ever queues a shared chunk when it found its socket's
 * queue empty (writeChunk); a chunk that would wait behind others is copied first. Handlers must
 * consume a shared chunk synchronously or copy it.
 */
import { Socket, type SocketConstructorOpts } from 'node:net';

/** Bytes one read may bring: four times Node's default, a quarter the syscalls. */
export const READ_BUFFER_BYTES = 256 * 1024;

const shared = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);

/**
 * A write the kernel did not take whole, which still reads from the start of the shared buffer,
 * and a copy of its chunk; null once every write of a shared chunk has called back.
 */
let pinned: { dst: Socket; bytes: Buffer } | null = null;
let sharedWrites = 0;

function sharedWritten(): void {
  sharedWrites -= 1;
  if (sharedWrites === 0) pinned = null;
}

/** `owned`: false when the chunk lives in the shared buffer (valid until the handler returns). */
export type ReadHandler = (chunk: Buffer, owned: boolean) => void;

/** A socket reading into the shared buffer: its handler, and what arrived before one was set. */
export type SharedReadSocket = Socket & { onSharedRead?: ReadHandler | null; earlyReads?: Buffer[] };

/** net's onread callback; `this` is the socket. One function for every socket (no closure each). */
function onRead(this: SharedReadSocket, n: number): boolean {
  let chunk = shared.subarray(0, n);
  let owned = false;
  // A destroyed socket's writes are cancelled: libuv reads that memory no more.
  if (pinned?.dst.destroyed) pinned = null;
  if (pinned) {
    chunk = Buffer.from(chunk);
    owned = true;
    pinned.bytes.copy(shared, 0, 0, Math.min(n, pinned.bytes.length));
  }
  const handler = this.onSharedRead;
  if (handler) handler(chunk, owned);
  else (this.earlyReads ??= []).push(owned ? chunk : Buffer.from(chunk));
  return true;
}

/** The `onread` option for net.connect. */
export const sharedReadOption = { buffer: shared, callback: onRead };

/**
 * Writes a chunk to `dst`; a shared one (`owned` false) is copied when it would wait in the queue,
 * and pins the shared buffer when the kernel took only part of it. Returns write()'s answer.
 */
export function writeChunk(dst: Socket, chunk: Buffer, owned: boolean): boolean {
  if (owned) return dst.write(chunk);
  if (dst.writableLength > 0) return dst.write(Buffer.from(chunk));
  sharedWrites += 1;
  const ok = dst.write(chunk, sharedWritten);
  // Only one write can pin: while the buffer is pinned every read is handed out as a copy. (Writes
  // that went through whole call back on the next tick, before any further read.)
  if (dst.writableLength > 0) pinned = { dst, bytes: Buffer.from(chunk) };
  return ok;
}

/** The stream internals that `onread` sets up (net offers no `onread` for accepted sockets). */
const internals = (() => {
  const probe = { buffer: () => shared, callback: onRead };
  // new net.Socket() takes `onread` (documented), though @types/node lists it for connect() only.
  const s = new Socket({ onread: probe } as SocketConstructorOpts);
  let buffer: symbol | undefined;
  let gen: symbol | undefined;
  let callback: symbol | undefined;
  for (const k of Object.getOwnPropertySymbols(s)) {
    const v: unknown = (s as unknown as Record<symbol, unknown>)[k];
    if (v === probe.buffer) gen = k;
    else if (v === probe.callback) callback = k;
    else if (k.description === 'kBuffer') buffer = k;
  }
  s.destroy();
  return buffer && gen && callback ? { buffer, gen, callback } : null;
})();

interface UserBufferHandle {
  reading?: boolean;
  useUserBuffer?: (buf: Buffer) => void;
}

/**
 * Switches a connected, paused socket to shared reads, as `onread` would have at connect; what it
 * had already read is handed over first (earlyReads). False when this Node cannot (the socket keeps
 * its 'data' events).
 */
export function readIntoShared(socket: SharedReadSocket): boolean {
  const handle = (socket as unknown as { _handle?: UserBufferHandle | null })._handle;
  if (!internals || !handle || typeof handle.useUserBuffer !== 'function' || socket.destroyed) return false;
  // The stream's own buffer first (bytes that came while the handshake was being answered).
  while (socket.readableLength > 0) {
    const chunk = socket.read() as Buffer | null;
    if (chunk === null) break;
    (socket.earlyReads ??= []).push(chunk);
  }
  const fields = socket as unknown as Record<symbol, unknown>;
  fields[internals.buffer] = shared;
  fields[internals.gen] = null;
  fields[internals.callback] = onRead;
  handle.useUserBuffer(shared);
  // read() may have started the handle reading: stop it until the relay resumes the socket.
  socket.pause();
  return true;
}
