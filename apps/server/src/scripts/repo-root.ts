import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * pnpm runs package scripts inside apps/server: scripts work from the repository root like
 * `pnpm start` does (same DATA_DIR, same .env), from the sources or from dist/.
 */
export function useRepoRoot(): void {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) {
      process.chdir(dir);
      break;
    }
  }
  if (existsSync('.env')) process.loadEnvFile('.env');
}
