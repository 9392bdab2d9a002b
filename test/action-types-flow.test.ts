import type { PushSender } from '@countersign/server';
import { detailsHash, type ActionDisplay, type AuthorizationDetails, type HistoryEntry, type RequestDisplay } from '@countersign/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, bcAuthorize, device, pollToken } from './guarantees/policy-support.ts';
import { accessChange, deletion, message, MESSAGE_BODY, recordChange } from './support/action-samples.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { basic } from './support/raw-request.ts';

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

const CASES: TypeCase[] = [
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

/**
 * Each action type beyond payment (deletion, message, access_change, record_change) goes through
 * every path a payment does, on the real server with either store (the run's Redis, and memory):
 * proposed and pushed, shown on the phone as the server computes it, approved with the passkey
 * (number matching where the shipped policy's tier asks for it), the token carrying the action,
 * redeemed once with exactly it, the outcome read back by the client, in the trail and in the
 * person's history; and refused when the executor redeems anything else, asks again with other
 * details, or runs on a record that moved on.
 */
describe.each(['memory', 'redis'] as const)('each new action type through every path a payment takes (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  const sent: SentPush[] = [];
  const pushSender: PushSender = {
    async send(subscription, payload) {
      sent.push({ endpoint: subscription.endpoint, payload: JSON.parse(payload) });
      return { status: 'sent', statusCode: 201 };
    },
  };

  beforeEach(async () => {
    sent.length = 0;
    harness = await createHarness({ store: storeKind, pushSender });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Ops agent');
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(harness, customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
  });
  afterEach(() => harness.close());

  const ask = (details: AuthorizationDetails) => bcAuthorize(harness, client, { login_hint: customer.sub, details });
  /** `/redeem` as the executor (the requesting client), with `current_versions` when given. */
  const redeem = (token: string, details: AuthorizationDetails, versions?: Record<string, string>) => harness.call('POST', '/redeem', { body: { token, authorization_details: details, ...(versions ? { current_versions: versions } : {}) }, headers: { authorization: basic(client) } });
  const clientView = (authReqId: string) => harness.call('GET', `/requests/${authReqId}`, { headers: { authorization: basic(client) } });
  const trail = async (authReqId: string) => ((await harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events as { type: string; reason?: string }[]).map((event) => event.type);

  /** Approves on the phone with the passkey, picking the agent's code when the tier asks for number matching. */
  async function approve(authReqId: string, bindingCode: string | undefined) {
    const decided = await answer(harness, customer, authReqId, bindingCode === undefined ? { decision: 'approve' } : { decision: 'approve', code: bindingCode });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.request.state).toBe('approved');
  }

  /** Proposed, pushed and approved: answers the request id and the approval token. */
  async function approved(details: AuthorizationDetails) {
    const asked = await ask(details);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    await harness.drain();
    await approve(asked.body.auth_req_id, asked.body.binding_code);
    const polled = await pollToken(harness, client, asked.body.auth_req_id);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    return { auth_req_id: asked.body.auth_req_id as string, token: polled.body.access_token as string };
  }

  describe.each(CASES)('$type', (c) => {
    it('is proposed, pushed, shown as the server computes it, approved with the passkey, redeemed once with exactly its details, and its outcome is seen everywhere', async () => {
      const asked = await ask(c.details);
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
      const id = asked.body.auth_req_id as string;
      // Elevated (irreversible, many): number matching, so the agent gets a code to show; standard: none.
      if (c.tier === 'elevated') expect(asked.body.binding_code).toMatch(/^[1-9][0-9]$/);
      else expect(asked.body).not.toHaveProperty('binding_code');

      // Two turns: only stored and pushed. The push is one line, the type's own summary.
      await harness.drain();
      expect((await pollToken(harness, client, id)).body.error).toBe('authorization_pending');
      expect(sent.map((push) => push.payload.auth_req_id)).toEqual([id]);

      // The phone's inbox: the display the server computed for this type.
      const inbox = (await device(harness, customer, 'GET', '/requests')).body.requests as RequestDisplay[];
      expect(inbox.map((request) => request.auth_req_id)).toEqual([id]);
      const [shown] = inbox;
      expect(shown!).toMatchObject({ state: 'pending', client_name: 'Ops agent', tier: c.tier, totals: [] });
      expect(shown!.actions).toHaveLength(1);
      expect(shown!.actions[0]).toMatchObject(c.shown);
      expect(sent[0]!.payload.summary).toBe(`Ops agent: ${shown!.actions[0]!.summary}`);
      const opened = await device(harness, customer, 'GET', `/requests/${id}`);
      expect(opened.body.request.actions).toEqual(shown!.actions);
      expect(opened.body.request.number_matching === null).toBe(c.tier === 'standard');

      await approve(id, asked.body.binding_code);
      const polled = await pollToken(harness, client, id);
      expect(polled.status, JSON.stringify(polled.body)).toBe(200);
      expect(polled.body).toMatchObject({ token_type: 'Bearer', authorization_details: c.details });
      expect(polled.body.expires_in).toBe(c.tier === 'elevated' ? 300 : 600);
      // The approval token (RFC 9068) carries the action and its hash, the one stored with the request.
      const claims = JSON.parse(Buffer.from(polled.body.access_token.split('.')[1], 'base64url').toString());
      const stored = (await harness.admin('GET', `/requests/${id}`)).body.request;
      expect(claims).toMatchObject({ authorization_details: c.details, details_hash: await detailsHash(c.details) });
      expect(stored.details_hash).toBe(claims.details_hash);

      const redeemed = await redeem(polled.body.access_token, c.details, c.versions);
      expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
      expect(redeemed.body).toMatchObject({ status: 'redeemed', idempotency_key: (c.details[0] as { transaction_id: string }).transaction_id, authorization_details: c.details });
      const again = await redeem(polled.body.access_token, c.details, c.versions);
      expect([again.status, again.body.error]).toEqual([409, 'already_redeemed']);
      expect(again.body.redemption).toMatchObject({ redemption_id: redeemed.body.redemption_id, outcome: { status: 'unknown' } });

      const reported = await harness.call('POST', `/redemptions/${redeemed.body.redemption_id}/outcome`, { body: { status: 'succeeded', reference: `done_${c.type}` }, headers: { authorization: basic(client) } });
      expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      expect((await clientView(id)).body).toMatchObject({ auth_req_id: id, state: 'redeemed', outcome: { status: 'succeeded', reference: `done_${c.type}` } });

      await harness.drain();
      expect(await trail(id)).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'redeemed', 'refused', 'outcome']);
      const [entry] = (await device(harness, customer, 'GET', '/history')).body.entries as HistoryEntry[];
      expect(entry).toMatchObject({ auth_req_id: id, state: 'redeemed', tier: c.tier, outcome: { status: 'succeeded', reference: `done_${c.type}` }, your_part: { decision: 'approved', party: 'customer' } });
      expect(entry!.actions[0]).toMatchObject(c.shown);
    });

    it('refuses a redeem with one field changed (approval_mismatch), changes nothing, and then redeems the approved action once', async () => {
      const { auth_req_id, token } = await approved(c.details);
      const refused = await redeem(token, c.changed, c.versions);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([400, 'approval_mismatch']);
      expect((await clientView(auth_req_id)).body.state).toBe('approved');
      const redeemed = await redeem(token, c.details, c.versions);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
      expect((await redeem(token, c.details, c.versions)).body.error).toBe('already_redeemed');
      const events = await trail(auth_req_id);
      expect(events.slice(events.indexOf('token_issued'))).toEqual(['token_issued', 'refused', 'redeemed', 'refused']);
    });

    it('answers the same auth_req_id for the same transaction_id and details, and 409 transaction_conflict for other details', async () => {
      const first = await ask(c.details);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const again = await ask(c.details);
      expect([again.status, again.body.auth_req_id]).toEqual([200, first.body.auth_req_id]);
      const other = await ask(c.changed);
      expect([other.status, other.body.error], JSON.stringify(other.body)).toEqual([409, 'transaction_conflict']);
      await harness.drain();
      expect(((await device(harness, customer, 'GET', '/requests')).body.requests as RequestDisplay[]).map((request) => request.auth_req_id)).toEqual([first.body.auth_req_id]);
    });
  });

  describe('message', () => {
    it('redeems a message with a long body: its approval token, which carries the action, is longer than 8 KB', async () => {
      // 12,000 characters of body, well inside the type’s 20,000: the token (RFC 9068, the action in
      // its claims) is about 17 KB, and /redeem took tokens of at most 8,192 characters.
      const body = Array.from({ length: 250 }, (_, i) => `Line ${String(i).padStart(3, '0')} of the notice, as it will be sent out.`).join('\n');
      expect(body.length).toBeGreaterThan(10_000);
      const details = message({ transaction_id: 'msg_long', body });
      const { token } = await approved(details);
      expect(token.length).toBeGreaterThan(8192);
      const redeemed = await redeem(token, details);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
    });

    it('refuses at /bc-authorize a request too large to redeem, and redeems one just inside the limit', async () => {
      // /redeem's body holds the token (the action in base64url, 4/3 of it) and the action again:
      // two messages of 15,000 characters each were accepted and approved, yet their redeem was 413.
      const lines = (count: number) => Array.from({ length: count }, (_, i) => `Line ${String(i).padStart(3, '0')} of the notice, as it will be sent out.`).join('\n');
      const large = [...message({ transaction_id: 'msg_a', body: lines(310) }), ...message({ transaction_id: 'msg_b', body: lines(310) })];
      const refused = await ask(large);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([400, 'invalid_authorization_details']);
      expect(refused.body.error_description).toMatch(/^authorization_details: must be at most 24000 bytes as JCS \(RFC 8785\), so that its approval token and the action fit \/redeem; these are \d+$/);

      const inside = [...message({ transaction_id: 'msg_c', body: lines(240) }), ...message({ transaction_id: 'msg_d', body: lines(240) })];
      // 23,931 bytes as JCS: the largest request of two such messages the limit (24,000) takes.
      const { token } = await approved(inside);
      // The most /redeem may name besides: 20 records at their longest versions.
      const versions = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`record:${String(i).padStart(121, '0')}`, 'v'.repeat(128)]));
      const redeemed = await redeem(token, inside, versions);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body).slice(0, 300)).toEqual([200, 'redeemed']);
    });
  });

  describe('record_change', () => {
    it('refuses a redeem at another current version of the record with 409 stale_record, and redeems at the approved one', async () => {
      const { auth_req_id, token } = await approved(recordChange());
      const moved = await redeem(token, recordChange(), { 'campaign:cmp_4': '18' });
      expect([moved.status, moved.body.error, moved.body.records]).toEqual([409, 'stale_record', ['campaign:cmp_4']]);
      expect((await clientView(auth_req_id)).body.state).toBe('approved');
      const current = await redeem(token, recordChange(), { 'campaign:cmp_4': '17' });
      expect([current.status, current.body.status]).toEqual([200, 'redeemed']);
    });

    it('takes a value with a fraction as RFC 8785 writes it (0.15), and refuses 1.50 at /bc-authorize', async () => {
      const rate = (from: string, to: string, id: string) => `[{"type":"record_change","transaction_id":"${id}","record":{"kind":"campaign","id":"cmp_4"},"changes":[{"field":"commission_rate","from":${from},"to":${to}}],"purpose":"Raise commission"}]`;
      const propose = (json: string) =>
        harness.call('POST', '/bc-authorize', {
          body: new URLSearchParams({ scope: 'openid', login_hint: customer.sub, authorization_details: json }).toString(),
          headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
        });
      const accepted = await propose(rate('0.1', '0.15', 'chg_rate'));
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      const view = await device(harness, customer, 'GET', `/requests/${accepted.body.auth_req_id}`);
      expect(view.body.request.actions[0].changes).toEqual([{ field: 'commission_rate', from: { kind: 'number', text: '0.1' }, to: { kind: 'number', text: '0.15' } }]);
      for (const [from, to] of [
        ['1', '1.50'],
        ['1.50', '2'],
        ['0.1', '15e-2'],
      ]) {
        const refused = await propose(rate(from!, to!, 'chg_spelled'));
        expect([refused.status, refused.body.error], `${from} → ${to}`).toEqual([400, 'invalid_authorization_details']);
        expect(refused.body.error_description).toMatch(/authorization_details\[0\]\.changes\[0\]\.(from|to): numbers in a tool call's arguments or a record change's values must be written as RFC 8785/);
      }

      // Approved with 0.15, it redeems with 0.15, not with 0.150.
      await harness.drain();
      expect((await answer(harness, customer, accepted.body.auth_req_id, { decision: 'approve' })).status).toBe(200);
      const token = (await pollToken(harness, client, accepted.body.auth_req_id)).body.access_token as string;
      const body = (spelled: string) => `{"token":${JSON.stringify(token)},"authorization_details":${rate('0.1', spelled, 'chg_rate')}}`;
      const send = (text: string) => harness.call('POST', '/redeem', { body: text, headers: { authorization: basic(client), 'content-type': 'application/json' } });
      expect((await send(body('0.150'))).body.error).toBe('approval_mismatch');
      const redeemed = await send(body('0.15'));
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
    });
  });
});
