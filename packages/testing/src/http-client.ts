export interface HttpResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** Minimal browser stand-in: keeps cookies, sends JSON with an Origin header like a browser does. */
export class HttpClient {
  readonly cookies = new Map<string, string>();
  bearer: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly origin: string | null,
    private readonly ip?: string,
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** The headers a browser would add to a request to our server: cookies, Origin, bearer, IP. */
  ambientHeaders(): Record<string, string> {
    const h: Record<string, string> = {};
    if (this.cookies.size) h.cookie = this.cookieHeader();
    if (this.origin) h.origin = this.origin;
    if (this.bearer) h.authorization = `Bearer ${this.bearer}`;
    if (this.ip) h['x-forwarded-for'] = this.ip;
    return h;
  }

  /** Applies a response's Set-Cookie headers to the jar. */
  storeCookies(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (!value || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** fetch with this client's cookies and headers; for @trpc/client's `fetch` option. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(this.ambientHeaders())) if (!headers.has(k)) headers.set(k, v);
    const res = await fetch(input, { ...init, headers, redirect: 'manual' });
    this.storeCookies(res);
    return res;
  };

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
    const h: Record<string, string> = { ...this.ambientHeaders(), ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload, redirect: 'manual' });
    this.storeCookies(res);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = Record<string, unknown>>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body ?? {}, headers);
  }
}
