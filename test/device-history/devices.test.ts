/** The user's devices on the device API: list, rename and remove. */
import type { DeviceSummary } from '@countersign/shared';
import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { answer, device } from '../guarantees/policy-support.ts';
import { useDeviceAccount } from './support.ts';

describe.each(['memory', 'redis'] as const)('history and devices (%s store)', (storeKind) => {
  const ctx = useDeviceAccount(storeKind);
  const { ask, devices, addDevice } = ctx;

  it('lists the user’s devices, this one flagged, and renames one (audited); another user’s device is not found', async () => {
    const laptop = (await addDevice(ctx.customer, 'Laptop')).user;
    const listed = await devices(ctx.customer);
    expect(listed.map((entry) => [entry.name, entry.this_device])).toEqual([
      ['Test phone', true],
      ['Laptop', false],
    ]);
    // The phone's passkey confirmed the add-device link; the laptop's has signed nothing yet.
    expect(listed[0]).toMatchObject({ device_id: expect.stringMatching(/^dev_/), created_at: expect.any(String), last_used_at: expect.any(String) });
    expect(listed[1]!.last_used_at).toBeNull();
    expect((await devices(laptop)).map((entry) => entry.this_device)).toEqual([false, true]);

    const [phone, other] = listed as [DeviceSummary, DeviceSummary];
    const renamed = await device(ctx.harness, ctx.customer, 'PATCH', `/devices/${other.device_id}`, { name: '  Work laptop ' });
    expect([renamed.status, renamed.body]).toEqual([200, { ...other, name: 'Work laptop' }]);
    expect((await devices(laptop)).map((entry) => entry.name)).toEqual(['Test phone', 'Work laptop']);
    expect(ctx.audit.filter((event) => (event.type as string) === 'device_renamed').map((event) => [event.sub, event.channel, event.detail?.target_device_id])).toEqual([['customer_1', 'device', other.device_id]]);

    expect((await device(ctx.harness, ctx.customer, 'PATCH', `/devices/${phone.device_id}`, { name: 'Evil\u202ename' })).body.error).toBe('invalid_request');
    expect((await device(ctx.harness, ctx.customer, 'PATCH', `/devices/${phone.device_id}`, { name: '' })).body.error).toBe('invalid_request');
    const crossSite = await ctx.harness.call('PATCH', `/api/device/devices/${phone.device_id}`, { body: { name: 'x' }, headers: { cookie: ctx.customer.cookie, origin: 'https://evil.example' } });
    expect([crossSite.status, crossSite.body.error]).toEqual([403, 'invalid_origin']);
    const stranger = await ctx.harness.enrollUser('customer_2');
    expect((await device(ctx.harness, stranger, 'PATCH', `/devices/${phone.device_id}`, { name: 'Mine now' })).status).toBe(404);
    expect((await device(ctx.harness, stranger, 'DELETE', `/devices/${phone.device_id}`)).status).toBe(404);
    expect((await device(ctx.harness, ctx.customer, 'DELETE', '/devices/dev_{x}')).status).toBe(404);
    expect((await devices(ctx.customer))[0]!.name).toBe('Test phone');

    // The device that signs a decision shows when it was last used.
    const asked = await ask('txn_used');
    const before = ctx.harness.clock.now();
    await answer(ctx.harness, laptop, asked.auth_req_id, { decision: 'deny' });
    const lastUsed = Date.parse((await devices(ctx.customer))[1]!.last_used_at!);
    expect(lastUsed).toBeGreaterThanOrEqual(before);
    expect(lastUsed).toBeLessThanOrEqual(ctx.harness.clock.now());
  });

  it('removes a device: its session stops working, its passkey can no longer approve, its push subscriptions are gone', async () => {
    const laptop = (await addDevice(ctx.customer, 'Laptop')).user;
    const [phone] = await devices(ctx.customer);
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(ctx.harness, ctx.customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
    const pending = await ask('txn_pending');
    // A prompt fetched by the phone before it is removed.
    const phoneView = await device(ctx.harness, ctx.customer, 'GET', `/requests/${pending.auth_req_id}`);

    const crossSite = await ctx.harness.call('DELETE', `/api/device/devices/${phone!.device_id}`, { headers: { cookie: laptop.cookie, origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect((await device(ctx.harness, laptop, 'DELETE', `/devices/${phone!.device_id}`)).status).toBe(204);
    expect((await device(ctx.harness, laptop, 'DELETE', `/devices/${phone!.device_id}`)).status).toBe(404);
    expect((await devices(laptop)).map((entry) => entry.name)).toEqual(['Laptop']);
    expect(ctx.audit.filter((event) => (event.type as string) === 'device_removed').map((event) => [event.sub, event.detail?.target_device_id, event.detail?.target_credential_id])).toEqual([['customer_1', phone!.device_id, ctx.customer.authenticator.credentialId]]);
    expect(await ctx.harness.store.hashGet(keys.devicePush('default', 'customer_1', phone!.device_id))).toBeNull();

    // The phone's session: refused everywhere.
    for (const [method, path] of [
      ['GET', '/me'],
      ['GET', '/requests'],
      ['GET', '/history'],
    ] as const) {
      const refused = await device(ctx.harness, ctx.customer, method, path);
      expect([path, refused.status, refused.body.error]).toEqual([path, 401, 'login_required']);
    }
    const phoneDecision = await device(ctx.harness, ctx.customer, 'POST', `/requests/${pending.auth_req_id}/decision`, { decision: 'approve', response: await ctx.customer.authenticator.authenticate(phoneView.body.options.approve) });
    expect(phoneDecision.status).toBe(401);

    // The phone's passkey, even over a prompt fetched with the laptop's session: not one of this user's passkeys any more.
    const laptopView = await device(ctx.harness, laptop, 'GET', `/requests/${pending.auth_req_id}`);
    expect(laptopView.body.options.approve.allowCredentials.map((credential: { id: string }) => credential.id)).toEqual([laptop.authenticator.credentialId]);
    const forged = await ctx.customer.authenticator.authenticate({ ...laptopView.body.options.approve, allowCredentials: [] });
    const refused = await device(ctx.harness, laptop, 'POST', `/requests/${pending.auth_req_id}/decision`, { decision: 'approve', response: forged });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
    expect((await ctx.harness.admin('GET', `/requests/${pending.auth_req_id}`)).body.request.state).toBe('pending');
    // The laptop still decides.
    expect((await answer(ctx.harness, laptop, pending.auth_req_id, { decision: 'approve' })).body.request.state).toBe('approved');

    // Removing the device you hold signs you out.
    const [self] = await devices(laptop);
    expect((await device(ctx.harness, laptop, 'DELETE', `/devices/${self!.device_id}`)).status).toBe(204);
    expect((await device(ctx.harness, laptop, 'GET', '/me')).status).toBe(401);
  });
});
