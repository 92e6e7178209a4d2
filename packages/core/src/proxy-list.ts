import { buildProxyUsername, locationString, type ProxyLocation } from './proxy-username';

/**
 * The four list formats of the spec (the first is the default), then proxy URLs as curl, browsers'
 * extensions and most HTTP libraries take them. `socks` marks the formats whose lines are SOCKS5.
 */
export const PROXY_FORMATS = [
  { id: 'host:port:user:pass', label: 'hostname:port:username:password', socks: false },
  { id: 'host:port@user:pass', label: 'hostname:port@username:password', socks: false },
  { id: 'user:pass:host:port', label: 'username:password:hostname:port', socks: false },
  { id: 'user:pass@host:port', label: 'username:password@hostname:port', socks: false },
  { id: 'http-url', label: 'http://username:password@hostname:port', socks: false },
  { id: 'socks5-url', label: 'socks5://username:password@hostname:port', socks: true },
] as const;
export type ProxyFormat = (typeof PROXY_FORMATS)[number]['id'];
export const DEFAULT_PROXY_FORMAT: ProxyFormat = 'host:port:user:pass';

export function isSocksFormat(format: ProxyFormat): boolean {
  return PROXY_FORMATS.some((f) => f.id === format && f.socks);
}

export interface ProxyEndpoint {
  host: string;
  port: number;
}

export interface GeneratedProxy {
  username: string;
  password: string;
  country: string;
  location: string;
  duration: number;
  endpoints: { http: string; socks5: string };
  formats: {
    httpStandard: string;
    httpHostPort: string;
    httpHostPortAt: string;
    httpUserPassHost: string;
    socks5HostPort: string;
  };
}

export function formatProxyLine(format: ProxyFormat, host: string, port: number, user: string, pass: string): string {
  switch (format) {
    case 'host:port:user:pass':
      return `${host}:${port}:${user}:${pass}`;
    case 'host:port@user:pass':
      return `${host}:${port}@${user}:${pass}`;
    case 'user:pass:host:port':
      return `${user}:${pass}:${host}:${port}`;
    case 'user:pass@host:port':
      return `${user}:${pass}@${host}:${port}`;
    case 'http-url':
      return `http://${user}:${pass}@${host}:${port}`;
    case 'socks5-url':
      return `socks5://${user}:${pass}@${host}:${port}`;
  }
}

export function generateProxies(input: {
  proxyUserId: string;
  proxyPassword: string;
  location: ProxyLocation;
  durationMinutes: number;
  /** Keep the same IP or fail (`<minutes>h`). */
  hard?: boolean | undefined;
  count: number;
  endpoint: ProxyEndpoint;
}): GeneratedProxy[] {
  const { host, port } = input.endpoint;
  const pass = input.proxyPassword;
  const location = locationString(input.location);
  const out: GeneratedProxy[] = new Array(input.count);
  for (let i = 0; i < input.count; i++) {
    const user = buildProxyUsername({ proxyUserId: input.proxyUserId, location: input.location, durationMinutes: input.durationMinutes, hard: input.hard });
    out[i] = {
      username: user,
      password: pass,
      country: input.location.country,
      location,
      duration: input.durationMinutes,
      endpoints: { http: `http://${host}:${port}`, socks5: `socks5://${host}:${port}` },
      formats: {
        httpStandard: formatProxyLine('http-url', host, port, user, pass),
        httpHostPort: formatProxyLine('host:port:user:pass', host, port, user, pass),
        httpHostPortAt: formatProxyLine('host:port@user:pass', host, port, user, pass),
        httpUserPassHost: formatProxyLine('user:pass:host:port', host, port, user, pass),
        socks5HostPort: formatProxyLine('socks5-url', host, port, user, pass),
      },
    };
  }
  return out;
}

/** One generated proxy as a line of the chosen format: a list's rows, its copy and its download all print it so. */
export function formatProxy(proxy: Pick<GeneratedProxy, 'username' | 'password'>, format: ProxyFormat, endpoint: ProxyEndpoint): string {
  return formatProxyLine(format, endpoint.host, endpoint.port, proxy.username, proxy.password);
}

export function formatProxyList(proxies: readonly GeneratedProxy[], format: ProxyFormat, endpoint: ProxyEndpoint): string {
  return proxies.map((p) => formatProxy(p, format, endpoint)).join('\n');
}
