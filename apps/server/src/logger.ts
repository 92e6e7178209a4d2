/**
 * The server's logger. Verify and reset links, the Google callback and tRPC GET calls carry
 * credentials in their query strings; none of them may reach the logs. Request URLs are redacted
 * by name (the req serializer, names decoded as the server reads them), and every line written is
 * scrubbed once more, so a URL quoted in an error message or a form body is caught too. The
 * development mail line exists to show the link: outside production it is written by its own
 * logger, unscrubbed (in production the outbox alone holds the link).
 */
import { destination as pinoDestination, pino, type DestinationStream, type Logger } from 'pino';
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are secrets (`input`: a tRPC GET call's JSON may hold any of them). */
const SECRET_PARAMS = ['token', 'code', 'state', 'input', 'password', 'secret', 'key', 'apikey', 'api_key', 'access_token', 'id_token', 'refresh_token'];
const SECRET_NAMES = new Set(SECRET_PARAMS);
const REDACTED = '[REDACTED]';
// `name=value` after ? or & (or the start of a form body); the value ends where a URL or JSON string would.
const SECRET_ASSIGNMENT = new RegExp(`((?:^|[?&"\\s])(?:${SECRET_PARAMS.join('|')})=)[^&#"\\s\\\\]+`, 'gi');

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The URL with the value of every secret query parameter replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq >= 0 && SECRET_NAMES.has(decodedName(part.slice(0, eq))) ? `${part.slice(0, eq)}=${REDACTED}` : part;
    })
    .join('&');
  return `${url.slice(0, q + 1)}${query}`;
}

/** Any `secret=value` left in a written line (URLs in messages, form bodies in errors). */
export function scrubSecrets(line: string): string {
  return line.replace(SECRET_ASSIGNMENT, `$1${REDACTED}`);
}

export interface ServerLoggers {
  logger: Logger;
  /** For the outbox's "mail written" line only: in development it shows the link to click. */
  mailLogger: Logger;
}

export function createServerLoggers(opts: { level: string; production: boolean; destination?: DestinationStream }): ServerLoggers {
  // One stdout stream for both, as pino would open by default.
  const destination = opts.destination ?? pinoDestination(process.stdout.fd);
  const logger = pino(
    {
      level: opts.level,
      redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
      serializers: {
        // Fastify's request fields, with the URL redacted.
        req: (req: FastifyRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      hooks: { streamWrite: scrubSecrets },
    },
    destination,
  );
  const mailLogger = opts.production ? logger : pino({ level: opts.level }, destination);
  return { logger, mailLogger };
}
