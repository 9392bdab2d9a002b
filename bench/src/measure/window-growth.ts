import { keys } from '@countersign/server';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { benchConfig } from '../config.ts';
import { backchannelBodies } from '../countersign/actions.ts';
import { redisCpuMicros } from '../infra/redis.ts';
import { startTwin } from './in-process.ts';

/** `/bc-authorize` cost with one velocity window already holding `entries`. */
export interface WindowPoint {
  entries: number;
  requests: number;
  /** Mean wall time of one in-process `/bc-authorize`, milliseconds. */
  meanMs: number;
  /** Redis CPU per request, microseconds. */
  redisMicrosPerRequest: number;
}

/**
 * How much a `/bc-authorize` costs as its client's velocity window fills up. The shipped policy
 * counts every request of the last window (an hour) per client and per user; this fills the
 * client's window with `entries` entries of the same shape as a real one (copied from one), then
 * times requests of an in-process instance one after another. Answers null when this version
 * keeps no such window (nothing to measure).
 */
export async function measureWindowGrowth(redis: Redis, redisUrl: string, policyFile: string | null): Promise<WindowPoint[] | null> {
  if (typeof (keys as Record<string, unknown>).window !== 'function') return null;
  const prefix = 'bench-win:';
  const twin = await startTwin(redisUrl, prefix, { policyFile });
  const [client] = await twin.createClients(1);
  const users = Array.from({ length: 20 }, (_, i) => `win-user-${i}`);
  await twin.enrollUsers(users, false);
  const clientId = client!.client_id;
  const send = async (form: string) => {
    const answer = await twin.call('POST', '/bc-authorize', { form, headers: { authorization: client!.authorization } });
    if (answer.status !== 200) throw new Error(`window growth: ${answer.status} ${JSON.stringify(answer.body)}`);
  };
  // One real request makes the window and shows what an entry looks like.
  await send(backchannelBodies(users, 1, 'win-seed').items[0]!.body!);
  const windowKey = `${prefix}${(keys as unknown as { window(t: string, k: string, o: string): string }).window('default', 'velocity-client', clientId)}`;
  // The window is a list: a header of totals, then the entries oldest first (redis-scripts.ts).
  if ((await redis.type(windowKey)) !== 'list') {
    await twin.close();
    return null;
  }
  const sample = (await redis.lindex(windowKey, 1))!;
  const nul = sample.indexOf('\0');
  const points: WindowPoint[] = [];
  const size = async () => (await redis.llen(windowKey)) - 1;
  let filled = await size();
  let round = 0;
  for (const entries of benchConfig.windowSizes) {
    // Entries shaped like the real one (its time and amount, another member), put in front of the
    // real ones, as older entries would be; the header stays first. The totals are left as they
    // are: what is measured is the cost of the window's length, and no limit is near.
    const extra: string[] = [];
    for (; filled < entries; filled++) extra.push(`${sample.slice(0, nul)}\0${randomBytes(12).toString('base64url')}`);
    const header = (await redis.lpop(windowKey))!;
    for (let i = 0; i < extra.length; i += 10_000) await redis.lpush(windowKey, ...extra.slice(i, i + 10_000));
    await redis.lpush(windowKey, header);
    const requests = entries >= 50_000 ? 30 : entries >= 10_000 ? 100 : 200;
    const { items } = backchannelBodies(users, requests, `win${round++}`);
    const cpu0 = await redisCpuMicros(redis);
    const started = performance.now();
    for (const item of items) await send(item.body!);
    const elapsed = performance.now() - started;
    const cpu1 = await redisCpuMicros(redis);
    points.push({ entries: await size(), requests, meanMs: Math.round((elapsed / requests) * 100) / 100, redisMicrosPerRequest: Math.round((cpu1 - cpu0) / requests) });
    filled = await size();
  }
  await twin.close();
  return points;
}
