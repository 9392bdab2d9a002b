import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { basic } from './support/raw-request.ts';
import { storeKeys } from './support/store-keys.ts';
import { toolCall } from './support/tool-call.ts';
import { errorOf } from './support/refusal.ts';

/** Arguments a real tool takes: a float, nested objects and lists, non-ASCII text, a null. */
const ARGUMENTS = {
  entityNames: ['Alice', 'Zoë', '東京'],
  threshold: 1.5,
  ratio: 0.1,
  big: 1e21,
  options: { cascade: true, scope: { kind: 'graph', depth: 2, tags: ['a', { nested: null }] } },
  note: 'Löschen — ✓ 🙂',
};

describe.each(['memory', 'redis'] as const)('a tool_call end to end (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;
  let credentials: { client_id: string; client_secret: string };
  let prefix: string;

  beforeEach(async () => {
    prefix = `toolcall${Math.random().toString(36).slice(2)}:`;
    harness = await createHarness({ store: storeKind, redisPrefix: prefix });
    customer = await harness.enrollUser('customer_1');
    credentials = await harness.createClient('MCP gateway');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  async function approved(details = toolCall({ arguments: ARGUMENTS })) {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details, binding_message: 'delete_entities' });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { ...asked, token: polled.token };
  }

  it('is advertised in discovery', async () => {
    const discovery = await harness.call('GET', '/.well-known/openid-configuration');
    expect(discovery.body.authorization_details_types_supported).toEqual(['payment', 'deletion', 'message', 'access_change', 'record_change', 'mandate', 'tool_call']);
  });

  it('is proposed, approved with the passkey and redeemed once with exactly its arguments: a float, nested objects, unicode', async () => {
    const details = toolCall({ arguments: ARGUMENTS });
    const { token, auth_req_id } = await approved(details);
    expect(token.authorization_details).toEqual(details);
    const redeemed = await agent.redeem(token.access_token, details);
    expect(redeemed).toMatchObject({ status: 'redeemed', idempotency_key: 'mcp_1', authorization_details: details });
    // Stored as sent: the float is 1.5, not rounded or refused; the text is not normalised.
    const stored = (await harness.admin('GET', `/requests/${auth_req_id}`)).body.request;
    expect(stored.authorization_details[0].arguments).toEqual(ARGUMENTS);
    expect((await errorOf(agent.redeem(token.access_token, details))).code).toBe('already_redeemed');
  });

  it('shows the person the server, the tool and each argument', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: toolCall({ arguments: ARGUMENTS }) });
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    const [action] = view.body.request.actions;
    expect(action.summary).toBe('memory: delete_entities');
    expect(action.fields.slice(0, 2)).toEqual([
      { label: 'Server', value: 'memory' },
      { label: 'Tool', value: 'delete_entities' },
    ]);
    expect(action.arguments.map((member: { name: string }) => member.name)).toEqual(['big', 'entityNames', 'note', 'options', 'ratio', 'threshold']);
    expect(action.arguments.find((member: { name: string }) => member.name === 'threshold').value).toEqual({ kind: 'number', text: '1.5' });
  });

  it('refuses a redeem with a changed argument (approval_mismatch) and leaves the approval redeemable', async () => {
    const details = toolCall({ arguments: ARGUMENTS });
    const { token, auth_req_id } = await approved(details);
    for (const changed of [
      { ...ARGUMENTS, threshold: 1.5000001 },
      { ...ARGUMENTS, entityNames: ['Alice', 'Zoë', '東京', 'Bob'] },
      { ...ARGUMENTS, note: 'Lo\u0308schen — ✓ 🙂' },
      { ...ARGUMENTS, options: { ...ARGUMENTS.options, cascade: false } },
    ]) {
      const error = await errorOf(agent.redeem(token.access_token, toolCall({ arguments: changed })));
      expect([error.code, error.status]).toEqual(['approval_mismatch', 400]);
    }
    expect((await agent.getRequest(auth_req_id)).state).toBe('approved');
    expect((await agent.redeem(token.access_token, details)).status).toBe('redeemed');
  });

  it('refuses 1.50 written for 1.5 at /redeem: the bytes presented are not the approved ones', async () => {
    const details = toolCall({ arguments: { threshold: 1.5 } });
    const { token } = await approved(details);
    const text = JSON.stringify({ token: token.access_token, authorization_details: details }).replace('"threshold":1.5', '"threshold":1.50');
    const response = await harness.fetch(`${harness.issuer}/redeem`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: basic(credentials) }, body: text });
    expect([response.status, (await response.json()).error]).toEqual([400, 'approval_mismatch']);
    expect((await agent.redeem(token.access_token, details)).status).toBe('redeemed');
  });

  it('takes a fraction in arguments only as JCS writes it, and still refuses one in a payment', async () => {
    const propose = (json: string) =>
      harness.call('POST', '/bc-authorize', {
        body: new URLSearchParams({ scope: 'openid', login_hint: customer.sub, authorization_details: json }).toString(),
        headers: { authorization: basic(credentials), 'content-type': 'application/x-www-form-urlencoded' },
      });
    const call = (ratio: string) => `[{"type":"tool_call","transaction_id":"mcp_${ratio.replace(/\W/g, '')}","server":"memory","tool":"t","arguments":{"ratio":${ratio}}}]`;
    expect((await propose(call('1.5'))).status).toBe(200);
    expect((await propose(call('1e+21'))).status).toBe(200);
    for (const spelled of ['1.50', '15e-1', '-0', '0.10000000000000000001']) {
      const refused = await propose(call(spelled));
      expect([refused.status, refused.body.error], spelled).toEqual([400, 'invalid_authorization_details']);
      expect(refused.body.error_description).toContain('authorization_details[0].arguments.ratio: numbers in a tool call');
    }
    // Outside `arguments` (here a payment's amount) a fraction is refused as before.
    const payment = await propose('[{"type":"payment","transaction_id":"t","amount_minor":1.5,"currency":"EUR","payee":{"id":"a","name":"A"},"purpose":"p"}]');
    expect(payment.body.error_description).toContain('numbers must be written as plain integers');
  });

  it('refuses a call over 8 KB as JCS with 400 invalid_authorization_details, and stores no request', async () => {
    const before = await storeKeys(harness.store, prefix);
    const oversize = toolCall({ arguments: { text: 'x'.repeat(8 * 1024) } });
    const error = await errorOf(agent.requestApproval({ login_hint: customer.sub, authorization_details: oversize }));
    expect([error.code, error.status]).toEqual(['invalid_authorization_details', 400]);
    expect(error.message).toContain('8192 bytes');
    const added = (await storeKeys(harness.store, prefix)).filter((key) => !before.includes(key));
    // Only the client's rate counter moved: no request, no index, no transaction id.
    expect(added.filter((key) => !key.startsWith('rate:'))).toEqual([]);
  });
});
