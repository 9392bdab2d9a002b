/**
 * `pnpm bench:memory`: only the Redis memory per pending request (see docs/performance.md), in
 * about half a minute, for working on it; `pnpm bench` measures it too, among everything else.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchPolicy } from './countersign/bench-policy.ts';
import { startRedis } from './infra/redis.ts';
import { measureMemory } from './measure/memory.ts';

const workDir = mkdtempSync(join(tmpdir(), 'countersign-bench-memory-'));
const redis = await startRedis();
try {
  const memory = await measureMemory(redis.admin, redis.url, writeBenchPolicy(workDir, 'shipped'));
  console.log(`${memory.bytesPerPendingRequest} B per pending request (${memory.setup})`);
  console.table(memory.byKind);
  console.log('encodings', memory.encodings);
  if (memory.requestHash) console.log('request hash', memory.requestHash);
} finally {
  await redis.stop();
  rmSync(workDir, { recursive: true, force: true });
}
