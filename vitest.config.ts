import { defineConfig } from 'vitest/config';

/**
 * One vitest run for the whole workspace: unit tests next to the code, integration and browser
 * tests in `test/`. `test/setup/redis.ts` starts one private Redis for the run and provides its
 * URL as `inject('redisUrl')`; `test/setup/redis-cluster.ts` starts a 3-master Redis Cluster and
 * provides its seed nodes as `inject('redisClusterNodes')`. Test files share both through random key
 * prefixes, so files still run in parallel.
 */
// Workspace packages resolve to their TypeScript source (see the `countersign-source` export
// condition in shared/ and agent/); these are vite's own defaults after it.
const conditions = ['countersign-source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['countersign-source'] } },
  test: {
    include: ['shared/src/**/*.test.ts', 'agent/src/**/*.test.ts', 'adapters/*/src/**/*.test.ts', 'approver-pwa/src/**/*.test.ts', 'server/src/**/*.test.ts', 'examples/**/src/**/*.test.ts', 'mcp-gateway/src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/setup/redis.ts', 'test/setup/redis-cluster.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
