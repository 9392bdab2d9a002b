import { defineConfig } from 'vite';

/**
 * The operator console: the page `index.html` and the modules it loads, built into `dist/` for the
 * server to serve at `/console` (server/src/console/console-routes.ts), hence `base: '/console/'`.
 * The built page loads one hashed script and one hashed style sheet from `/console/assets/`, and
 * carries no inline script or style, so it runs under the server's CSP (`script-src 'self'`,
 * `style-src 'self'`) as it is. During `vite` development, `/api` is proxied to a running server.
 */
export default defineConfig({
  base: '/console/',
  // @countersign/shared from its TypeScript source, not its built dist/; then vite's defaults.
  resolve: { conditions: ['countersign-source', 'module', 'browser', 'development|production'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Never a `data:` URL in the style sheet or a script: every file is one of this origin.
    assetsInlineLimit: 0,
    // No `<link rel="modulepreload">` polyfill: the page has one entry, and the polyfill is code the CSP need not allow.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      '/api': { target: process.env.COUNTERSIGN_URL ?? 'http://localhost:8080' },
    },
  },
});
