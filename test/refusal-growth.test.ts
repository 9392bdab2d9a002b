import { keys } from '@countersign/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedEvent } from '../server/src/audit/index.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { testPrefix } from './support/redis.ts';
import { storeKeys } from './support/store-keys.ts';

/**
 * Refusals and views cannot grow storage without bound (docs/security.md): a refusal made before
 * any request exists (a user nobody enrolled, a request id nobody issued) is audited in the
 * tenant's chain only. It opens no per-request audit index, so refusals cost one stream entry each
 * and no key.
 */
describe.each(['memory', 'redis'] as const)('refusals without a request (%s store)', (storeKind) => {
  let harness: Harness;
  let prefix: string;
  let alice: EnrolledUser;
  let basic: string;
  let clientId: string;

  beforeEach(async () => {
    prefix = testPrefix();
    // Room for the 100 refused decisions below in one session's allowance of changes (test/rate-limits/per-session.test.ts tests the limit).
    harness = await createHarness({ store: storeKind, redisPrefix: prefix, env: { RATE_LIMIT_DEVICE_CHANGES: '100/60' } });
    alice = await harness.enrollUser('alice');
    const client = await harness.createClient('Agent A');
    clientId = client.client_id;
    basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
    await harness.deps.background.drain();
  });
  afterEach(() => harness.close());

  const chain = () => harness.store.streamRange(keys.auditChain('default'));
  const eventsSince = async (before: number) => (await chain()).slice(before).map((entry) => storedEvent(entry, 'default'));

  it('audits 100 requests for unknown users in the tenant chain, with no new key but the client’s one rate counter', async () => {
    const [keysBefore, eventsBefore] = [new Set(await storeKeys(harness.store, prefix)), (await chain()).length];
    for (let i = 0; i < 100; i++) {
      const form = new URLSearchParams({ scope: 'openid', login_hint: `nobody_${i}`, authorization_details: JSON.stringify(payment({ transaction_id: `txn_${i}` })) });
      const answer = await harness.call('POST', '/bc-authorize', { body: form.toString(), headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' } });
      expect([answer.status, answer.body.error]).toEqual([400, 'unknown_user_id']);
    }
    await harness.deps.background.drain();
    // One key for all of them: the client's rate-limit counter (one per client, whatever it asks).
    expect((await storeKeys(harness.store, prefix)).filter((key) => !keysBefore.has(key))).toEqual([keys.rate('bcAuthorize', `default:${clientId}`)]);
    const events = await eventsSince(eventsBefore);
    expect(events).toHaveLength(100);
    expect(events.every((event) => event?.type === 'refused' && event.reason === 'unknown_user_id' && event.auth_req_id === undefined)).toBe(true);
  });

  it('audits 100 decisions on request ids nobody issued in the tenant chain, with no new key but the session’s one rate counter', async () => {
    const [keysBefore, eventsBefore] = [new Set(await storeKeys(harness.store, prefix)), (await chain()).length];
    for (let i = 0; i < 100; i++) {
      const madeUp = `madeUpRequest${String(i).padStart(3, '0')}xxxxxxxxxxxxxx`;
      const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'c'.repeat(43), origin: harness.issuer })).toString('base64url');
      const answer = await harness.call('POST', `/api/device/requests/${madeUp}/decision`, {
        body: { decision: 'approve', response: { id: alice.authenticator.credentialId, response: { clientDataJSON } } },
        headers: { cookie: alice.cookie, origin: harness.issuer },
      });
      expect([answer.status, answer.body.error]).toEqual([400, 'invalid_assertion']);
    }
    await harness.deps.background.drain();
    const [deviceId] = await harness.store.setMembers(keys.userDevices('default', 'alice'));
    expect((await storeKeys(harness.store, prefix)).filter((key) => !keysBefore.has(key))).toEqual([keys.rate('deviceChanges', `default:alice:${deviceId}`)]);
    const events = await eventsSince(eventsBefore);
    expect(events).toHaveLength(100);
    expect(events.every((event) => event?.type === 'refused' && event.reason === 'invalid_assertion' && event.sub === 'alice' && event.auth_req_id === undefined)).toBe(true);
  });

  it('still files a refused decision on a request that exists under that request', async () => {
    const form = new URLSearchParams({ scope: 'openid', login_hint: 'alice', authorization_details: JSON.stringify(payment()) });
    const asked = await harness.call('POST', '/bc-authorize', { body: form.toString(), headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' } });
    const id = asked.body.auth_req_id as string;
    const refused = await harness.call('POST', `/api/device/requests/${id}/decision`, { body: { decision: 'approve', response: {} }, headers: { cookie: alice.cookie, origin: harness.issuer } });
    expect(refused.body.error).toBe('invalid_assertion');
    const audit = await harness.admin('GET', `/audit?auth_req_id=${id}`);
    expect(audit.body.events.filter((event: { type: string }) => event.type === 'refused').map((event: { reason: string }) => event.reason)).toEqual(['invalid_assertion']);
  });
});
