/**
 * Helpers shared by the audit trail tests (docs/design.md guarantee 9, docs/audit.md): every tenant's events form one hash
 * chain in a Redis Stream; the chain of a whole flow verifies, exports as JSON lines in order,
 * carries no secret or token, and shows an edited and a deleted event at the right link — and two
 * instances appending at once never fork it.
 */
import { createAgentClient } from '@countersign/agent';
import { expect } from 'vitest';
import type { Harness } from '../../support/harness.ts';
import type { NotificationReceiver } from '../../support/notification-receiver.ts';
import { payment } from '../../support/payment.ts';
import { createSoftAuthenticator } from '../../support/soft-authenticator.ts';

const NOTIFICATION_TOKEN = 'cnt_audit_chain_fedcba9876543210';

/** Every secret and token one whole flow handles, by name. */
type Secrets = Record<string, string>;

/** A whole flow: two enrollments, a ping client, an approval, a denial, a refused redeem, a redemption and its outcome. */
export async function wholeFlow(harness: Harness, receiver: NotificationReceiver): Promise<{ authReqId: string; secrets: Secrets }> {
  const customer = await harness.enrollUser('customer_1');
  // A second device, enrolled by hand to hold on to its enrollment code.
  const enrollment = await harness.admin('POST', '/users/customer_1/enrollments');
  const code = enrollment.body.enrollment_code as string;
  const phone = createSoftAuthenticator({ origin: harness.issuer, rpId: new URL(harness.issuer).hostname });
  const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
  const registered = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await phone.register(options.body), device_name: 'Second phone' }, headers: { origin: harness.issuer } });
  expect(registered.status).toBe(200);

  const client = await harness.admin('POST', '/clients', { name: 'Refund agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
  const agent = createAgentClient({ issuer: harness.issuer, clientId: client.body.client_id, clientSecret: client.body.client_secret, fetch: harness.fetch });

  const denied = await agent.requestApproval({ login_hint: 'customer_1', authorization_details: payment({ transaction_id: 'txn_denied' }), client_notification_token: NOTIFICATION_TOKEN });
  expect((await harness.decide(customer, denied.auth_req_id, 'deny')).status).toBe(200);

  const asked = await agent.requestApproval({ login_hint: 'customer_1', authorization_details: payment(), binding_message: 'Order 1042', client_notification_token: NOTIFICATION_TOKEN });
  // The person opens the request once its push has reached them: the push (background work) goes first.
  await harness.drain();
  const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
  expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
  await harness.deps.background.drain();
  const polled = await agent.pollToken(asked.auth_req_id);
  if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.body.client_id)}:${encodeURIComponent(client.body.client_secret)}`).toString('base64')}`;
  const wrong = await harness.call('POST', '/redeem', { body: { token: polled.token.access_token, authorization_details: payment({ amount_minor: 49001 }) }, headers: { authorization: basic } });
  expect(wrong.body.error).toBe('approval_mismatch');
  const redemption = await agent.redeem(polled.token.access_token, payment());
  await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });
  await harness.deps.background.drain();

  return {
    authReqId: asked.auth_req_id,
    secrets: {
      client_secret: client.body.client_secret,
      access_token: polled.token.access_token,
      id_token: polled.token.id_token,
      client_notification_token: NOTIFICATION_TOKEN,
      enrollment_code: code,
      admin_token: harness.adminToken,
      device_session: customer.cookie.split('=')[1]!,
      webauthn_challenge: view.body.options.approve.challenge,
    },
  };
}

export async function exported(harness: Harness): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of harness.deps.audit.export('default')) lines.push(line);
  return lines;
}
