import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Bundles the server with our workspace packages; npm dependencies stay external.
export default defineConfig({
  entry: { main: 'src/main.ts', 'admin-create': 'src/scripts/admin-create.ts', demo: 'src/scripts/demo.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  noExternal: [/^@proxyhub\//],
  onSuccess: async () => {
    cpSync('../../packages/db/drizzle', 'dist/drizzle', { recursive: true });
  },
});
