import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster, Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { connectRedis } from '../store/index.ts';
import type { RequestChanged } from './event-bus.ts';
import { connectRedisEventBus, type RedisEventBus } from './redis-event-bus.ts';

const quiet = { info() {}, warn() {}, error() {} };
const CHANGE: RequestChanged = { auth_req_id: 'PSWrBDVXlmIaqGS4YnFSBrW4', state: 'approved' };

describe.each(['redis', 'cluster'] as const)('RedisEventBus on the run’s %s', (kind) => {
  let publishers: (Redis | Cluster)[];
  let buses: RedisEventBus[];
  const channel = `test:${randomBytes(6).toString('hex')}:events`;

  beforeEach(async () => {
    const target =
      kind === 'redis'
        ? ({ kind: 'single', url: inject('redisUrl') } as const)
        : ({
            kind: 'cluster',
            nodes: inject('redisClusterNodes')
              .split(',')
              .map((address) => ({ host: address.split(':')[0]!, port: Number(address.split(':')[1]) })),
          } as const);
    publishers = await Promise.all([connectRedis(target), connectRedis(target)]);
    buses = await Promise.all(publishers.map((redis) => connectRedisEventBus({ redis, channel, log: quiet })));
  });
  afterEach(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await Promise.all(publishers.map((redis) => redis.quit()));
  });

  /** What each listener got, after the messages had time to cross Redis. */
  async function received(listen: (record: (label: string) => (event: RequestChanged) => void) => void, act: () => void) {
    const got: string[] = [];
    listen((label) => (event) => got.push(`${label} ${event.auth_req_id} ${event.state}`));
    act();
    await sleep(100);
    return got.sort();
  }

  it('delivers a change published on one instance to the user’s listeners on every instance, once each', async () => {
    const got = await received(
      (record) => {
        buses[0]!.subscribe('default', 'alice', record('here'));
        buses[1]!.subscribe('default', 'alice', record('there'));
      },
      () => buses[0]!.publish('default', 'alice', CHANGE),
    );
    expect(got).toEqual([`here ${CHANGE.auth_req_id} approved`, `there ${CHANGE.auth_req_id} approved`]);
  });

  it('keeps users and tenants apart', async () => {
    const got = await received(
      (record) => {
        buses[1]!.subscribe('default', 'bob', record('bob'));
        buses[1]!.subscribe('acme', 'alice', record('acme alice'));
      },
      () => buses[0]!.publish('default', 'alice', CHANGE),
    );
    expect(got).toEqual([]);
  });

  it('stops delivering to a listener that unsubscribed', async () => {
    const got = await received(
      (record) => {
        const stop = buses[1]!.subscribe('default', 'alice', record('gone'));
        stop();
      },
      () => buses[0]!.publish('default', 'alice', CHANGE),
    );
    expect(got).toEqual([]);
  });

  it('ignores what is not a message of the bus, and goes on delivering', async () => {
    const got = await received(
      (record) => buses[1]!.subscribe('default', 'alice', record('alice')),
      () => {
        for (const junk of ['not json', '{}', JSON.stringify({ origin: 'x', tenant: 'default', sub: 'alice', event: { auth_req_id: 7 } })]) void publishers[0]!.publish(channel, junk);
        buses[0]!.publish('default', 'alice', CHANGE);
      },
    );
    expect(got).toEqual([`alice ${CHANGE.auth_req_id} approved`]);
  });
});
