/** The audit trail (docs/design.md guarantee 9, docs/audit.md): the chain of a whole flow verifies, exports as JSON lines in order, and carries no secret or token. */
import { canonicalize } from '@countersign/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredAuditEvent } from '../../../server/src/audit/index.ts';
import { createHarness, type Harness } from '../../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../../support/notification-receiver.ts';
import { wholeFlow, exported } from './support.ts';

describe.each(['memory', 'redis'] as const)('the audit chain of a whole flow (%s store)', (storeKind) => {
  let harness: Harness;
  let receiver: NotificationReceiver;
  let flow: Awaited<ReturnType<typeof wholeFlow>>;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    receiver = await startNotificationReceiver();
    flow = await wholeFlow(harness, receiver);
  });
  afterEach(async () => {
    await harness.close();
    await receiver.close();
  });

  it('verifies, and exports as JSON lines in chain order, each linked to the one before', async () => {
    const lines = await exported(harness);
    const events = lines.map((line) => JSON.parse(line) as StoredAuditEvent);
    expect(events.length).toBeGreaterThan(15);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
    for (const line of lines) expect(line).toBe(canonicalize(JSON.parse(line)));
    expect(events.every((event) => event.tenant === 'default' && /^\d+-\d+$/.test(event.id))).toBe(true);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['device_enrolled', 'proposed', 'pushed', 'viewed', 'denied', 'approved', 'notified', 'token_issued', 'refused', 'redeemed', 'outcome']));

    const report = await harness.deps.audit.verify('default');
    expect(report).toEqual({ ok: true, tenant: 'default', events: events.length, head: { seq: events.length - 1, id: events.at(-1)!.id, hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });

    // The per-request view (GET /api/admin/audit) is the request's events, in chain order.
    const view = (await harness.admin('GET', `/audit?auth_req_id=${flow.authReqId}`)).body.events as StoredAuditEvent[];
    // The flow opens the request twice on one phone: one `viewed` (a view is audited once per device).
    expect(view.map((event) => event.type)).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'notified', 'token_issued', 'refused', 'redeemed', 'outcome']);
    expect(view).toEqual(events.filter((event) => event.auth_req_id === flow.authReqId));
    expect(view.find((event) => event.type === 'approved')).toMatchObject({ client_id: expect.stringMatching(/^cli_/), sub: 'customer_1', credential_id: expect.any(String), channel: 'device', at: expect.any(String) });
    expect(view.find((event) => event.type === 'refused')).toMatchObject({ reason: 'approval_mismatch', channel: 'agent' });
  });

  it('holds no secret, token, client_notification_token or enrollment code in any event', async () => {
    const everything = [...(await exported(harness)), JSON.stringify((await harness.admin('GET', `/audit?auth_req_id=${flow.authReqId}`)).body)].join('\n');
    for (const [name, secret] of Object.entries(flow.secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(everything.includes(secret), `${name} appears in the audit trail`).toBe(false);
    }
    // Nothing JWT-shaped at all: not an approval token, an id_token or a client assertion.
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);
  });
});
