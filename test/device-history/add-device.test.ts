/** The one-time link that adds another device to the same user (`POST /api/device/enrollments`), and the passkey it takes. */
import { describe, expect, it } from 'vitest';
import { device, type SeenEvent } from '../guarantees/policy-support.ts';
import { useDeviceAccount } from './support.ts';

describe.each(['memory', 'redis'] as const)('history and devices (%s store)', (storeKind) => {
  const ctx = useDeviceAccount(storeKind);
  const { ask, devices, addDevice } = ctx;

  it('makes a one-time link that adds another device to the same user (audited), shown as a QR code too', async () => {
    const noSession = await ctx.harness.call('POST', '/api/device/enrollments/options', { headers: { origin: ctx.harness.issuer } });
    expect([noSession.status, noSession.body.error]).toEqual([401, 'login_required']);
    const crossSite = await ctx.harness.call('POST', '/api/device/enrollments/options', { headers: { cookie: ctx.customer.cookie, origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);

    const { user: tablet, link, code } = await addDevice(ctx.customer, 'Tablet');
    expect(link).toMatchObject({ enrollment_url: `${ctx.harness.issuer}/#/enroll/${code}`, expires_in: 900 });
    // A QR code: square, at least version 1 (21 modules), finder patterns in three corners.
    expect(link.qr.rows).toHaveLength(link.qr.size);
    expect(link.qr.size).toBeGreaterThanOrEqual(21);
    expect((link.qr.size - 17) % 4).toBe(0);
    const finder = ['1111111', '1000001', '1011101', '1011101', '1011101', '1000001', '1111111'];
    expect(link.qr.rows.slice(0, 7).map((row) => row.slice(0, 7))).toEqual(finder);
    expect(link.qr.rows.slice(0, 7).map((row) => row.slice(-7))).toEqual(finder);
    expect(link.qr.rows.slice(-7).map((row) => row.slice(0, 7))).toEqual(finder);

    const me = await device(ctx.harness, tablet, 'GET', '/me');
    expect(me.body).toMatchObject({ user: { sub: 'customer_1' }, device: { name: 'Tablet' } });
    expect((await devices(ctx.customer)).map((entry) => entry.name)).toEqual(['Test phone', 'Tablet']);
    expect(ctx.audit.filter((event) => (event.type as string) === 'device_enrollment_created').map((event) => [event.sub, event.channel, (event as SeenEvent & { device_id?: string }).device_id])).toEqual([['customer_1', 'device', (await devices(ctx.customer))[0]!.device_id]]);
    expect(ctx.audit.filter((event) => event.type === 'device_enrolled').map((event) => event.sub)).toEqual(['customer_1']);

    // Used once: the same link is refused from then on.
    const again = await ctx.harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: ctx.harness.issuer } });
    expect([again.status, again.body.error]).toEqual([400, 'invalid_enrollment_code']);
  });

  it('adds a device only with the passkey: a session alone, a replayed answer, another prompt’s or another user’s answer are refused', async () => {
    const enrolled = async () => (await devices(ctx.customer)).length;
    // The session alone (a stolen cookie) cannot mint a passkey.
    expect((await device(ctx.harness, ctx.customer, 'POST', '/enrollments', {})).body.error).toBe('invalid_request');
    expect((await device(ctx.harness, ctx.customer, 'POST', '/enrollments', { response: { id: 'x' } })).body.error).toBe('invalid_assertion');

    const options = (await device(ctx.harness, ctx.customer, 'POST', '/enrollments/options')).body;
    expect(options).toMatchObject({ userVerification: 'required', allowCredentials: [expect.objectContaining({ id: ctx.customer.authenticator.credentialId })] });
    const answer = await ctx.customer.authenticator.authenticate(options);
    expect((await device(ctx.harness, ctx.customer, 'POST', '/enrollments', { response: answer })).status).toBe(201);
    const replayed = await device(ctx.harness, ctx.customer, 'POST', '/enrollments', { response: answer });
    expect([replayed.status, replayed.body.error]).toEqual([400, 'invalid_assertion']);

    // A decision prompt's answer is not an account prompt's.
    const asked = await ask('txn_prompt');
    const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${asked.auth_req_id}`);
    const decisionAnswer = await ctx.customer.authenticator.authenticate(view.body.options.deny);
    expect((await device(ctx.harness, ctx.customer, 'POST', '/enrollments', { response: decisionAnswer })).body.error).toBe('invalid_assertion');

    // Another user's passkey over this user's prompt, through this user's session.
    const stranger = await ctx.harness.enrollUser('customer_2');
    const prompt = (await device(ctx.harness, ctx.customer, 'POST', '/enrollments/options')).body;
    const strangerAnswer = await stranger.authenticator.authenticate({ ...prompt, allowCredentials: [] });
    expect((await device(ctx.harness, ctx.customer, 'POST', '/enrollments', { response: strangerAnswer })).body.error).toBe('invalid_assertion');
    // Without user verification.
    const noUv = await ctx.customer.authenticator.authenticate((await device(ctx.harness, ctx.customer, 'POST', '/enrollments/options')).body, { userVerified: false });
    expect((await device(ctx.harness, ctx.customer, 'POST', '/enrollments', { response: noUv })).body.error).toBe('invalid_assertion');

    expect(await enrolled()).toBe(1);
    expect(ctx.audit.filter((event) => event.type === 'refused').map((event) => event.reason)).toEqual(['invalid_assertion', 'invalid_assertion', 'invalid_assertion', 'invalid_assertion', 'invalid_assertion']);
    expect(ctx.audit.filter((event) => (event.type as string) === 'device_enrollment_created').map((event) => (event as SeenEvent & { credential_id?: string }).credential_id)).toEqual([ctx.customer.authenticator.credentialId]);
  });
});
