import type { DeviceEnrollmentLink, DeviceSummary, HistoryEntry } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { keys } from '@countersign/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTORY_LIMIT } from '../server/src/history/index.ts';
import { answer, bcAuthorize, device, enrollWithRoles, pay, testPolicy, watchAudit, type SeenEvent } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';

type Client = { client_id: string; client_secret: string };

/**
 * The approver's own account on the device API (docs/design.md "Approver PWA"): the history of past
 * decisions and their outcomes (`GET /api/device/history`), the user's devices (list, rename,
 * remove) and a one-time link that adds another device to the same user
 * (`POST /api/device/enrollments`).
 */
describe.each(['memory', 'redis'] as const)('history and devices (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  let agent: AgentClient;
  let audit: SeenEvent[];

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: testPolicy() } });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Refund agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, clientSecret: client.client_secret, fetch: harness.fetch });
    audit = watchAudit(harness);
  });
  afterEach(() => harness.close());

  const ask = async (transactionId: string, amount = 49_000, extra: { requested_expiry?: number; as?: Client } = {}) => {
    const asked = await bcAuthorize(harness, extra.as ?? client, { login_hint: customer.sub, details: pay(transactionId, amount), ...(extra.requested_expiry ? { requested_expiry: extra.requested_expiry } : {}) });
    if (asked.status !== 200) throw new Error(`not asked: ${JSON.stringify(asked.body)}`);
    return asked.body as { auth_req_id: string; binding_code?: string };
  };
  const history = async (user: EnrolledUser = customer) => {
    const listed = await device(harness, user, 'GET', '/history');
    expect(listed.status).toBe(200);
    return listed.body.entries as HistoryEntry[];
  };
  const devices = async (user: EnrolledUser) => (await device(harness, user, 'GET', '/devices')).body.devices as DeviceSummary[];
  /** Each step one second apart, so "newest first" has one answer. */
  const later = () => harness.clock.advance(1);

  /** Asks for an add-device link from `from`'s session, confirming with `from`'s passkey. */
  async function createLink(from: EnrolledUser) {
    const options = await device(harness, from, 'POST', '/enrollments/options');
    expect(options.status).toBe(200);
    return device(harness, from, 'POST', '/enrollments', { response: await from.authenticator.authenticate(options.body) });
  }

  /** Makes an add-device link from `from`'s session and enrolls a new software passkey with it. */
  async function addDevice(from: EnrolledUser, name: string): Promise<{ user: EnrolledUser; link: DeviceEnrollmentLink; code: string }> {
    const created = await createLink(from);
    expect(created.status).toBe(201);
    const link = created.body as DeviceEnrollmentLink;
    const code = link.enrollment_url.split('/#/enroll/')[1]!;
    const authenticator = createSoftAuthenticator({ origin: harness.issuer, rpId: new URL(harness.issuer).hostname });
    const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
    const verified = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await authenticator.register(options.body), device_name: name }, headers: { origin: harness.issuer } });
    expect(verified.status).toBe(200);
    return { user: { sub: from.sub, authenticator, cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0]! }, link, code };
  }

  it('lists the user’s decided requests newest first, each with what they did, its state and its outcome', async () => {
    const executed = await ask('txn_executed');
    expect((await answer(harness, customer, executed.auth_req_id, { decision: 'approve' })).status).toBe(200);
    later();
    const denied = await ask('txn_denied');
    expect((await answer(harness, customer, denied.auth_req_id, { decision: 'deny' })).status).toBe(200);
    later();
    const lapsed = await ask('txn_lapsed', 49_000, { requested_expiry: 30 });
    later();
    const unused = await ask('txn_unused');
    expect((await answer(harness, customer, unused.auth_req_id, { decision: 'approve' })).status).toBe(200);
    later();

    // The first approval is redeemed and its outcome reported; the request that was never answered expires.
    const polled = await agent.pollToken(executed.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    const redemption = await agent.redeem(polled.token.access_token, pay('txn_executed'));
    await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });
    harness.clock.advance(30);
    await harness.deps.sweeper.sweep();
    // A redemption, an outcome and an expiry write the history in the background.
    await harness.deps.background.drain();

    const entries = await history();
    expect(entries.map((entry) => entry.auth_req_id)).toEqual([lapsed.auth_req_id, unused.auth_req_id, denied.auth_req_id, executed.auth_req_id]);
    const byId = Object.fromEntries(entries.map((entry) => [entry.auth_req_id, entry]));
    expect(byId[executed.auth_req_id]).toMatchObject({
      state: 'redeemed',
      outcome: { status: 'succeeded', reference: 're_1042' },
      client_name: 'Refund agent',
      tier: 'standard',
      your_part: { decision: 'approved', party: 'customer' },
      approvals: [{ party: 'customer', status: 'approved' }],
      denial: null,
    });
    expect(byId[executed.auth_req_id]!.actions[0]).toMatchObject({ title: expect.any(String), amount: { formatted_code: 'EUR 490.00' } });
    expect(byId[denied.auth_req_id]).toMatchObject({ state: 'denied', outcome: null, denial: 'denied', your_part: { decision: 'denied', party: 'customer' } });
    expect(byId[lapsed.auth_req_id]).toMatchObject({ state: 'expired', your_part: null });
    expect(byId[unused.auth_req_id]).toMatchObject({ state: 'approved', your_part: { decision: 'approved' } });

    // An approval nobody redeems reads expired once its token lifetime (600 s by default) is over, before anything wrote it down.
    harness.clock.advance(600);
    expect((await history()).find((entry) => entry.auth_req_id === unused.auth_req_id)?.state).toBe('expired');
    // Nobody else sees it.
    const other = await harness.enrollUser('customer_2');
    expect(await history(other)).toEqual([]);
  });

  it('records "this wasn’t me" as reported, and a reviewer’s part in the reviewer’s own history', async () => {
    await harness.close();
    harness = await createHarness({
      store: storeKind,
      env: { POLICY_FILE: testPolicy((policy) => (policy.tiers[0].approvers = ['customer', { role: 'reviewer:finance' }])) },
    });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Refund agent');
    const reviewer = await enrollWithRoles(harness, 'rita', ['reviewer:finance']);

    // The reviewer approves first: it is in the reviewer's history, and still in the customer's inbox, not their history.
    const first = await ask('txn_reviewer_first');
    expect((await answer(harness, reviewer, first.auth_req_id, { decision: 'approve' })).body.request.state).toBe('pending');
    expect((await history(reviewer)).map((entry) => [entry.auth_req_id, entry.state])).toEqual([[first.auth_req_id, 'pending']]);
    expect(await history()).toEqual([]);
    expect((await answer(harness, customer, first.auth_req_id, { decision: 'deny' })).body.request.state).toBe('denied');
    expect((await history(reviewer))[0]).toMatchObject({ auth_req_id: first.auth_req_id, state: 'denied', denial: 'denied', your_part: { decision: 'approved' } });
    later();

    const dual = await ask('txn_dual');
    expect((await answer(harness, customer, dual.auth_req_id, { decision: 'approve' })).status).toBe(200);
    // The customer's part is done: the entry says so while the request waits for the reviewer.
    expect((await history())[0]).toMatchObject({
      auth_req_id: dual.auth_req_id,
      state: 'pending',
      approvals: [
        { party: 'customer', status: 'approved' },
        { party: 'role:reviewer:finance', status: 'waiting' },
      ],
    });
    expect((await history(reviewer)).map((entry) => entry.auth_req_id)).toEqual([first.auth_req_id]);
    later();
    expect((await answer(harness, reviewer, dual.auth_req_id, { decision: 'approve' })).body.request.state).toBe('approved');
    expect((await history())[0]).toMatchObject({ auth_req_id: dual.auth_req_id, state: 'approved', your_part: { decision: 'approved', party: 'customer' } });
    expect((await history(reviewer))[0]).toMatchObject({ auth_req_id: dual.auth_req_id, state: 'approved', your_part: { decision: 'approved', party: 'role:reviewer:finance' } });

    later();
    const fraud = await ask('txn_fraud');
    expect((await answer(harness, customer, fraud.auth_req_id, { decision: 'deny', path: 'report' })).status).toBe(200);
    expect((await history())[0]).toMatchObject({ auth_req_id: fraud.auth_req_id, state: 'denied', denial: 'fraud_reported', your_part: { decision: 'reported' } });
    expect((await history(reviewer)).map((entry) => entry.auth_req_id)).toEqual([dual.auth_req_id, first.auth_req_id]);
  });

  it(`keeps the newest ${HISTORY_LIMIT} entries`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < HISTORY_LIMIT + 2; i++) {
      const asked = await ask(`txn_${i}`);
      expect((await answer(harness, customer, asked.auth_req_id, { decision: 'deny' })).status).toBe(200);
      ids.push(asked.auth_req_id);
      later();
    }
    const entries = await history();
    expect(entries).toHaveLength(HISTORY_LIMIT);
    expect(entries.map((entry) => entry.auth_req_id)).toEqual(ids.slice(2).reverse());
  });

  it('lists the user’s devices, this one flagged, and renames one (audited); another user’s device is not found', async () => {
    const laptop = (await addDevice(customer, 'Laptop')).user;
    const listed = await devices(customer);
    expect(listed.map((entry) => [entry.name, entry.this_device])).toEqual([
      ['Test phone', true],
      ['Laptop', false],
    ]);
    // The phone's passkey confirmed the add-device link; the laptop's has signed nothing yet.
    expect(listed[0]).toMatchObject({ device_id: expect.stringMatching(/^dev_/), created_at: expect.any(String), last_used_at: expect.any(String) });
    expect(listed[1]!.last_used_at).toBeNull();
    expect((await devices(laptop)).map((entry) => entry.this_device)).toEqual([false, true]);

    const [phone, other] = listed as [DeviceSummary, DeviceSummary];
    const renamed = await device(harness, customer, 'PATCH', `/devices/${other.device_id}`, { name: '  Work laptop ' });
    expect([renamed.status, renamed.body]).toEqual([200, { ...other, name: 'Work laptop' }]);
    expect((await devices(laptop)).map((entry) => entry.name)).toEqual(['Test phone', 'Work laptop']);
    expect(audit.filter((event) => (event.type as string) === 'device_renamed').map((event) => [event.sub, event.channel, event.detail?.target_device_id])).toEqual([['customer_1', 'device', other.device_id]]);

    expect((await device(harness, customer, 'PATCH', `/devices/${phone.device_id}`, { name: 'Evil\u202ename' })).body.error).toBe('invalid_request');
    expect((await device(harness, customer, 'PATCH', `/devices/${phone.device_id}`, { name: '' })).body.error).toBe('invalid_request');
    const crossSite = await harness.call('PATCH', `/api/device/devices/${phone.device_id}`, { body: { name: 'x' }, headers: { cookie: customer.cookie, origin: 'https://evil.example' } });
    expect([crossSite.status, crossSite.body.error]).toEqual([403, 'invalid_origin']);
    const stranger = await harness.enrollUser('customer_2');
    expect((await device(harness, stranger, 'PATCH', `/devices/${phone.device_id}`, { name: 'Mine now' })).status).toBe(404);
    expect((await device(harness, stranger, 'DELETE', `/devices/${phone.device_id}`)).status).toBe(404);
    expect((await device(harness, customer, 'DELETE', '/devices/dev_{x}')).status).toBe(404);
    expect((await devices(customer))[0]!.name).toBe('Test phone');

    // The device that signs a decision shows when it was last used.
    const asked = await ask('txn_used');
    const before = harness.clock.now();
    await answer(harness, laptop, asked.auth_req_id, { decision: 'deny' });
    const lastUsed = Date.parse((await devices(customer))[1]!.last_used_at!);
    expect(lastUsed).toBeGreaterThanOrEqual(before);
    expect(lastUsed).toBeLessThanOrEqual(harness.clock.now());
  });

  it('removes a device: its session stops working, its passkey can no longer approve, its push subscriptions are gone', async () => {
    const laptop = (await addDevice(customer, 'Laptop')).user;
    const [phone] = await devices(customer);
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(harness, customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
    const pending = await ask('txn_pending');
    // A prompt fetched by the phone before it is removed.
    const phoneView = await device(harness, customer, 'GET', `/requests/${pending.auth_req_id}`);

    const crossSite = await harness.call('DELETE', `/api/device/devices/${phone!.device_id}`, { headers: { cookie: laptop.cookie, origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect((await device(harness, laptop, 'DELETE', `/devices/${phone!.device_id}`)).status).toBe(204);
    expect((await device(harness, laptop, 'DELETE', `/devices/${phone!.device_id}`)).status).toBe(404);
    expect((await devices(laptop)).map((entry) => entry.name)).toEqual(['Laptop']);
    expect(audit.filter((event) => (event.type as string) === 'device_removed').map((event) => [event.sub, event.detail?.target_device_id, event.detail?.target_credential_id])).toEqual([['customer_1', phone!.device_id, customer.authenticator.credentialId]]);
    expect(await harness.store.hashGet(keys.devicePush('default', 'customer_1', phone!.device_id))).toBeNull();

    // The phone's session: refused everywhere.
    for (const [method, path] of [
      ['GET', '/me'],
      ['GET', '/requests'],
      ['GET', '/history'],
    ] as const) {
      const refused = await device(harness, customer, method, path);
      expect([path, refused.status, refused.body.error]).toEqual([path, 401, 'login_required']);
    }
    const phoneDecision = await device(harness, customer, 'POST', `/requests/${pending.auth_req_id}/decision`, { decision: 'approve', response: await customer.authenticator.authenticate(phoneView.body.options.approve) });
    expect(phoneDecision.status).toBe(401);

    // The phone's passkey, even over a prompt fetched with the laptop's session: not one of this user's passkeys any more.
    const laptopView = await device(harness, laptop, 'GET', `/requests/${pending.auth_req_id}`);
    expect(laptopView.body.options.approve.allowCredentials.map((credential: { id: string }) => credential.id)).toEqual([laptop.authenticator.credentialId]);
    const forged = await customer.authenticator.authenticate({ ...laptopView.body.options.approve, allowCredentials: [] });
    const refused = await device(harness, laptop, 'POST', `/requests/${pending.auth_req_id}/decision`, { decision: 'approve', response: forged });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
    expect((await harness.admin('GET', `/requests/${pending.auth_req_id}`)).body.request.state).toBe('pending');
    // The laptop still decides.
    expect((await answer(harness, laptop, pending.auth_req_id, { decision: 'approve' })).body.request.state).toBe('approved');

    // Removing the device you hold signs you out.
    const [self] = await devices(laptop);
    expect((await device(harness, laptop, 'DELETE', `/devices/${self!.device_id}`)).status).toBe(204);
    expect((await device(harness, laptop, 'GET', '/me')).status).toBe(401);
  });

  it('makes a one-time link that adds another device to the same user (audited), shown as a QR code too', async () => {
    const noSession = await harness.call('POST', '/api/device/enrollments/options', { headers: { origin: harness.issuer } });
    expect([noSession.status, noSession.body.error]).toEqual([401, 'login_required']);
    const crossSite = await harness.call('POST', '/api/device/enrollments/options', { headers: { cookie: customer.cookie, origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);

    const { user: tablet, link, code } = await addDevice(customer, 'Tablet');
    expect(link).toMatchObject({ enrollment_url: `${harness.issuer}/#/enroll/${code}`, expires_in: 900 });
    // A QR code: square, at least version 1 (21 modules), finder patterns in three corners.
    expect(link.qr.rows).toHaveLength(link.qr.size);
    expect(link.qr.size).toBeGreaterThanOrEqual(21);
    expect((link.qr.size - 17) % 4).toBe(0);
    const finder = ['1111111', '1000001', '1011101', '1011101', '1011101', '1000001', '1111111'];
    expect(link.qr.rows.slice(0, 7).map((row) => row.slice(0, 7))).toEqual(finder);
    expect(link.qr.rows.slice(0, 7).map((row) => row.slice(-7))).toEqual(finder);
    expect(link.qr.rows.slice(-7).map((row) => row.slice(0, 7))).toEqual(finder);

    const me = await device(harness, tablet, 'GET', '/me');
    expect(me.body).toMatchObject({ user: { sub: 'customer_1' }, device: { name: 'Tablet' } });
    expect((await devices(customer)).map((entry) => entry.name)).toEqual(['Test phone', 'Tablet']);
    expect(audit.filter((event) => (event.type as string) === 'device_enrollment_created').map((event) => [event.sub, event.channel, (event as SeenEvent & { device_id?: string }).device_id])).toEqual([['customer_1', 'device', (await devices(customer))[0]!.device_id]]);
    expect(audit.filter((event) => event.type === 'device_enrolled').map((event) => event.sub)).toEqual(['customer_1']);

    // Used once: the same link is refused from then on.
    const again = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
    expect([again.status, again.body.error]).toEqual([400, 'invalid_enrollment_code']);
  });

  it('adds a device only with the passkey: a session alone, a replayed answer, another prompt’s or another user’s answer are refused', async () => {
    const enrolled = async () => (await devices(customer)).length;
    // The session alone (a stolen cookie) cannot mint a passkey.
    expect((await device(harness, customer, 'POST', '/enrollments', {})).body.error).toBe('invalid_request');
    expect((await device(harness, customer, 'POST', '/enrollments', { response: { id: 'x' } })).body.error).toBe('invalid_assertion');

    const options = (await device(harness, customer, 'POST', '/enrollments/options')).body;
    expect(options).toMatchObject({ userVerification: 'required', allowCredentials: [expect.objectContaining({ id: customer.authenticator.credentialId })] });
    const answer = await customer.authenticator.authenticate(options);
    expect((await device(harness, customer, 'POST', '/enrollments', { response: answer })).status).toBe(201);
    const replayed = await device(harness, customer, 'POST', '/enrollments', { response: answer });
    expect([replayed.status, replayed.body.error]).toEqual([400, 'invalid_assertion']);

    // A decision prompt's answer is not an account prompt's.
    const asked = await ask('txn_prompt');
    const view = await device(harness, customer, 'GET', `/requests/${asked.auth_req_id}`);
    const decisionAnswer = await customer.authenticator.authenticate(view.body.options.deny);
    expect((await device(harness, customer, 'POST', '/enrollments', { response: decisionAnswer })).body.error).toBe('invalid_assertion');

    // Another user's passkey over this user's prompt, through this user's session.
    const stranger = await harness.enrollUser('customer_2');
    const prompt = (await device(harness, customer, 'POST', '/enrollments/options')).body;
    const strangerAnswer = await stranger.authenticator.authenticate({ ...prompt, allowCredentials: [] });
    expect((await device(harness, customer, 'POST', '/enrollments', { response: strangerAnswer })).body.error).toBe('invalid_assertion');
    // Without user verification.
    const noUv = await customer.authenticator.authenticate((await device(harness, customer, 'POST', '/enrollments/options')).body, { userVerified: false });
    expect((await device(harness, customer, 'POST', '/enrollments', { response: noUv })).body.error).toBe('invalid_assertion');

    expect(await enrolled()).toBe(1);
    expect(audit.filter((event) => event.type === 'refused').map((event) => event.reason)).toEqual(['invalid_assertion', 'invalid_assertion', 'invalid_assertion', 'invalid_assertion', 'invalid_assertion']);
    expect(audit.filter((event) => (event.type as string) === 'device_enrollment_created').map((event) => (event as SeenEvent & { credential_id?: string }).credential_id)).toEqual([customer.authenticator.credentialId]);
  });
});
