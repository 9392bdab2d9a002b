import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precacheManifest } from './scripts/precache-manifest.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The approver PWA: the app shell from `index.html`, and the service worker `src/sw.ts` as a
 * second entry emitted at `dist/sw.js` without a hash, so it can be registered at `/sw.js` with
 * scope `/` and its URL stays stable across releases (a hashed URL would strand old workers).
 * The server serves `dist/` at `/`; during `vite` development, `/api` is proxied to it.
 *
 * Once everything is written, `precacheManifest` lists the app shell (every file of `dist/` but
 * the worker itself) into `sw.js`, with a digest of their bytes that names the worker's cache.
 */
export default defineConfig({
  base: '/',
  // @countersign/shared from its TypeScript source, not its built dist/; then vite's defaults.
  resolve: { conditions: ['countersign-source', 'module', 'browser', 'development|production'] },
  plugins: [precacheManifest({ serviceWorker: 'sw.js' })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    rolldownOptions: {
      input: {
        main: here('index.html'),
        sw: here('src/sw.ts'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: process.env.COUNTERSIGN_URL ?? 'http://localhost:8080' },
    },
  },
});
