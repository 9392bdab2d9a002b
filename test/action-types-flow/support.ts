/**
 * Set-up shared by the tests that take each action type beyond payment (deletion, message, access_change, record_change) through
 * every path a payment does, on the real server with either store (the run's Redis, and memory):
 * proposed and pushed, shown on the phone as the server computes it, approved with the passkey
 * (number matching where the shipped policy's tier asks for it), the token carrying the action,
 * redeemed once with exactly it, the outcome read back by the client, in the trail and in the
 * person's history; and refused when the executor redeems anything else, asks again with other
 * details, or runs on a record that moved on.
 */
import type { PushSender } from '@countersign/server';
import type { ActionDisplay, AuthorizationDetails } from '@countersign/shared';
import { afterEach, beforeEach, expect } from 'vitest';
import { answer, bcAuthorize, device, pollToken } from '../guarantees/policy-support.ts';
import { accessChange, deletion, message, MESSAGE_BODY, recordChange } from '../support/action-samples.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { basic } from '../support/raw-request.ts';

type Client = { client_id: string; client_secret: string };

/** One new action type as this suite drives it. */
interface TypeCase {
  type: string;
  /** The example of the type in docs/ciba.md (one action). */
  details: AuthorizationDetails;
  /** The tier the shipped policy gives it: `elevated` asks for number matching. */
  tier: 'standard' | 'elevated';
  /** What the person must see, computed by the server (a subset of the action's display). */
  shown: Partial<ActionDisplay>;
  /** The same action with one field changed (same transaction_id): what a tampering executor redeems. */
  changed: AuthorizationDetails;
  /** `current_versions` the executor states at `/redeem` (the record's current version, for a precondition). */
  versions?: Record<string, string>;
}

export const CASES: TypeCase[] = [
  {
    type: 'deletion',
    details: deletion(),
    tier: 'elevated',
    shown: {
      type: 'deletion',
      title: 'Delete 1,200 customer records in crm',
      warnings: ['Cannot be undone'],
      records: { kind: 'customer', system: 'crm', count: 1200, ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5'], more: 1195, reversible: false },
      fields: [
        { label: 'Records', value: 'customer records in crm' },
        { label: 'How many', value: '1,200' },
        { label: 'Ids', value: 'cus_1, cus_2, cus_3, cus_4, cus_5 and 1,195 more' },
        { label: 'Undo', value: 'Cannot be undone' },
        { label: 'Purpose', value: 'Erasure request 88' },
        { label: 'Transaction', value: 'del_88' },
      ],
    },
    // One id swapped for another the person never saw.
    changed: deletion({ ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5', 'cus_7'] }),
  },
  {
    type: 'message',
    details: message(),
    tier: 'elevated',
    shown: {
      type: 'message',
      title: 'Send email to 12,000 recipients',
      summary: 'Email to 12,000 recipients',
      message: { channel: 'Email', recipient_count: 12000, list: 'newsletter-eu', sample: ['ana@example.com'], subject: 'Price change', body: MESSAGE_BODY },
    },
    changed: message({ body: MESSAGE_BODY.replace('1 January', '1 February') }),
  },
  {
    type: 'access_change',
    details: accessChange(),
    tier: 'standard',
    shown: {
      type: 'access_change',
      title: 'Change Bo Li from viewer to editor on Payments prod',
      access: { kind: 'change', principal: 'Bo Li (u_9)', resource: 'Payments prod (proj_1)', from_role: 'viewer', to_role: 'editor' },
    },
    changed: accessChange({ to_role: 'owner' }),
  },
  {
    type: 'record_change',
    details: recordChange(),
    tier: 'standard',
    shown: {
      type: 'record_change',
      title: 'Change campaign Auto EU (cmp_4): 2 fields',
      changes: [
        { field: 'daily_budget_eur_minor', from: { kind: 'number', text: '4000' }, to: { kind: 'number', text: '4250' } },
        { field: 'status', from: { kind: 'text', preview: 'active', full: 'active', folded: false }, to: { kind: 'text', preview: 'paused', full: 'paused', folded: false } },
      ],
    },
    changed: recordChange({
      changes: [
        { field: 'daily_budget_eur_minor', from: 4000, to: 4300 },
        { field: 'status', from: 'active', to: 'paused' },
      ],
    }),
    versions: { 'campaign:cmp_4': '17' },
  },
];

/** One message the server handed to its push sender. */
interface SentPush {
  endpoint: string;
  payload: { auth_req_id: string; summary: string };
}

/** Registers, in the calling `describe`, a fresh server per test with customer_1's phone subscribed to push, and an ops client; every push sent lands in `sent`. */
export function useActionTypesFlow(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    client: Client;
  };
  const sent: SentPush[] = [];
  const pushSender: PushSender = {
    async send(subscription, payload) {
      sent.push({ endpoint: subscription.endpoint, payload: JSON.parse(payload) });
      return { status: 'sent', statusCode: 201 };
    },
  };

  beforeEach(async () => {
    sent.length = 0;
    state.harness = await createHarness({ store: storeKind, pushSender });
    state.customer = await state.harness.enrollUser('customer_1');
    state.client = await state.harness.createClient('Ops agent');
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(state.harness, state.customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
  });
  afterEach(() => state.harness.close());

  const ask = (details: AuthorizationDetails) => bcAuthorize(state.harness, state.client, { login_hint: state.customer.sub, details });
  /** `/redeem` as the executor (the requesting client), with `current_versions` when given. */
  const redeem = (token: string, details: AuthorizationDetails, versions?: Record<string, string>) => state.harness.call('POST', '/redeem', { body: { token, authorization_details: details, ...(versions ? { current_versions: versions } : {}) }, headers: { authorization: basic(state.client) } });
  const clientView = (authReqId: string) => state.harness.call('GET', `/requests/${authReqId}`, { headers: { authorization: basic(state.client) } });
  const trail = async (authReqId: string) => ((await state.harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events as { type: string; reason?: string }[]).map((event) => event.type);

  /** Approves on the phone with the passkey, picking the agent's code when the tier asks for number matching. */
  async function approve(authReqId: string, bindingCode: string | undefined) {
    const decided = await answer(state.harness, state.customer, authReqId, bindingCode === undefined ? { decision: 'approve' } : { decision: 'approve', code: bindingCode });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.request.state).toBe('approved');
  }

  /** Proposed, pushed and approved: answers the request id and the approval token. */
  async function approved(details: AuthorizationDetails) {
    const asked = await ask(details);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    await state.harness.drain();
    await approve(asked.body.auth_req_id, asked.body.binding_code);
    const polled = await pollToken(state.harness, state.client, asked.body.auth_req_id);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    return { auth_req_id: asked.body.auth_req_id as string, token: polled.body.access_token as string };
  }

  return Object.assign(state, { ask, redeem, clientView, trail, approve, approved, sent });
}
