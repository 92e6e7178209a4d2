import { z } from 'zod';
import { prettyFactory } from 'pino-pretty';

/**
 * LOG_FORMAT: `pretty` (one readable line per entry, the default in development) or `json` (pino's
 * JSON lines, the default in production, for log collectors).
 */
export const envLogFormat = z.enum(['pretty', 'json'], { error: 'LOG_FORMAT must be pretty or json' }).optional();

export const logFormatFor = (chosen: 'pretty' | 'json' | undefined, production: boolean) => chosen ?? (production ? 'json' : 'pretty');

/** Turns one JSON log line into a readable one (time, level, name, message, then the fields). */
export function prettyLogLine(opts: { colorize?: boolean } = {}): (line: string) => string {
  return prettyFactory({ colorize: opts.colorize ?? Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true });
}

/** A log destination that writes readable lines to stdout. */
export function prettyStdout(): { write(line: string): void } {
  const pretty = prettyLogLine();
  return { write: (line) => void process.stdout.write(pretty(line)) };
}
