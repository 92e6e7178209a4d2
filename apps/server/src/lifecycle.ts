import type { ApiDeps } from '@proxyhub/api';
import { bootstrapAdmin } from './admin-bootstrap';

export interface BackgroundJobOptions {
  deps: ApiDeps;
  admin?: { username: string; password: string | undefined } | undefined;
  periodic: boolean;
}

/**
 * Start-up tasks (admin bootstrap) and periodic jobs (expired sessions, lease reconciliation).
 * Returns a stop function for graceful shutdown.
 */
export async function startBackgroundJobs(opts: BackgroundJobOptions): Promise<() => Promise<void>> {
  if (opts.admin) await bootstrapAdmin(opts.deps, opts.admin);
  const timers: NodeJS.Timeout[] = [];
  if (opts.periodic) {
    const { deps } = opts;
    const sweep = async () => {
      await deps.sessions.user.deleteExpiredSessions();
      await deps.sessions.admin.deleteExpiredSessions();
    };
    timers.push(setInterval(() => void sweep().catch((err: unknown) => deps.logger.error({ err }, 'session sweep failed')), 60 * 60 * 1000).unref());
  }
  return async () => {
    for (const t of timers) clearInterval(t);
  };
}
