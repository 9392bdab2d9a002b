import { CountersignError } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../server/src/audit/index.ts';
import { findDevice, verifyDecision } from '../server/src/devices/index.ts';
import { updateDevice } from '../server/src/devices/device-record.ts';
import { keys } from '../server/src/store/index.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';

const TENANT = 'default';

/**
 * Passkey checks in the right order (docs/security.md): a passkey's signature is verified before
 * its counter is compared, and a credential id is registered once in a tenant (WebAuthn Level 3
 * §7.1 and §7.2).
 */
describe.each(['memory', 'redis'] as const)('passkey checks (%s store)', (storeKind) => {
  let harness: Harness;
  let agent: AgentClient;
  let audit: Omit<AuditEvent, 'at'>[];

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    audit = [];
    const record = harness.deps.audit.record.bind(harness.deps.audit);
    harness.deps.audit.record = async (event) => {
      audit.push(event);
      return record(event);
    };
  });
  afterEach(() => harness.close());

  const device = (user: EnrolledUser, method: string, path: string, body?: unknown) => harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: harness.issuer } });
  const ask = async (user: EnrolledUser, transactionId: string) => (await agent.requestApproval({ login_hint: user.sub, authorization_details: payment({ transaction_id: transactionId }) })).auth_req_id;
  const stateOf = async (authReqId: string) => (await agent.getRequest(authReqId)).state;
  const deviceIds = (sub: string) => harness.store.setMembers(keys.userDevices(TENANT, sub));
  /** The device record exactly as stored (JSON), for a user with one device. */
  async function storedDevice(sub: string): Promise<string | null> {
    const [id] = await deviceIds(sub);
    return id === undefined ? null : harness.store.get(keys.device(TENANT, sub, id));
  }
  const reasons = () => audit.filter((event) => event.type === 'refused').map((event) => event.reason);

  /** Enrolls alice and approves two requests, so her stored counter is 2. */
  async function aliceAtTwo(): Promise<EnrolledUser> {
    const alice = await harness.enrollUser('alice');
    for (const transactionId of ['txn_1', 'txn_2']) expect((await harness.decide(alice, await ask(alice, transactionId), 'approve')).status).toBe(200);
    expect(JSON.parse((await storedDevice('alice'))!).counter).toBe(2);
    return alice;
  }

  describe('a decision', () => {
    it('refuses a forged assertion with a lower counter as invalid_assertion, not counter_regression, and leaves the device as it was', async () => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const id = await ask(alice, 'txn_3');
      const forged = await harness.decide(alice, id, 'approve', { forgeSignature: true, signCount: 1 });
      expect([forged.status, forged.body.error]).toEqual([400, 'invalid_assertion']);
      expect(await storedDevice('alice')).toBe(before);
      expect(reasons()).toEqual(['invalid_assertion']);
      expect(await stateOf(id)).toBe('pending');
      // Nothing was flagged or locked: the passkey's own next answer approves, from the same counter.
      expect((await harness.decide(alice, id, 'approve')).status).toBe(200);
      expect(JSON.parse((await storedDevice('alice'))!).counter).toBe(3);
    });

    it.each([
      ['the same counter', 2],
      ['a higher counter', 50],
    ])('refuses a forged assertion with %s as invalid_assertion, the counter not moved', async (_name, signCount) => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const forged = await harness.decide(alice, await ask(alice, 'txn_3'), 'approve', { forgeSignature: true, signCount });
      expect([forged.status, forged.body.error]).toEqual([400, 'invalid_assertion']);
      expect(await storedDevice('alice')).toBe(before);
    });

    it('still refuses a genuine assertion whose counter went backwards as counter_regression, the device unchanged', async () => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const id = await ask(alice, 'txn_3');
      const regressed = await harness.decide(alice, id, 'approve', { signCount: 1 });
      expect([regressed.status, regressed.body.error]).toEqual([400, 'counter_regression']);
      expect(reasons()).toEqual(['counter_regression']);
      expect(await storedDevice('alice')).toBe(before);
      expect(await stateOf(id)).toBe('pending');
    });

    it('lets one of two genuine assertions with the same counter through and refuses the other as counter_regression (a cloned authenticator)', async () => {
      const alice = await harness.enrollUser('alice');
      const ids = [await ask(alice, 'txn_1'), await ask(alice, 'txn_2')];
      const views = await Promise.all(ids.map((id) => device(alice, 'GET', `/requests/${id}`)));
      const answers = await Promise.all(views.map((view) => alice.authenticator.authenticate(view.body.options.approve, { signCount: 7 })));
      const decided = await Promise.all(ids.map((id, i) => device(alice, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: answers[i] })));
      expect(decided.map((answer) => answer.body.error ?? answer.status).sort()).toEqual([200, 'counter_regression']);
      expect(JSON.parse((await storedDevice('alice'))!).counter).toBe(7);
    });
  });

  it('keeps a counter saved meanwhile when a rename started from an older reading', async () => {
    const alice = await harness.enrollUser('alice');
    const [deviceId] = await deviceIds('alice');
    const stale = (await findDevice(harness.store, TENANT, 'alice', deviceId!))!;
    expect((await harness.decide(alice, await ask(alice, 'txn_1'), 'approve')).status).toBe(200);
    const renamed = await updateDevice(harness.store, stale, (current) => ({ ...current, name: 'Work phone' }));
    expect(renamed.status).toBe('written');
    expect(JSON.parse((await storedDevice('alice'))!)).toMatchObject({ name: 'Work phone', counter: 1 });
  });

  describe('the passkey prompt for adding a device', () => {
    it('refuses a forged answer with a lower counter as invalid_assertion, and makes no link', async () => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const options = await device(alice, 'POST', '/enrollments/options');
      const forged = await alice.authenticator.authenticate(options.body, { forgeSignature: true, signCount: 1 });
      const refused = await device(alice, 'POST', '/enrollments', { response: forged });
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
      expect(reasons()).toEqual(['invalid_assertion']);
      expect(audit.some((event) => event.type === 'device_enrollment_created')).toBe(false);
      expect(await storedDevice('alice')).toBe(before);
    });
  });

  describe('malformed answers', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    it.each([
      ['a clientDataJSON that is not JSON', { clientDataJSON: b64('not json') }, /JSON/],
      ['an authenticatorData of 3 bytes', { authenticatorData: 'AAAA' }, /Authenticator data was 3 bytes/],
      ['an authenticatorData that is not base64url', { authenticatorData: '%%%%' }, /authenticatorData was not a base64url string/],
    ])('answers 400 invalid_assertion to %s, with the library error as the cause and never in the body', async (_name, change, libraryMessage) => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const id = await ask(alice, 'txn_3');
      const answer = async () => {
        const view = await device(alice, 'GET', `/requests/${id}`);
        const genuine = await alice.authenticator.authenticate(view.body.options.approve);
        return { ...genuine, response: { ...genuine.response, ...change } } as AuthenticationResponseJSON;
      };

      const refused = await device(alice, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await answer() });
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
      expect(Object.keys(refused.body).sort()).toEqual(['error', 'error_description']);
      expect(refused.body.error_description).not.toMatch(libraryMessage);

      const [deviceId] = await deviceIds('alice');
      const thrown = await verifyDecision(harness.deps, { tenant: TENANT, sub: 'alice', device_id: deviceId! }, { sub: 'alice', roles: [] }, id, 'approve', (await answer()) as unknown as Record<string, unknown>).then(
        () => null,
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(CountersignError);
      expect((thrown as CountersignError).code).toBe('invalid_assertion');
      expect((thrown as CountersignError).cause).toBeInstanceOf(Error);
      expect(((thrown as CountersignError).cause as Error).message).toMatch(libraryMessage);
      expect(reasons()).toEqual(['invalid_assertion', 'invalid_assertion']);
      expect(await storedDevice('alice')).toBe(before);
      expect(await stateOf(id)).toBe('pending');
    });
  });

  describe('enrollment', () => {
    /** An enrollment code for `sub` (created first unless it exists) and its registration options. */
    async function enrollmentFor(sub: string, create = true) {
      if (create) await harness.admin('POST', '/users', { sub, display_name: sub });
      const code = (await harness.admin('POST', `/users/${sub}/enrollments`)).body.enrollment_code as string;
      const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
      expect(options.status).toBe(200);
      return { code, options: options.body };
    }
    const verify = (code: string, response: unknown) => harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response, device_name: 'Second phone' }, headers: { origin: harness.issuer } });
    /** A client that claims `credentialId` for a passkey of its own (its own key). */
    const claiming = (credentialId: string) => createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost', credentialId });

    it('refuses a credential id registered to another user of the tenant with 409 credential_already_registered, stores nothing and uses the code up', async () => {
      const alice = await harness.enrollUser('alice');
      const aliceBefore = await storedDevice('alice');
      const bob = await enrollmentFor('bob');
      const response = await claiming(alice.authenticator.credentialId).register(bob.options);
      const refused = await verify(bob.code, response);
      expect([refused.status, refused.body.error]).toEqual([409, 'credential_already_registered']);
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(await deviceIds('bob')).toEqual([]);
      expect(audit.filter((event) => event.type === 'device_enrolled').map((event) => event.sub)).toEqual(['alice']);
      expect(audit.filter((event) => event.type === 'refused')).toEqual([expect.objectContaining({ reason: 'credential_already_registered', sub: 'bob', credential_id: alice.authenticator.credentialId })]);
      // The code is single-use whatever the answer: it cannot probe several credential ids.
      expect((await verify(bob.code, response)).body.error).toBe('invalid_enrollment_code');
      // Alice's passkey is hers as before.
      expect(await storedDevice('alice')).toBe(aliceBefore);
      expect((await harness.decide(alice, await ask(alice, 'txn_1'), 'approve')).status).toBe(200);
    });

    it('refuses the same credential id for the same user again (a client that ignores excludeCredentials)', async () => {
      const alice = await harness.enrollUser('alice');
      const again = await enrollmentFor('alice', false);
      expect(again.options.excludeCredentials).toEqual([expect.objectContaining({ id: alice.authenticator.credentialId })]);
      const response = await claiming(alice.authenticator.credentialId).register({ ...again.options, excludeCredentials: [] });
      const refused = await verify(again.code, response);
      expect([refused.status, refused.body.error]).toEqual([409, 'credential_already_registered']);
      expect(await deviceIds('alice')).toHaveLength(1);
    });

    it('lets exactly one of two racing enrollments with one credential id through', async () => {
      const [bob, carol] = [await enrollmentFor('bob'), await enrollmentFor('carol')];
      const phone = createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost' });
      const responses = [await phone.register(bob.options), await phone.register(carol.options)];
      const answers = await Promise.all([verify(bob.code, responses[0]), verify(carol.code, responses[1])]);
      expect(answers.map((answer) => answer.body.error ?? answer.status).sort()).toEqual([200, 'credential_already_registered']);
      const devices = [...(await deviceIds('bob')), ...(await deviceIds('carol'))];
      expect(devices).toHaveLength(1);
    });

    it('claims the credential id of a device enrolled before the index at its next use', async () => {
      const alice = await harness.enrollUser('alice');
      const [deviceId] = await deviceIds('alice');
      const { credential_claimed: _claimed, ...legacy } = JSON.parse((await storedDevice('alice'))!);
      await harness.store.set(keys.device(TENANT, 'alice', deviceId!), JSON.stringify(legacy));
      await harness.store.delete(keys.credential(TENANT, alice.authenticator.credentialId));
      expect((await harness.decide(alice, await ask(alice, 'txn_1'), 'approve')).status).toBe(200);
      expect(JSON.parse((await storedDevice('alice'))!)).toMatchObject({ counter: 1, credential_claimed: true });
      const bob = await enrollmentFor('bob');
      const refused = await verify(bob.code, await claiming(alice.authenticator.credentialId).register(bob.options));
      expect([refused.status, refused.body.error]).toEqual([409, 'credential_already_registered']);
    });

    it('refuses a credential id longer than 1023 bytes, storing nothing', async () => {
      const bob = await enrollmentFor('bob');
      const long = claiming(Buffer.alloc(1024, 7).toString('base64url'));
      const refused = await verify(bob.code, await long.register(bob.options));
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
      expect(await deviceIds('bob')).toEqual([]);
    });

    it('keeps only the known transports of a registration, each once, and names no others in any prompt', async () => {
      const bob = await enrollmentFor('bob');
      const registration = await createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost' }).register(bob.options);
      registration.response.transports = ['usb', 'carrier-pigeon', 'usb', 'nfc', 'internal', 'cable', 'nfc'] as never;
      expect((await verify(bob.code, registration)).status).toBe(200);
      expect(JSON.parse((await storedDevice('bob'))!).transports).toEqual(['usb', 'nfc', 'internal']);
      const again = await enrollmentFor('bob', false);
      expect(again.options.excludeCredentials).toEqual([{ id: registration.id, type: 'public-key', transports: ['usb', 'nfc', 'internal'] }]);
    });

    it('names a device stored with an unchecked list of transports by its known ones only, so a view stays small', async () => {
      const alice = await harness.enrollUser('alice');
      const [deviceId] = await deviceIds('alice');
      const stored = JSON.parse((await storedDevice('alice'))!);
      await harness.store.set(keys.device(TENANT, 'alice', deviceId!), JSON.stringify({ ...stored, transports: [...Array(7000).fill('usb'), 'x'.repeat(5000), 'hybrid'] }));
      const view = await device(alice, 'GET', `/requests/${await ask(alice, 'txn_1')}`);
      expect(view.body.options.approve.allowCredentials).toEqual([{ id: alice.authenticator.credentialId, type: 'public-key', transports: ['usb', 'hybrid'] }]);
      expect(JSON.stringify(view.body).length).toBeLessThan(10_000);
      const prompt = await device(alice, 'POST', '/enrollments/options');
      expect(prompt.body.allowCredentials).toEqual([{ id: alice.authenticator.credentialId, type: 'public-key', transports: ['usb', 'hybrid'] }]);
    });

    it.each([
      ['7,000 names', Array(7000).fill('usb')],
      ['a name of 5,000 characters', ['x'.repeat(5000)]],
      ['a string', 'usb'],
      ['a number in the list', ['usb', 1]],
      ['null', null],
      ['an object', { usb: true }],
    ])('refuses transports that are %s with 400 invalid_request, storing nothing and keeping the code', async (_name, transports) => {
      const bob = await enrollmentFor('bob');
      const registration = await createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost' }).register(bob.options);
      registration.response.transports = transports as never;
      const refused = await verify(bob.code, registration);
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
      expect(refused.body.error_description).toContain('response.response.transports');
      expect(await deviceIds('bob')).toEqual([]);
      // The body was refused before the code was looked at: the same registration with plain transports goes through.
      registration.response.transports = ['internal'];
      expect((await verify(bob.code, registration)).status).toBe(200);
    });

    it('frees the credential id when its device is removed', async () => {
      const alice = await harness.enrollUser('alice');
      const [deviceId] = await deviceIds('alice');
      expect((await device(alice, 'DELETE', `/devices/${deviceId}`)).status).toBe(204);
      const bob = await enrollmentFor('bob');
      const registered = await verify(bob.code, await claiming(alice.authenticator.credentialId).register(bob.options));
      expect(registered.status).toBe(200);
      expect(await deviceIds('bob')).toHaveLength(1);
    });
  });
});
