import { buildProxyUsername, locationString, type ProxyLocation } from './proxy-username';

/** The four list formats of the spec; the first is the default. */
export const PROXY_FORMATS = [
  { id: 'host:port:user:pass', label: 'hostname:port:username:password' },
  { id: 'host:port@user:pass', label: 'hostname:port@username:password' },
  { id: 'user:pass:host:port', label: 'username:password:hostname:port' },
  { id: 'user:pass@host:port', label: 'username:password@hostname:port' },
] as const;
export type ProxyFormat = (typeof PROXY_FORMATS)[number]['id'];
export const DEFAULT_PROXY_FORMAT: ProxyFormat = 'host:port:user:pass';

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
  }
}

export function generateProxies(input: {
  proxyUserId: string;
  proxyPassword: string;
  location: ProxyLocation;
  durationMinutes: number;
  count: number;
  endpoint: ProxyEndpoint;
}): GeneratedProxy[] {
  const { host, port } = input.endpoint;
  const pass = input.proxyPassword;
  const location = locationString(input.location);
  const out: GeneratedProxy[] = new Array(input.count);
  for (let i = 0; i < input.count; i++) {
    const user = buildProxyUsername({ proxyUserId: input.proxyUserId, location: input.location, durationMinutes: input.durationMinutes });
    out[i] = {
      username: user,
      password: pass,
      country: input.location.country,
      location,
      duration: input.durationMinutes,
      endpoints: { http: `http://${host}:${port}`, socks5: `socks5://${host}:${port}` },
      formats: {
        httpStandard: `http://${user}:${pass}@${host}:${port}`,
        httpHostPort: `${host}:${port}:${user}:${pass}`,
        httpHostPortAt: `${host}:${port}@${user}:${pass}`,
        httpUserPassHost: `${user}:${pass}:${host}:${port}`,
        socks5HostPort: `socks5://${user}:${pass}@${host}:${port}`,
      },
    };
  }
  return out;
}

export function formatProxyList(proxies: GeneratedProxy[], format: ProxyFormat, endpoint: ProxyEndpoint): string {
  return proxies.map((p) => formatProxyLine(format, endpoint.host, endpoint.port, p.username, p.password)).join('\n');
}
