/**
 * Socket reads into shared buffers (net's `onread`): no allocation per read, reads of up to
 * READ_BUFFER_BYTES, and an idle socket holds no buffer of its own. Used for direct targets (set at
 * connect) and for tunnel clients (switched over once the handshake is done).
 *
 * The trap: a socket reads into the buffer it was handed after its previous read, and many sockets
 * hold the same one, so a chunk still queued in a write (the kernel took only part of it) lives in
 * memory that the next read of any of them overwrites. Such a buffer is `pinned` until that write
 * calls back: a read that lands in it meanwhile is copied out and the pinned bytes are put back
 * before anything else runs, and every socket is handed an unpinned buffer for its next read (one
 * of a few, so a slow client's write costs each other socket one copy, not one per read). A write
 * only ever holds a shared chunk when it found its socket's queue empty (writeChunk); a chunk that
 * would wait behind others is copied first. Handlers must consume a shared chunk synchronously or
 * copy it.
 */
import { Socket, type SocketConstructorOpts } from 'node:net';

/**
 * Bytes one read may bring: eight times Node's default, an eighth the syscalls. Measured on the
 * bench: 512 KiB took a tenth off the CPU per GiB of one fast tunnel against 256 KiB; 1 MiB took
 * another tenth there but made a hundred concurrent tunnels slower (more of each read lands in a
 * buffer pinned by a slow client and is copied out).
 */
export const READ_BUFFER_BYTES = 512 * 1024;
/** Buffers at most (while all are pinned, reads are copied). */
const MAX_SHARED_BUFFERS = 8;

class SharedBuffer {
  readonly buf = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  /** A write the kernel did not take whole, which still reads from the start of `buf`, and a copy of its chunk. */
  pinned: { dst: Socket; bytes: Buffer } | null = null;
  /** Writes of chunks of `buf` that have not called back (those that went through whole do on the next tick). */
  writes = 0;
  readonly written = (): void => {
    this.writes -= 1;
    if (this.writes === 0) this.pinned = null;
  };

  isPinned(): boolean {
    // A destroyed socket's writes are cancelled: libuv reads that memory no more.
    if (this.pinned?.dst.destroyed) this.pinned = null;
    return this.pinned !== null;
  }
}

const pool = [new SharedBuffer()];
let current = pool[0]!;

function sharedOf(chunk: Buffer): SharedBuffer | undefined {
  for (const b of pool) if (b.buf.buffer === chunk.buffer) return b;
  return undefined;
}

/** The buffer a socket reads into next: an unpinned one while there is one. */
function nextBuffer(): Buffer {
  if (current.isPinned()) {
    const free = pool.find((b) => !b.isPinned());
    if (free) current = free;
    else if (pool.length < MAX_SHARED_BUFFERS) pool.push((current = new SharedBuffer()));
  }
  return current.buf;
}

/** `owned`: false when the chunk lives in the shared buffer (valid until the handler returns). */
export type ReadHandler = (chunk: Buffer, owned: boolean) => void;

/** A socket reading into the shared buffer: its handler, and what arrived before one was set. */
export type SharedReadSocket = Socket & { onSharedRead?: ReadHandler | null; earlyReads?: Buffer[] };

/** net's onread callback; `this` is the socket. One function for every socket (no closure each). */
function onRead(this: SharedReadSocket, n: number, buf: Uint8Array): boolean {
  let chunk = (buf as Buffer).subarray(0, n);
  let owned = false;
  const shared = sharedOf(chunk);
  if (shared?.isPinned()) {
    chunk = Buffer.from(chunk);
    owned = true;
    const pinned = shared.pinned!.bytes;
    pinned.copy(shared.buf, 0, 0, Math.min(n, pinned.length));
  }
  const handler = this.onSharedRead;
  if (handler) handler(chunk, owned);
  else (this.earlyReads ??= []).push(owned ? chunk : Buffer.from(chunk));
  return true;
}

/** The `onread` option for net.connect. */
export const sharedReadOption = { buffer: nextBuffer, callback: onRead };

/**
 * Writes a chunk to `dst`; a shared one (`owned` false) is copied when it would wait in the queue,
 * and pins the shared buffer when the kernel took only part of it. Returns write()'s answer.
 */
export function writeChunk(dst: Socket, chunk: Buffer, owned: boolean): boolean {
  if (owned) return dst.write(chunk);
  if (dst.writableLength > 0) return dst.write(Buffer.from(chunk));
  const shared = sharedOf(chunk);
  if (!shared) return dst.write(chunk);
  shared.writes += 1;
  const ok = dst.write(chunk, shared.written);
  // Only one write can pin a buffer: while it is pinned, reads into it are handed out as copies.
  if (dst.writableLength > 0) shared.pinned = { dst, bytes: Buffer.from(chunk) };
  return ok;
}

/** The stream internals that `onread` sets up (net offers no `onread` for accepted sockets). */
const internals = (() => {
  const probe = { buffer: nextBuffer, callback: onRead };
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
 * its 'data' events). The caller says in the same turn whether it reads on (Relay.flow): stopping
 * the handle here and starting it again there cost two epoll calls a tunnel, for nothing.
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
  const buf = nextBuffer();
  fields[internals.buffer] = buf;
  fields[internals.gen] = nextBuffer;
  fields[internals.callback] = onRead;
  handle.useUserBuffer(buf);
  return true;
}
