/**
 * `pnpm bench:round-trips`: how many times Redis reads from the server's connection for one
 * `POST /redeem` when nothing else is running: the round trips a redemption makes in sequence,
 * its background work included (Redis INFO `total_reads_processed`; at a low rate each one is a
 * wake-up of the server and of Redis, which is what a redemption costs more of when it is alone;
 * see docs/performance.md). In-process, on a Redis of its own, in about 20 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backchannelBodies } from './countersign/actions.ts';
import { writeBenchPolicy } from './countersign/bench-policy.ts';
import { approveInStore, type PendingRequest } from './countersign/steps.ts';
import { info, startRedis } from './infra/redis.ts';
import { startTwin } from './measure/in-process.ts';

const REDEMPTIONS = 40;
const workDir = mkdtempSync(join(tmpdir(), 'countersign-bench-round-trips-'));
const redis = await startRedis();
const twin = await startTwin(redis.url, 'cs:', { policyFile: writeBenchPolicy(workDir, 'short') });
try {
  const [client] = await twin.createClients(1);
  const authorization = client!.authorization;
  const users = Array.from({ length: 10 }, (_, i) => `rt-user-${i}`);
  await twin.enrollUsers(users, false);
  const { items, planned } = backchannelBodies(users, REDEMPTIONS, 'rt');
  const pending: PendingRequest[] = [];
  for (const [i, item] of items.entries()) {
    const asked = await twin.call('POST', '/bc-authorize', { form: item.body!, headers: { authorization } });
    pending.push({ id: (asked.body as { auth_req_id: string }).auth_req_id, ...planned[i]! });
  }
  if ((await approveInStore(twin.store, pending)) !== REDEMPTIONS) throw new Error('round trips: not every request could be approved');
  const tokens: string[] = [];
  for (const { id } of pending) {
    const polled = await twin.call('POST', '/token', { form: `grant_type=urn:openid:params:grant-type:ciba&auth_req_id=${id}`, headers: { authorization } });
    tokens.push((polled.body as { access_token: string }).access_token);
  }
  const reads = async () => Number((await info(redis.admin, 'stats')).total_reads_processed);
  const counts: number[] = [];
  for (const [i, token] of tokens.entries()) {
    await twin.deps.background.drain();
    const before = await reads();
    const answer = await twin.call('POST', '/redeem', { body: { token, authorization_details: JSON.parse(pending[i]!.details) as unknown }, headers: { authorization } });
    if (answer.status !== 200) throw new Error(`round trips: /redeem answered ${answer.status} ${JSON.stringify(answer.body)}`);
    await twin.deps.background.drain();
    // Less the INFO read itself, on the admin connection.
    counts.push((await reads()) - before - 1);
  }
  counts.sort((a, b) => a - b);
  console.log(`Redis reads per POST /redeem alone, its background work included: median ${counts[counts.length >> 1]} (from ${counts[0]} to ${counts.at(-1)}, ${REDEMPTIONS} redemptions)`);
} finally {
  await twin.close();
  await redis.stop();
  rmSync(workDir, { recursive: true, force: true });
}
