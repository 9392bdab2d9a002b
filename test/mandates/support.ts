/**
 * Set-up shared by the standing mandates tests (docs/mandates.md), on Redis with the injected clock: the dates
 * checked at /bc-authorize, a mandate token that lasts until the mandate's end, each spend checked
 * against the bounds at their edges and recorded once, outcomes per spend, revocation by an
 * operator and by the person's passkey, receipts, and the audit of it all in order.
 */
import type { PushSender } from '@countersign/server';
import type { MandateView } from '@countersign/shared';
import { afterEach, beforeEach, expect } from 'vitest';
import { device } from '../guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { approvedMandate, mandate, spend } from '../support/mandate.ts';

/** Registers, in the calling `describe`, a fresh Redis-backed server per test with customer_1's phone subscribed to push (each push lands in `pushed`) and a bill-paying client; read them through the returned object. */
export function useMandates() {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    client: { client_id: string; client_secret: string };
  };
  const pushed: { summary: string; kind: string }[] = [];
  const pushSender: PushSender = {
    async send(_subscription, payload) {
      pushed.push(JSON.parse(payload));
      return { status: 'sent', statusCode: 201 };
    },
  };

  beforeEach(async () => {
    pushed.length = 0;
    state.harness = await createHarness({ store: 'redis', pushSender });
    state.customer = await state.harness.enrollUser('customer_1');
    state.client = await state.harness.createClient('Bill payer');
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(state.harness, state.customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
  });
  afterEach(() => state.harness.close());

  const now = () => state.harness.clock.now();
  /** Moves the injected clock to `targetMs`. */
  const travel = (targetMs: number) => state.harness.clock.advance((targetMs - now()) / 1000);
  const approve = (details = mandate(now())) => approvedMandate(state.harness, state.client, state.customer, details);
  const pay = (token: string, payment: unknown) => spend(state.harness, state.client, token, payment);
  const refusal = (answer: { status: number; body: any }) => [answer.status, answer.body.error];
  const audit = async (id: string) => (await state.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; reason?: string; detail?: Record<string, unknown> }[];
  const view = async (id: string) => (await device(state.harness, state.customer, 'GET', `/mandates/${id}`)).body as { mandate: MandateView; options: { revoke?: Record<string, unknown> } };

  return Object.assign(state, { now, travel, approve, pay, refusal, audit, view, pushed });
}
