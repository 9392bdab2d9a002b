import { CountersignError, decisionChallenge, detailsHash } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { base64url } from '@countersign/shared';
import { decodeJwt, SignJWT, generateKeyPair } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '@countersign/server';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { errorOf } from '../support/refusal.ts';

/**
 * One named test per guarantee of docs/design.md ("The nine guarantees"), each
 * against a real server on the test Redis with a software passkey. Deeper and wider checks of
 * each live elsewhere (see docs/guarantees.md); these are the ones a reader looks for first.
 */
describe('the guarantees of docs/design.md', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;
  let clientId: string;

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    customer = await harness.enrollUser('customer_1');
    const credentials = await harness.createClient('Support agent');
    clientId = credentials.client_id;
    agent = createAgentClient({ issuer: harness.issuer, clientId, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  const ask = (details = payment()) => agent.requestApproval({ login_hint: customer.sub, authorization_details: details, binding_message: 'Order 1042' });
  const auditTypes = async (id: string) => (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events.map((event: { type: string }) => event.type);
  const refusal = errorOf;
  async function approvedToken(details = payment()) {
    const asked = await ask(details);
    // The person opens the request once its push has reached them: the push (background work) goes first.
    await harness.drain();
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    return { id: asked.auth_req_id, token: polled.token };
  }

  it('guarantee 1, two turns: bc-authorize only stores and pushes; nothing is redeemable on the turn it is proposed', async () => {
    const asked = await ask();
    await harness.deps.background.drain();
    expect(await agent.getRequest(asked.auth_req_id)).toMatchObject({ state: 'pending', outcome: null });
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
    expect(await auditTypes(asked.auth_req_id)).toEqual(['proposed', 'pushed']);
  });

  it('guarantee 2, server-held arguments: the stored, validated action is what comes back; an echo is compared, never used', async () => {
    const spelledOtherwise = [{ purpose: 'Refund for order 1042', payee: { name: 'ACME Ltd', id: 'acct_77' }, currency: 'EUR', amount_minor: 49000, transaction_id: 'txn_1042', type: 'payment' as const }];
    const { token } = await approvedToken(spelledOtherwise);
    expect(token.authorization_details).toEqual(payment());
    const redeemed = await agent.redeem(token.access_token, spelledOtherwise);
    // The executor is handed the server's validated copy, member for member, not its own echo.
    expect(JSON.stringify(redeemed.authorization_details)).toBe(JSON.stringify(payment()));
    expect(JSON.stringify(redeemed.authorization_details)).not.toBe(JSON.stringify(spelledOtherwise));
  });

  it('guarantee 3, hash and tamper check: details_hash is base64url(SHA-256(JCS)) in the token and any difference is approval_mismatch', async () => {
    const { token, id } = await approvedToken();
    expect(decodeJwt(token.access_token).details_hash).toBe(await detailsHash(payment()));
    const tampered = await refusal(agent.redeem(token.access_token, payment({ amount_minor: 49001 })));
    expect([tampered.code, tampered.status]).toEqual(['approval_mismatch', 400]);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...decodeJwt(token.access_token), details_hash: await detailsHash(payment({ amount_minor: 1 })) }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(privateKey);
    expect((await refusal(agent.redeem(forged, payment({ amount_minor: 1 })))).code).toBe('invalid_token');
    expect((await agent.getRequest(id)).state).toBe('approved');
  });

  it('guarantee 4, signed device approval: the challenge is SHA-256(JCS({auth_req_id, details_hash, decision, nonce})), UV is required and the nonce is single-use', async () => {
    const asked = await ask();
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    const record = JSON.parse((await harness.store.get(`chl:{default}:${view.body.options.deny.challenge}`))!);
    const expected = base64url(await decisionChallenge({ auth_req_id: asked.auth_req_id, details_hash: await detailsHash(payment()), decision: 'deny', nonce: record.nonce }));
    expect(view.body.options.deny.challenge).toBe(expected);
    expect(view.body.options.deny.userVerification).toBe('required');
    const withoutUv = await customer.authenticator.authenticate(view.body.options.deny, { userVerified: false });
    const post = (response: unknown) => harness.call('POST', `/api/device/requests/${asked.auth_req_id}/decision`, { body: { decision: 'deny', response }, headers: { cookie: customer.cookie, origin: harness.issuer } });
    expect((await post(withoutUv)).body.error).toBe('invalid_assertion');
    expect(await harness.store.get(`chl:{default}:${expected}`)).toBeNull();
    expect((await post(await customer.authenticator.authenticate(view.body.options.deny))).body.error).toBe('invalid_assertion');
    expect((await agent.getRequest(asked.auth_req_id)).state).toBe('pending');
  });

  it('guarantee 5, scoping: another client, another user’s device and another tenant see nothing', async () => {
    const asked = await ask();
    const other = await harness.createClient('Other agent');
    const intruder = createAgentClient({ issuer: harness.issuer, clientId: other.client_id, clientSecret: other.client_secret, fetch: harness.fetch });
    expect((await refusal(intruder.pollToken(asked.auth_req_id))).code).toBe('invalid_grant');
    expect((await refusal(intruder.getRequest(asked.auth_req_id))).status).toBe(404);
    const mallory = await harness.enrollUser('mallory');
    expect((await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: mallory.cookie } })).status).toBe(404);
    expect((await harness.admin('GET', `/requests/${asked.auth_req_id}?tenant=tenant-b`)).status).toBe(404);
  });

  it('guarantee 6, TTL and ownership: requests expire (300 s by default, at most 600 s), tokens after 600 s, and only the requesting client redeems', async () => {
    const asked = await ask();
    expect(asked.expires_in).toBe(300);
    expect((await refusal(agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: 'txn_2' }), requested_expiry: 601 }))).code).toBe('invalid_request');
    const { token, id } = await approvedToken(payment({ transaction_id: 'txn_3' }));
    expect(token.expires_in).toBe(600);
    const other = await harness.createClient('Other agent');
    const intruder = createAgentClient({ issuer: harness.issuer, clientId: other.client_id, clientSecret: other.client_secret, fetch: harness.fetch });
    expect((await refusal(intruder.redeem(token.access_token, payment({ transaction_id: 'txn_3' })))).code).toBe('unauthorized_client');
    // A client of another tenant is refused too, and the attempt is in the owner's trail, not in its own tenant's.
    const foreign = (await harness.admin('POST', '/clients', { name: 'Agent of tenant b', tenant: 'tenant-b' })).body as { client_id: string; client_secret: string };
    const outsider = createAgentClient({ issuer: harness.issuer, clientId: foreign.client_id, clientSecret: foreign.client_secret, fetch: harness.fetch });
    expect((await refusal(outsider.redeem(token.access_token, payment({ transaction_id: 'txn_3' })))).code).toBe('unauthorized_client');
    const owners = (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; reason?: string; client_id?: string; detail?: Record<string, unknown> }[];
    expect(owners.filter((event) => event.type === 'refused').map(({ reason, client_id, detail }) => ({ reason, client_id, tenant: detail?.client_tenant }))).toEqual([
      { reason: 'unauthorized_client', client_id: other.client_id, tenant: undefined },
      { reason: 'unauthorized_client', client_id: foreign.client_id, tenant: 'tenant-b' },
    ]);
    expect((await harness.admin('GET', `/audit?auth_req_id=${id}&tenant=tenant-b`)).body.events).toEqual([]);
    // A token that verifies for an approval whose record is gone (a Redis that lost it) is refused
    // invalid_token, and the attempt is in that request's trail: its id came from a verified token.
    const lost = await approvedToken(payment({ transaction_id: 'txn_4' }));
    expect(await harness.store.delete(keys.request('default', lost.id))).toBe(true);
    expect((await refusal(agent.redeem(lost.token.access_token, payment({ transaction_id: 'txn_4' })))).code).toBe('invalid_token');
    const lostTrail = (await harness.admin('GET', `/audit?auth_req_id=${lost.id}`)).body.events as { type: string; reason?: string; client_id?: string }[];
    expect(lostTrail.at(-1)).toMatchObject({ type: 'refused', reason: 'invalid_token', client_id: agent.clientId });
    harness.clock.advance(600);
    expect((await refusal(agent.redeem(token.access_token, payment({ transaction_id: 'txn_3' })))).code).toBe('invalid_token');
    expect((await agent.getRequest(id)).state).toBe('expired');
  });

  it('guarantee 7, compare-and-swap consumption: of 50 concurrent redeems one wins; the rest get already_redeemed with the original record', async () => {
    const { token } = await approvedToken();
    const results = await Promise.all(Array.from({ length: 50 }, () => agent.redeem(token.access_token, payment()).catch((error: CountersignError) => error)));
    const winners = results.filter((result) => !(result instanceof CountersignError)) as { redemption_id: string }[];
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((result) => result instanceof CountersignError) as CountersignError[]) {
      expect([loser.code, loser.status]).toEqual(['already_redeemed', 409]);
      expect(loser.body?.redemption).toMatchObject({ redemption_id: winners[0]!.redemption_id });
    }
  });

  it('guarantee 8, outcome reporting: the executor reports, the client reads it back and the device shows it', async () => {
    const { token, id } = await approvedToken();
    const redeemed = await agent.redeem(token.access_token, payment());
    expect((await agent.getRequest(id)).outcome).toBeNull();
    await agent.reportOutcome(redeemed.redemption_id, { status: 'failed', reason: 'card declined' });
    expect((await agent.getRequest(id)).outcome).toEqual({ status: 'failed', reason: 'card declined' });
    const onDevice = await harness.call('GET', `/api/device/requests/${id}`, { headers: { cookie: customer.cookie } });
    expect(onDevice.body.request.outcome).toEqual({ status: 'failed', reason: 'card declined' });
  });

  it('guarantee 9, audit: every gate decision is an append-only event with who, what, when and channel', async () => {
    const { token, id } = await approvedToken();
    await refusal(agent.redeem(token.access_token, payment({ amount_minor: 1 })));
    const redeemed = await agent.redeem(token.access_token, payment());
    await agent.reportOutcome(redeemed.redemption_id, { status: 'succeeded' });
    const { events } = (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body;
    expect(events.map((event: { type: string; reason?: string }) => (event.reason ? `${event.type}:${event.reason}` : event.type))).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'refused:approval_mismatch', 'redeemed', 'outcome']);
    for (const event of events) {
      expect(event).toMatchObject({ tenant: 'default', auth_req_id: id, channel: expect.any(String), at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    }
    expect(events.find((event: { type: string }) => event.type === 'approved')).toMatchObject({ sub: customer.sub, channel: 'device', credential_id: customer.authenticator.credentialId });
    expect(events.find((event: { type: string }) => event.type === 'redeemed')).toMatchObject({ client_id: clientId, channel: 'agent' });
  });
});
