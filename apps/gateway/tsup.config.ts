import { defineConfig } from 'tsup';

// Bundles the gateway with our workspace packages; npm dependencies stay external.
export default defineConfig({
  entry: { main: 'src/main.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  noExternal: [/^@proxyhub\//],
});
