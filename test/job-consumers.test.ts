import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue, JOBS_GROUP } from '../server/src/jobs/index.ts';
import { Background, silentLogger, systemClock } from '../server/src/runtime/index.ts';
import { keys, type RedisStore } from '../server/src/store/index.ts';
import { testPrefix, testRedisStore } from './support/redis.ts';

/**
 * Dead consumers leave the job queue's consumer group (docs/reliability.md "Job consumers"), on the
 * run's real Redis: one instance dies holding delivered jobs, the other takes them over and, once
 * the dead consumer has been idle past the bound with nothing pending, removes it (XGROUP
 * DELCONSUMER); XINFO CONSUMERS shows only the live one.
 */
describe('job queue consumers on Redis, two instances', () => {
  let prefix: string;
  let dying: RedisStore;
  let living: RedisStore;

  beforeAll(async () => {
    prefix = testPrefix();
    [dying, living] = await Promise.all([testRedisStore({ prefix }), testRedisStore({ prefix })]);
  });
  afterAll(async () => {
    await Promise.all([dying.close().catch(() => {}), living.close()]);
  });

  it("the survivor claims the dead instance's jobs, then removes its consumer after the bound", async () => {
    const ran: string[] = [];
    const handle = async (job: { auth_req_id: string }) => {
      ran.push(job.auth_req_id);
      return 'done' as const;
    };
    const handlers = { client_notification: handle, request_push: handle, expiry_push: handle, mandate_receipt: handle };
    const queue = (store: RedisStore, consumer: string) => createJobQueue({ store, clock: systemClock, log: silentLogger, background: new Background(silentLogger), handlers, consumer, consume: false, minIdleMs: 100, idleConsumerMs: 400 });
    const dead = queue(dying, 'inst_dead');
    const live = queue(living, 'inst_live');
    await dead.enqueue({ kind: 'client_notification', tenant: 'default', auth_req_id: 'req_0000000000000001' });
    await dead.enqueue({ kind: 'client_notification', tenant: 'default', auth_req_id: 'req_0000000000000002' });
    // The dying instance's consumer is delivered both jobs and then the process is gone (kill -9): no ack, ever.
    await dying.streamGroupCreate(keys.jobs(), JOBS_GROUP);
    expect(await dying.streamGroupRead(keys.jobs(), JOBS_GROUP, 'inst_dead', 10)).toHaveLength(2);
    await dying.close();

    await sleep(150);
    expect(await live.drain()).toBe(2);
    expect(ran.sort()).toEqual(['req_0000000000000001', 'req_0000000000000002']);
    const consumers = async () => Object.fromEntries((await living.streamConsumers(keys.jobs(), JOBS_GROUP)).map((c) => [c.name, c.pending]));
    expect(await consumers()).toEqual({ inst_dead: 0, inst_live: 0 });
    // Not yet: it was delivered to 150 ms ago, the bound is 400 ms.
    expect(await live.removeIdleConsumers()).toEqual([]);

    await sleep(300);
    expect(await live.removeIdleConsumers()).toEqual(['inst_dead']);
    expect(await consumers()).toEqual({ inst_live: 0 });
    await live.stop();
  });
});
