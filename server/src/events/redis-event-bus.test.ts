import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster, Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { connectRedis } from '../store/index.ts';
import type { DeviceRemoved, LiveEvent, RequestChanged } from './event-bus.ts';
import { connectRedisEventBus, type RedisEventBus } from './redis-event-bus.ts';

const quiet = { info() {}, warn() {}, error() {} };
const CHANGE: RequestChanged = { auth_req_id: 'PSWrBDVXlmIaqGS4YnFSBrW4', state: 'approved' };
const REMOVAL: DeviceRemoved = { device_id: 'dev_lost', name: 'Pixel', by: 'operator' };

/** A listener's view of an event, as one line. */
function line(label: string, live: LiveEvent): string {
  return live.kind === 'request' ? `${label} ${live.event.auth_req_id} ${live.event.state}` : `${label} removed ${live.event.device_id} ${live.event.name} by ${live.event.by}${live.event.by_device_id ? ` on ${live.event.by_device_id}` : ''}`;
}

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
  async function received(listen: (record: (label: string) => (event: LiveEvent) => void) => void, act: () => void) {
    const got: string[] = [];
    listen((label) => (event) => got.push(line(label, event)));
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

  it('delivers a device removal published on one instance to the user’s listeners on every instance, once each', async () => {
    const got = await received(
      (record) => {
        buses[0]!.subscribe('default', 'alice', record('here'));
        buses[1]!.subscribe('default', 'alice', record('there'));
        buses[1]!.subscribe('default', 'bob', record('bob'));
      },
      () => buses[0]!.publishDeviceRemoved('default', 'alice', REMOVAL),
    );
    expect(got).toEqual(['here removed dev_lost Pixel by operator', 'there removed dev_lost Pixel by operator']);
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

describe('RedisEventBus messages across releases', () => {
  let publisher: Redis;
  let listener: Redis;
  let bus: RedisEventBus;
  let warnings: string[];
  const channel = `test:${randomBytes(6).toString('hex')}:events`;

  beforeEach(async () => {
    warnings = [];
    [publisher, listener] = (await Promise.all([connectRedis({ kind: 'single', url: inject('redisUrl') }), connectRedis({ kind: 'single', url: inject('redisUrl') })])) as [Redis, Redis];
    bus = await connectRedisEventBus({ redis: publisher, channel, log: { ...quiet, warn: (message) => void warnings.push(message) } });
    await listener.connect().catch(() => undefined);
    await listener.subscribe(channel);
  });
  afterEach(async () => {
    await bus.close();
    await Promise.all([publisher.quit(), listener.quit()]);
  });

  /** The raw messages `act` put on the channel, parsed. */
  async function onTheChannel(act: () => void): Promise<unknown[]> {
    const messages: unknown[] = [];
    listener.on('message', (_channel: string, message: string) => messages.push(JSON.parse(message)));
    act();
    await sleep(100);
    return messages;
  }

  it('keeps a request change readable by the previous release (its fields unchanged), and gives a device removal no auth_req_id, so that release drops it', async () => {
    const messages = await onTheChannel(() => {
      bus.publish('default', 'alice', CHANGE);
      bus.publishDeviceRemoved('default', 'alice', { ...REMOVAL, by: 'person', by_device_id: 'dev_laptop' });
    });
    expect(messages).toEqual([
      { v: 2, origin: expect.any(String), tenant: 'default', sub: 'alice', kind: 'request', event: CHANGE },
      { v: 2, origin: expect.any(String), tenant: 'default', sub: 'alice', kind: 'device_removed', event: { device_id: 'dev_lost', name: 'Pixel', by: 'person', by_device_id: 'dev_laptop' } },
    ]);
  });

  it('delivers a device removal and a previous release’s request change from another instance; skips a later release’s kind without a warning', async () => {
    const got: string[] = [];
    bus.subscribe('default', 'alice', (event) => got.push(line('alice', event)));
    const wire = (fields: Record<string, unknown>) => JSON.stringify({ origin: 'other', tenant: 'default', sub: 'alice', ...fields });
    await publisher.publish(channel, wire({ event: CHANGE }));
    await publisher.publish(channel, wire({ v: 2, kind: 'device_removed', event: REMOVAL }));
    await publisher.publish(channel, wire({ v: 3, kind: 'device_renamed', event: { device_id: 'dev_x', name: 'New' } }));
    await sleep(100);
    expect(got).toEqual([`alice ${CHANGE.auth_req_id} approved`, 'alice removed dev_lost Pixel by operator']);
    expect(warnings).toEqual([]);
  });

  it('ignores a device removal that is not well formed, with a warning', async () => {
    const got: string[] = [];
    bus.subscribe('default', 'alice', (event) => got.push(line('alice', event)));
    for (const event of [
      { ...REMOVAL, by: 'someone' },
      { ...REMOVAL, name: 7 },
      { ...REMOVAL, by_device_id: 7 },
    ])
      await publisher.publish(channel, JSON.stringify({ v: 2, origin: 'other', tenant: 'default', sub: 'alice', kind: 'device_removed', event }));
    await sleep(100);
    expect(got).toEqual([]);
    expect(warnings).toEqual(['malformed live update ignored', 'malformed live update ignored', 'malformed live update ignored']);
  });
});
