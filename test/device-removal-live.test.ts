import type { DeviceRemovedEvent } from '@countersign/shared';
import { keys } from '@countersign/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openEventStream, type EventStream } from './support/cluster.ts';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { servedHarness } from './support/served-harness.ts';

/** A stream opened over a real socket, as the PWA's `EventSource` opens it (not through `app.request`). */
function overHttp(origin: string) {
  return { issuer: origin, app: { request: (url: string, init: RequestInit) => fetch(url, init) } };
}

/**
 * A device removal reaches the user's other open PWAs at once over the live stream
 * (`GET /api/device/events`, a `device` event), on one instance and, on Redis, from another
 * instance; the removed device's own stream gets the event and then ends.
 */
describe.each(['memory', 'redis'] as const)('a removed device, live on the other devices (%s store)', (store) => {
  let harness: Harness;
  /** The instance the streams are open on: on Redis another one than the removal's. */
  let streams: Harness;
  let origin: string;
  /** Where the streams are opened: the streams' instance's socket. */
  let streamsAt: string;
  let phone: EnrolledUser;
  let laptop: EnrolledUser;
  let phoneId: string;
  const open: EventStream[] = [];

  beforeEach(async () => {
    let port: number;
    ({ harness, origin, port } = await servedHarness({ store }));
    phone = await harness.enrollUser('dana');
    laptop = await harness.enrollUser('dana');
    phoneId = await thisDevice(phone);
    await harness.call('PATCH', `/api/device/devices/${phoneId}`, { body: { name: 'Pixel' }, headers: { cookie: phone.cookie, origin } });
    if (store === 'memory') {
      streams = harness;
    } else {
      // Same issuer and data, its own event bus: a second process behind the load balancer.
      streams = await harness.instance();
      port = await freePort();
      await streams.listen(port);
    }
    streamsAt = `http://127.0.0.1:${port}`;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((stream) => stream.close()));
    if (streams !== harness) await streams.close();
    await harness.close();
  });

  async function thisDevice(user: EnrolledUser): Promise<string> {
    const { body } = await harness.call('GET', '/api/device/devices', { headers: { cookie: user.cookie, origin } });
    return body.devices.find((device: { this_device: boolean }) => device.this_device).device_id;
  }

  /** The user's device opens its live stream on the streams' instance, over HTTP. */
  async function listen(user: EnrolledUser): Promise<EventStream> {
    const stream = await openEventStream(overHttp(streamsAt), user.cookie);
    open.push(stream);
    return stream;
  }

  const deviceEvent = async (stream: EventStream): Promise<DeviceRemovedEvent> => JSON.parse((await stream.next((event) => event.event === 'device')).data);

  it('tells the other device’s open stream that an operator revoked the phone, and ends the phone’s stream', async () => {
    const [onPhone, onLaptop] = [await listen(phone), await listen(laptop)];
    const revoked = await harness.admin('DELETE', `/users/dana/devices/${phoneId}`);
    expect(revoked.status).toBe(200);

    expect(await deviceEvent(onLaptop)).toEqual({ kind: 'device_removed', device_id: phoneId, name: 'Pixel', by: 'operator', this_device: false, by_this_device: false });
    expect(await deviceEvent(onPhone)).toEqual({ kind: 'device_removed', device_id: phoneId, name: 'Pixel', by: 'operator', this_device: true, by_this_device: false });
    await expect(onPhone.next()).rejects.toThrow('the event stream ended');
    // The laptop's stream stays open, and the phone's cannot be opened again.
    await expect(onLaptop.next(() => true, 300)).rejects.toThrow('no matching server-sent event in time');
    await expect(listen(phone)).rejects.toThrow('event stream refused: 401');
  });

  it('tells the other devices when the person removes the phone from the laptop, and ends the phone’s stream', async () => {
    const tablet = await harness.enrollUser('dana');
    const [onPhone, onLaptop, onTablet] = [await listen(phone), await listen(laptop), await listen(tablet)];
    expect((await harness.call('DELETE', `/api/device/devices/${phoneId}`, { headers: { cookie: laptop.cookie, origin } })).status).toBe(204);

    const removal = { kind: 'device_removed', device_id: phoneId, name: 'Pixel', by: 'person' };
    expect(await deviceEvent(onLaptop)).toEqual({ ...removal, this_device: false, by_this_device: true });
    expect(await deviceEvent(onTablet)).toEqual({ ...removal, this_device: false, by_this_device: false });
    expect(await deviceEvent(onPhone)).toEqual({ ...removal, this_device: true, by_this_device: false });
    await expect(onPhone.next()).rejects.toThrow('the event stream ended');
  });

  it('tells nobody else: another user’s open stream hears nothing of it', async () => {
    const stranger = await harness.enrollUser('erin');
    const [onStranger, onLaptop] = [await listen(stranger), await listen(laptop)];
    expect((await harness.admin('DELETE', `/users/dana/devices/${phoneId}`)).status).toBe(200);
    expect((await deviceEvent(onLaptop)).device_id).toBe(phoneId);
    await expect(onStranger.next(() => true, 500)).rejects.toThrow('no matching server-sent event in time');
  });
});

describe('a removed device whose removal event never came', () => {
  let harness: Harness;
  afterEach(async () => {
    vi.useRealTimers();
    await harness.close();
  });

  it('has its stream ended at the next keep-alive, which finds the device gone', async () => {
    harness = await createHarness();
    const phone = await harness.enrollUser('gil');
    const { body } = await harness.call('GET', '/api/device/devices', { headers: { cookie: phone.cookie, origin: harness.issuer } });
    const phoneId = body.devices[0].device_id as string;
    // Only the stream's timers are faked: its keep-alive wait, and the reader's deadline.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stream = await openEventStream(harness, phone.cookie);
    // Removed in the store behind the bus's back, as a removal whose event was lost would be.
    await harness.store.setRemove(keys.userDevices('default', 'gil'), phoneId);
    const ended = stream
      .next(() => true, 60_000)
      .then(
        (event) => `got ${event.event}`,
        (error: Error) => error.message,
      );
    await vi.advanceTimersByTimeAsync(25_000);
    expect(await ended).toBe('the event stream ended');
  });
});
