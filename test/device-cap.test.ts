import { keys } from '@countersign/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { recordWrites } from './support/store-watch.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';

const TENANT = 'default';
const REFUSAL = 'This account already has 2 devices, the most it may have. Remove one you no longer use (under Devices), then try again.';

/**
 * A user's devices are capped (`MAX_DEVICES_PER_USER`, here 2), because every limit of a
 * device session is per device: without a cap one user held as many allowances, event streams
 * and passkeys in each prompt as they cared to add. Past it enrollment and the add-device link are
 * 409 `too_many_devices`, nothing stored and nothing used up.
 */
describe.each(['memory', 'redis'] as const)('devices per user (%s store)', (storeKind) => {
  let harness: Harness;
  let alice: EnrolledUser;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind, env: { MAX_DEVICES_PER_USER: '2' } });
    alice = await harness.enrollUser('alice');
  });
  afterEach(() => harness.close());

  const device = (user: EnrolledUser, method: string, path: string, body?: unknown) => harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: harness.issuer } });
  const deviceIds = () => harness.store.setMembers(keys.userDevices(TENANT, 'alice'));
  /** A fresh enrollment code for alice, and its registration options. */
  async function code() {
    const enrollment = (await harness.admin('POST', '/users/alice/enrollments')).body.enrollment_code as string;
    return { code: enrollment, options: await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: enrollment }, headers: { origin: harness.issuer } }) };
  }
  const verify = (enrollmentCode: string, response: unknown) => harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: enrollmentCode, response, device_name: 'Another phone' }, headers: { origin: harness.issuer } });
  const phone = () => createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost' });
  /** Runs `call` and answers it with every store write it made. */
  async function writesOf<T>(call: () => Promise<T>): Promise<{ result: T; writes: string[] }> {
    await harness.drain();
    const watch = recordWrites(harness.store);
    try {
      const result = await call();
      await harness.deps.background.drain();
      return { result, writes: [...watch.writes] };
    } finally {
      watch.stop();
    }
  }

  it('refuses enrollment past the cap with 409 too_many_devices at options and at verify, storing nothing and keeping the code for later', async () => {
    const [second, third] = [await code(), await code()];
    expect([second.options.status, third.options.status]).toEqual([200, 200]);
    expect((await verify(second.code, await phone().register(second.options.body))).status).toBe(200);
    expect(await deviceIds()).toHaveLength(2);

    const fourth = await code();
    expect([fourth.options.status, fourth.options.body]).toEqual([409, { error: 'too_many_devices', error_description: REFUSAL }]);
    // Options made while there was room: verifying them now is refused before the code is taken.
    const tablet = phone();
    const registration = await tablet.register(third.options.body);
    const { result: refused, writes } = await writesOf(() => verify(third.code, registration));
    expect([refused.status, refused.body.error]).toEqual([409, 'too_many_devices']);
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(writes).toEqual([]);
    expect(await deviceIds()).toHaveLength(2);
    expect(await harness.store.get(keys.enrollment(third.code))).not.toBeNull();

    // Once a device is removed, the same link and the same passkey go through.
    const [first] = await deviceIds();
    expect((await device(alice, 'DELETE', `/devices/${first}`)).status).toBe(204);
    const enrolled = await verify(third.code, registration);
    expect([enrolled.status, enrolled.body.user.sub]).toEqual([200, 'alice']);
    expect(await deviceIds()).toHaveLength(2);
  });

  it('refuses an add-device prompt and link past the cap, before the challenge is stored or taken', async () => {
    // A prompt answered while there was room, then the last place taken by another enrollment.
    const prompt = await device(alice, 'POST', '/enrollments/options');
    expect(prompt.status).toBe(200);
    const answer = await alice.authenticator.authenticate(prompt.body);
    const second = await code();
    expect((await verify(second.code, await phone().register(second.options.body))).status).toBe(200);

    const { result: options, writes: optionWrites } = await writesOf(() => device(alice, 'POST', '/enrollments/options'));
    expect([options.status, options.body]).toEqual([409, { error: 'too_many_devices', error_description: REFUSAL }]);
    const own = (await device(alice, 'GET', '/me')).body.device.device_id as string;
    const session = `${TENANT}:alice:${own}`;
    // The one write is the session's allowance of changes (test/rate-limits/per-session.test.ts): no challenge, no audit event.
    expect(optionWrites).toEqual([`rateLimit ${keys.rate('deviceChanges', session)}`]);
    const { result: link, writes: linkWrites } = await writesOf(() => device(alice, 'POST', '/enrollments', { response: answer }));
    expect([link.status, link.body.error]).toEqual([409, 'too_many_devices']);
    expect(linkWrites).toEqual([`rateLimit ${keys.rate('deviceChanges', session)}`]);

    // With a place free again, the prompt that was never taken still makes its link.
    const other = (await deviceIds()).find((id) => id !== own);
    expect((await device(alice, 'DELETE', `/devices/${other}`)).status).toBe(204);
    expect((await device(alice, 'POST', '/enrollments', { response: answer })).status).toBe(201);
  });

  it('lets no more than the cap through when enrollments with several codes race for the last place', async () => {
    const codes = [await code(), await code(), await code()];
    const phones = codes.map(() => phone());
    const registrations = await Promise.all(codes.map((entry, i) => phones[i]!.register(entry.options.body)));
    const answers = await Promise.all(codes.map((entry, i) => verify(entry.code, registrations[i])));
    const enrolled = answers.filter((answer) => answer.status === 200);
    expect(enrolled.length).toBeLessThanOrEqual(1);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.body.error])).toEqual(Array(3 - enrolled.length).fill([409, 'too_many_devices']));
    expect(await deviceIds()).toHaveLength(1 + enrolled.length);
    // A passkey turned away gives its credential id back: it may be enrolled again later.
    for (const [i, answer] of answers.entries()) {
      if (answer.status !== 200) expect(await harness.store.get(keys.credential(TENANT, phones[i]!.credentialId))).toBeNull();
    }
  });
});
