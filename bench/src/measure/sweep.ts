import { keys } from '@countersign/server';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { benchConfig } from '../config.ts';
import { backchannelBodies } from '../countersign/actions.ts';
import { mapLimit } from '../countersign/api.ts';
import { startTwin } from './in-process.ts';

/** One point of the sweep's cost curve. */
export interface SweepPoint {
  live: number;
  due: number;
  /** Median of the repetitions, milliseconds. */
  sweepMs: number;
  /** Median of sweeps with nothing due at the same size, milliseconds. */
  emptySweepMs: number;
  handled: number;
}

/**
 * How the expiry sweep's cost grows with the number of live requests: for each size, the
 * deadline index holds that many live (not yet due) entries plus `due` real requests whose
 * deadline has passed, and one `sweep()` of an in-process instance is timed (three times, the
 * median). It should follow the number due, not the number alive.
 *
 * The live entries are index members `tenant:id` with a deadline a day away: the sweep reads the
 * index only up to now, so live requests cost it nothing but their place in the sorted set,
 * which is what is measured. The due ones are real requests (`requested_expiry=1`, then the
 * instance's clock moves 2 s on), so settling them runs the whole expiry path.
 */
export async function measureSweep(redis: Redis, redisUrl: string, policyFile: string | null): Promise<SweepPoint[]> {
  const prefix = 'bench-sweep:';
  const twin = await startTwin(redisUrl, prefix, { policyFile });
  const [client] = await twin.createClients(1);
  const users = Array.from({ length: 10 }, (_, i) => `sweep-user-${i}`);
  await twin.enrollUsers(users, false);
  const indexKey = `${prefix}${keys.deadlines()}`;
  const points: SweepPoint[] = [];
  let live = 0;
  let batch = 0;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  for (const target of benchConfig.sweepLive) {
    const farFuture = twin.clock.now() + 86_400_000;
    const members: string[] = [];
    for (; live < target; live++) members.push(`default:${randomBytes(32).toString('base64url')}`);
    for (let i = 0; i < members.length; i += 5000) {
      await redis.zadd(indexKey, ...members.slice(i, i + 5000).flatMap((member) => [String(farFuture), member]));
    }
    const timings: number[] = [];
    const empty: number[] = [];
    let handled = 0;
    for (let rep = 0; rep < 3; rep++) {
      let started = performance.now();
      await twin.deps.sweeper.sweep();
      empty.push(performance.now() - started);
      const { items } = backchannelBodies(users, benchConfig.sweepDue, `sweep${batch++}`);
      await mapLimit(items, 16, async (item) => {
        const answer = await twin.call('POST', '/bc-authorize', { form: `${item.body}&requested_expiry=1`, headers: { authorization: client!.authorization } });
        if (answer.status !== 200) throw new Error(`sweep setup: ${answer.status} ${JSON.stringify(answer.body)}`);
      });
      await twin.deps.background.drain();
      twin.clock.advance(2);
      started = performance.now();
      handled = await twin.deps.sweeper.sweep();
      timings.push(performance.now() - started);
    }
    const size = await redis.zcard(indexKey);
    points.push({ live: size, due: benchConfig.sweepDue, sweepMs: round(median(timings)), emptySweepMs: round(median(empty)), handled });
  }
  await twin.close();
  return points;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
