import { createAgentClient, type AgentClient } from '@countersign/agent';
import { base64url } from '@countersign/shared';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../server/src/store/index.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { errorOf } from './support/refusal.ts';

/**
 * `/redeem` recognises the token it issued by the hash kept with the request (`token_hash`,
 * compared inside the redemption's compare-and-swap), not by verifying the token's signature
 * (docs/performance.md). These are the ways that could go wrong: a token re-signed over the same
 * claims with another key, a token whose claims were edited, and a record bound to its token
 * before hashes were kept, which still redeems through the signature, and only through it.
 */
describe.each(['memory', 'redis'] as const)('recognising the issued token at /redeem (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;
  let n = 0;

  beforeAll(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_token_hash');
    const credentials = await harness.createClient('Executor');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterAll(() => harness?.close());

  async function approved() {
    const details = payment({ transaction_id: `txn_hash_${++n}` });
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details });
    await harness.drain();
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    return { id: asked.auth_req_id, details, token: polled.token.access_token, key: keys.request('default', asked.auth_req_id) };
  }

  /** The same claims and header, signed with a key this server never had. */
  async function resigned(token: string): Promise<string> {
    const { privateKey } = await generateKeyPair('ES256');
    return new SignJWT(decodeJwt(token)).setProtectedHeader(decodeProtectedHeader(token) as { alg: string }).sign(privateKey);
  }

  const refusedTrail = async (id: string) => ((await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string }[]).filter((event) => event.type === 'refused');

  it('keeps base64url(SHA-256) of the issued token with the request', async () => {
    const { token, key } = await approved();
    expect((await harness.deps.store.hashGet(key))?.token_hash).toBe(base64url(createHash('sha256').update(token).digest()));
  });

  it('refuses the same claims signed with another key, changing nothing and filing nothing under the approval; the issued token then redeems once', async () => {
    const { id, details, token, key } = await approved();
    const before = await harness.deps.store.hashGet(key);
    expect((await errorOf(agent.redeem(await resigned(token), details))).code).toBe('invalid_token');
    expect(await harness.deps.store.hashGet(key)).toEqual(before);
    expect(await refusedTrail(id)).toEqual([]);
    expect((await agent.redeem(token, details)).status).toBe('redeemed');
    expect((await errorOf(agent.redeem(token, details))).code).toBe('already_redeemed');
  });

  it('refuses a token whose claims were edited under the original signature (another details_hash)', async () => {
    const { details, token, key } = await approved();
    const [header, , signature] = token.split('.');
    const claims = { ...decodeJwt(token), details_hash: 'A'.repeat(43) };
    const edited = `${header}.${base64url(Buffer.from(JSON.stringify(claims)))}.${signature}`;
    expect((await errorOf(agent.redeem(edited, details))).code).toBe('invalid_token');
    expect((await harness.deps.store.hashGet(key))?.state).toBe('approved');
  });

  it('does not tell a forged token that the action differs: approval_mismatch is for the issued token only', async () => {
    const { details, token } = await approved();
    const other = { ...details[0]!, purpose: 'Not what was approved' };
    expect((await errorOf(agent.redeem(await resigned(token), [other]))).code).toBe('invalid_token');
    expect((await errorOf(agent.redeem(token, [other]))).code).toBe('approval_mismatch');
  });

  it('redeems a record bound before hashes were kept by its verified signature, and refuses a re-signed copy of it', async () => {
    const { id, details, token, key } = await approved();
    expect(await harness.deps.store.hashDelete(key, 'token_hash')).toBe(true);
    expect((await errorOf(agent.redeem(await resigned(token), details))).code).toBe('invalid_token');
    expect(await refusedTrail(id)).toEqual([]);
    expect((await agent.redeem(token, details)).status).toBe('redeemed');
    expect((await harness.deps.store.hashGet(key))?.state).toBe('redeemed');
  });
});
