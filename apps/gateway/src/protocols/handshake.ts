/**
 * What a protocol module does with a new client: read its handshake from untrusted bytes, have its
 * credentials checked at the point the protocol wants the answer, and say where to connect or why
 * not. Refusals are turned into each protocol's answer in one place (answers.ts).
 */
import type { Socket } from 'node:net';
import type { HostPort } from './host';
import type { ForwardRequest } from './http-message';

export interface Credentials {
  username: string;
  password: string;
  /** The server's signed line test (a CONNECT's X-ProxyHub-Line-Test header): checked at login. */
  lineTest?: string;
}

export type RefusalKind =
  // The client broke the protocol.
  | 'bad_request'
  | 'too_large'
  | 'no_method'
  | 'unsupported_command'
  | 'unsupported_address'
  | 'bad_target'
  // The login.
  | 'missing'
  | 'bad_username'
  | 'bad_credentials'
  | 'limited'
  | 'disabled'
  | 'expired'
  | 'bad_location'
  | 'address_not_allowed'
  | 'unavailable'
  // The tunnel.
  | 'empty'
  | 'cap_reached'
  | 'too_many_connections'
  | 'blocked'
  | 'forbidden'
  | 'dns'
  | 'refused'
  | 'unreachable'
  | 'net_unreachable'
  | 'timeout'
  | 'upstream'
  | 'no_exit';

export interface Refusal {
  ok: false;
  kind: RefusalKind;
  message: string;
  /** Where a SOCKS5 handshake stood (its answers differ before the request); absent: at the request or later. */
  phase?: 'greeting' | 'login';
}

export function refusal(kind: RefusalKind, message: string, phase?: Refusal['phase']): Refusal {
  return phase ? { ok: false, kind, message, phase } : { ok: false, kind, message };
}

/**
 * Checks credentials (and whatever else the login needs); what it returns travels with the tunnel.
 * Null: the client brought none, which only a password-less source address may do.
 */
export type Login<S extends { ok: true }> = (credentials: Credentials | null) => S | Refusal | Promise<S | Refusal>;

export interface Accepted<S> {
  ok: true;
  /** What the login returned. */
  session: S;
  target: HostPort;
  /** Bytes the client sent after its handshake: early tunnel data, the start of a request body. */
  leftover: Buffer;
  /** Written to the client once the target is connected (none for a forwarded HTTP request). */
  established: Buffer | null;
  /** When the client's request (CONNECT line, SOCKS5 request, forwarded request head) was read: where its connect time starts. */
  requestedAt: number;
  /** HTTP forwarding: the first request of the client's connection (http-forward.ts serves it and the next ones). */
  forward?: ForwardRequest;
}

/** Null: the client went away. */
export type HandshakeResult<S> = Accepted<S> | Refusal | null;

export type Handshake = <S extends { ok: true }>(reader: HandshakeReader, login: Login<S>) => Promise<HandshakeResult<S>>;

/**
 * The bytes of one handshake. The socket is paused whenever no read is waiting (during a login, a
 * lease, a connect), so nothing the client sends meanwhile is lost or read early.
 */
export class HandshakeReader {
  private buf: Buffer;

  constructor(
    readonly socket: Socket,
    first: Buffer,
  ) {
    this.buf = first;
  }

  /** What `parse` makes of the unread bytes once it returns non-null; null when the socket closes first. */
  read<T>(parse: (buf: Buffer) => T | null): Promise<T | null> {
    const now = parse(this.buf);
    if (now !== null) return Promise.resolve(now);
    const { socket } = this;
    if (socket.destroyed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const settle = (r: T | null) => {
        socket.off('data', onData);
        socket.off('close', onClose);
        socket.pause();
        resolve(r);
      };
      const onData = (chunk: Buffer) => {
        this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
        const r = parse(this.buf);
        if (r !== null) settle(r);
      };
      const onClose = () => settle(null);
      socket.on('data', onData);
      socket.on('close', onClose);
      socket.resume();
    });
  }

  /** Marks n bytes as read. */
  skip(n: number): void {
    this.buf = this.buf.subarray(n);
  }

  /** The bytes not read yet. */
  rest(): Buffer {
    return this.buf;
  }
}

/** The proxy user id a username starts with, when it looks like one (logged, so nothing else of it). */
export function proxyUserIdOf(username: string): string | null {
  const id = username.split('_', 1)[0]!.toLowerCase();
  return /^[a-z0-9]{1,32}$/.test(id) ? id : null;
}
