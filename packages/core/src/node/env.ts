import { z } from 'zod';
import { DEFAULT_GATEWAY_ENTRY_PORTS, MAX_ENTRY_PORTS, parseEntryPortRange } from '../schemas/ip-allowlist';

/** Shared pieces of the apps' env.ts files: each app declares its own schema with these. */
export const envOptionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v.trim() : undefined));

export const envBool = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

/**
 * GATEWAY_ENTRY_PORTS (gateway and server): `from-to` (at most MAX_ENTRY_PORTS ports) or `off`;
 * unset, the default range.
 */
export const envEntryPorts = z
  .string()
  .default(DEFAULT_GATEWAY_ENTRY_PORTS)
  .transform((v, ctx) => {
    if (v.trim() === 'off') return null;
    const range = parseEntryPortRange(v);
    if (!range) ctx.addIssue({ code: 'custom', message: `a port range such as ${DEFAULT_GATEWAY_ENTRY_PORTS} (at most ${MAX_ENTRY_PORTS} ports), or off` });
    return range;
  });

/**
 * Validates the environment against an app's schema. An empty value (`KEY=` copied from
 * .env.example) means "not set"; every problem is listed at once.
 */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv): z.output<S> {
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid environment:\n${lines}`);
  }
  return parsed.data;
}

/**
 * A parent whose children must not outlive it (the launcher, the gateway's outer process) names
 * itself in this variable; the child compares it with its own parent pid (see parent-watch.ts).
 */
export const PARENT_PID_ENV = 'PROXYHUB_PARENT_PID';

/** `env` for a child that exits when this process dies. */
export function envForWatchedChild(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, [PARENT_PID_ENV]: String(process.pid) };
}

/**
 * The pid this process's parent gave as its own, taken out of the environment so that a process
 * this one starts with its environment does not inherit a parent that is not its own.
 */
export function takeParentPid(source: NodeJS.ProcessEnv = process.env): number | null {
  const raw = source[PARENT_PID_ENV];
  delete source[PARENT_PID_ENV];
  const pid = Number(raw);
  return Number.isInteger(pid) && pid > 1 ? pid : null;
}
