/**
 * The named tests of guarantees 1 to 5 of docs/design.md ("The nine guarantees"): two turns, server-held arguments,
 * the hash and tamper check, the signed device approval and scoping.
 */
import { decisionChallenge, detailsHash } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { base64url } from '@countersign/shared';
import { decodeJwt, SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { payment } from '../../support/payment.ts';
import { useDesignGuarantees } from './support.ts';

describe('the guarantees of docs/design.md', () => {
  const ctx = useDesignGuarantees();
  const { ask, auditTypes, refusal, approvedToken } = ctx;

  it('guarantee 1, two turns: bc-authorize only stores and pushes; nothing is redeemable on the turn it is proposed', async () => {
    const asked = await ask();
    await ctx.harness.deps.background.drain();
    expect(await ctx.agent.getRequest(asked.auth_req_id)).toMatchObject({ state: 'pending', outcome: null });
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
    expect(await auditTypes(asked.auth_req_id)).toEqual(['proposed', 'pushed']);
  });

  it('guarantee 2, server-held arguments: the stored, validated action is what comes back; an echo is compared, never used', async () => {
    const spelledOtherwise = [{ purpose: 'Refund for order 1042', payee: { name: 'ACME Ltd', id: 'acct_77' }, currency: 'EUR', amount_minor: 49000, transaction_id: 'txn_1042', type: 'payment' as const }];
    const { token } = await approvedToken(spelledOtherwise);
    expect(token.authorization_details).toEqual(payment());
    const redeemed = await ctx.agent.redeem(token.access_token, spelledOtherwise);
    // The executor is handed the server's validated copy, member for member, not its own echo.
    expect(JSON.stringify(redeemed.authorization_details)).toBe(JSON.stringify(payment()));
    expect(JSON.stringify(redeemed.authorization_details)).not.toBe(JSON.stringify(spelledOtherwise));
  });

  it('guarantee 3, hash and tamper check: details_hash is base64url(SHA-256(JCS)) in the token and any difference is approval_mismatch', async () => {
    const { token, id } = await approvedToken();
    expect(decodeJwt(token.access_token).details_hash).toBe(await detailsHash(payment()));
    const tampered = await refusal(ctx.agent.redeem(token.access_token, payment({ amount_minor: 49001 })));
    expect([tampered.code, tampered.status]).toEqual(['approval_mismatch', 400]);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...decodeJwt(token.access_token), details_hash: await detailsHash(payment({ amount_minor: 1 })) }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).sign(privateKey);
    expect((await refusal(ctx.agent.redeem(forged, payment({ amount_minor: 1 })))).code).toBe('invalid_token');
    expect((await ctx.agent.getRequest(id)).state).toBe('approved');
  });

  it('guarantee 4, signed device approval: the challenge is SHA-256(JCS({auth_req_id, details_hash, decision, nonce})), UV is required and the nonce is single-use', async () => {
    const asked = await ask();
    const view = await ctx.harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: ctx.customer.cookie } });
    const record = JSON.parse((await ctx.harness.store.get(`chl:{default}:${view.body.options.deny.challenge}`))!);
    const expected = base64url(await decisionChallenge({ auth_req_id: asked.auth_req_id, details_hash: await detailsHash(payment()), decision: 'deny', nonce: record.nonce }));
    expect(view.body.options.deny.challenge).toBe(expected);
    expect(view.body.options.deny.userVerification).toBe('required');
    const withoutUv = await ctx.customer.authenticator.authenticate(view.body.options.deny, { userVerified: false });
    const post = (response: unknown) => ctx.harness.call('POST', `/api/device/requests/${asked.auth_req_id}/decision`, { body: { decision: 'deny', response }, headers: { cookie: ctx.customer.cookie, origin: ctx.harness.issuer } });
    expect((await post(withoutUv)).body.error).toBe('invalid_assertion');
    expect(await ctx.harness.store.get(`chl:{default}:${expected}`)).toBeNull();
    expect((await post(await ctx.customer.authenticator.authenticate(view.body.options.deny))).body.error).toBe('invalid_assertion');
    expect((await ctx.agent.getRequest(asked.auth_req_id)).state).toBe('pending');
  });

  it('guarantee 5, scoping: another client, another user’s device and another tenant see nothing', async () => {
    const asked = await ask();
    const other = await ctx.harness.createClient('Other agent');
    const intruder = createAgentClient({ issuer: ctx.harness.issuer, clientId: other.client_id, clientSecret: other.client_secret, fetch: ctx.harness.fetch });
    expect((await refusal(intruder.pollToken(asked.auth_req_id))).code).toBe('invalid_grant');
    expect((await refusal(intruder.getRequest(asked.auth_req_id))).status).toBe(404);
    const mallory = await ctx.harness.enrollUser('mallory');
    expect((await ctx.harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: mallory.cookie } })).status).toBe(404);
    expect((await ctx.harness.admin('GET', `/requests/${asked.auth_req_id}?tenant=tenant-b`)).status).toBe(404);
  });
});
