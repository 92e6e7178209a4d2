/**
 * Internal-tools example: creates top-up codes through tRPC with the internal key, typed against the
 * server's AppRouter (the admin panel calls the same procedure with its session cookie).
 *
 *   pnpm --filter @proxyhub/server create-codes -- --gb 1.5 --quantity 10 [--expires 2027-01-01T00:00:00Z] [--url http://localhost:3000]
 *
 * The key is INTERNAL_API_KEY (in development, DATA_DIR/dev-secrets.json); the URL defaults to PUBLIC_URL.
 */
import { parseArgs } from 'node:util';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import type { AppRouter } from '@proxyhub/api';
import { loadEnv } from '../env';
import { useRepoRoot } from './repo-root';

useRepoRoot();
const env = loadEnv();
const { values } = parseArgs({
  // `pnpm <script> -- --flag` passes the `--` along.
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    url: { type: 'string', default: env.publicUrl },
    gb: { type: 'string', default: '1' },
    quantity: { type: 'string', default: '1' },
    expires: { type: 'string' },
  },
});

const client = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: new URL('/trpc', values.url).toString(),
      transformer: superjson,
      headers: { authorization: `Bearer ${env.internalApiKey}` },
    }),
  ],
});

try {
  const { codes } = await client.admin.createCodes.mutate({
    creditsGB: Number(values.gb),
    quantity: Number(values.quantity),
    expiresAt: values.expires ? new Date(values.expires) : null,
  });
  for (const c of codes) console.log(`${c.code}\t${c.creditsGB} GB\t${c.creditsMB} MB\t${c.expiresAt?.toISOString() ?? 'no expiry'}`);
} catch (err) {
  console.error(err instanceof TRPCClientError ? `Refused: ${err.message}` : err);
  process.exitCode = 1;
}
