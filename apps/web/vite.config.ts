import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** `vite dev` forwards the server's paths; the SPA's own /admin and /api pages are not under these prefixes. */
const API = 'http://localhost:3000';
const SERVER_PREFIXES = ['/trpc', '/auth', '/admin/', '/api/', '/sandbox', '/webhooks', '/docs', '/billing/receipts'];

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The bench and the e2e tests read which chunk holds which page.
    manifest: true,
    rollupOptions: {
      output: {
        // zod in a chunk of its own name: the pages with forms share it (it would be named after whichever module came first).
        manualChunks: (id) => (id.includes('/node_modules/zod/') ? 'zod' : undefined),
      },
      // A dependency's misplaced /*#__PURE__*/ comment is its own (zod's); ours would still warn.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/')) return;
        warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(SERVER_PREFIXES.map((p) => [p, { target: API }])),
  },
});
