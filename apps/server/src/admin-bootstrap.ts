import { randomBytes } from 'node:crypto';
import { adminExists, upsertAdmin, type ApiDeps } from '@proxyhub/api';

/**
 * The admin from ADMIN_USERNAME / ADMIN_PASSWORD: created or its password updated at start. In
 * development with no password set, the first start generates one and prints it once; later starts
 * leave the existing admin alone (`pnpm admin:create` resets it). Production never gets here without
 * a password (env.ts refuses to start).
 */
export async function bootstrapAdmin(deps: ApiDeps, admin: { username: string; password: string | undefined }): Promise<void> {
  if (admin.password) {
    const r = await upsertAdmin(deps.db, { username: admin.username, password: admin.password });
    deps.logger.info({ username: admin.username, created: r.created }, 'admin account ready');
    return;
  }
  if (await adminExists(deps.db, admin.username)) return;
  const password = randomBytes(18).toString('base64url');
  await upsertAdmin(deps.db, { username: admin.username, password });
  const line = '='.repeat(64);
  console.log(
    `\n${line}\n  Admin account created (development; shown once)\n  username: ${admin.username}\n  password: ${password}\n` +
      `  Set ADMIN_PASSWORD or run \`pnpm admin:create\` to choose your own.\n${line}\n`,
  );
}
