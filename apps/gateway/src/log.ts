/** A small JSON-lines logger (pino's level names), so the gateway carries no logging dependency. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

function serialize(obj: object): object {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    out[k] = v instanceof Error ? { message: v.message, code: (v as NodeJS.ErrnoException).code } : typeof v === 'bigint' ? String(v) : v;
  }
  return out;
}

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const min = LEVELS[level];
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (obj: object, msg: string) => {
    if (LEVELS[lvl] < min) return;
    write(`${JSON.stringify({ level: LEVELS[lvl], time: Date.now(), name: 'gateway', ...serialize(obj), msg })}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export const silentLogger: Logger = createLogger('silent');
