import { createAgentClient, type AgentClient, type ClientAuthentication } from '@countersign/agent';
import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, type ClientKey } from './support/client-jwt.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { errorOf } from './support/refusal.ts';

/**
 * The agent client with each client authentication the server supports, against the real server
 * on the run's Redis: every endpoint it calls (ask, poll, redeem, outcome, read the request)
 * authenticates with the one method the client registered.
 */
describe('the agent client with each client authentication method (redis store)', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let esKey: ClientKey;
  let psKey: ClientKey;

  beforeAll(async () => {
    harness = await createHarness({ store: 'redis' });
    customer = await harness.enrollUser('customer_1');
    [esKey, psKey] = await Promise.all([clientKey('ES256'), clientKey('PS256')]);
  });
  afterAll(() => harness.close());

  async function register(body: Record<string, unknown>): Promise<{ client_id: string; client_secret?: string }> {
    const { status, body: client } = await harness.admin('POST', '/clients', { name: 'Agent', ...body });
    expect(status).toBe(201);
    return client;
  }

  /** Registers a client for `method` and answers the agent client's `auth` for it. */
  const clients: Record<string, () => Promise<{ clientId: string; auth: ClientAuthentication }>> = {
    client_secret_basic: async () => {
      const client = await register({});
      return { clientId: client.client_id, auth: { method: 'client_secret_basic', clientSecret: client.client_secret! } };
    },
    client_secret_post: async () => {
      const client = await register({ token_endpoint_auth_method: 'client_secret_post' });
      return { clientId: client.client_id, auth: { method: 'client_secret_post', clientSecret: client.client_secret! } };
    },
    'private_key_jwt (ES256, CryptoKey)': async () => {
      const client = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [esKey.publicJwk] } });
      return { clientId: client.client_id, auth: { method: 'private_key_jwt', privateKey: esKey.privateKey, kid: esKey.publicJwk.kid! } };
    },
    'private_key_jwt (PS256, private JWK)': async () => {
      const client = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [esKey.publicJwk, psKey.publicJwk] } });
      const privateJwk = { ...(await exportJWK(psKey.privateKey)), kid: psKey.publicJwk.kid!, alg: 'PS256' };
      return { clientId: client.client_id, auth: { method: 'private_key_jwt', privateKey: privateJwk } };
    },
  };

  async function agentFor(method: string): Promise<AgentClient> {
    const { clientId, auth } = await clients[method]!();
    // Sleeps are skipped: the decision is made before the wait begins.
    return createAgentClient({ issuer: harness.issuer, clientId, auth, fetch: harness.fetch, sleep: async () => {} });
  }

  it.each(Object.keys(clients))('runs a whole flow with %s: ask, approve, token, redeem, outcome, read', async (method) => {
    const agent = await agentFor(method);
    const transactionId = `txn_${method.replace(/\W+/g, '_')}`;
    const details = payment({ transaction_id: transactionId });

    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details, binding_message: 'Refund 1042' });
    expect((await agent.getRequest(asked.auth_req_id)).state).toBe('pending');
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);

    const decision = await agent.waitForDecision(asked.auth_req_id, { interval: asked.interval });
    if (decision.status !== 'approved') throw new Error(`not approved: ${decision.status}`);
    expect(decision.token.authorization_details).toEqual(details);
    const redemption = await agent.redeem(decision.token.access_token, details);
    expect(redemption).toMatchObject({ status: 'redeemed', idempotency_key: transactionId, authorization_details: details });
    // `rdm_<random>.<auth_req_id>` (server/src/redemption/redemption-id.ts).
    expect(redemption.redemption_id.split('.')).toEqual([expect.stringMatching(/^rdm_[A-Za-z0-9_-]{16,40}$/), asked.auth_req_id]);
    await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });

    expect(await agent.getRequest(asked.auth_req_id)).toEqual({
      auth_req_id: asked.auth_req_id,
      state: 'redeemed',
      expires_at: expect.any(String),
      outcome: { status: 'succeeded', reference: 're_1042' },
      awaiting: [],
      // No escalation chain on this tier: the client reads null for both.
      escalation: null,
      expiry_reason: null,
    });
    const stored = (await harness.admin('GET', `/requests/${asked.auth_req_id}`)).body.request;
    expect([stored.client_id, stored.state]).toEqual([agent.clientId, 'redeemed']);
  });

  it('is refused invalid_client with a private key the client did not register, where its own key is accepted', async () => {
    const client = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [esKey.publicJwk] } });
    const stranger = await clientKey('ES256');
    const own = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, auth: { method: 'private_key_jwt', privateKey: esKey.privateKey }, fetch: harness.fetch });
    const forged = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, auth: { method: 'private_key_jwt', privateKey: stranger.privateKey }, fetch: harness.fetch });
    const asked = await own.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: 'txn_stranger' }) });
    const error = await errorOf(forged.getRequest(asked.auth_req_id));
    expect([error.code, error.status]).toEqual(['invalid_client', 401]);
    expect((await own.getRequest(asked.auth_req_id)).state).toBe('pending');
  });
});
