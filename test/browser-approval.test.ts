import { CountersignError, type PushSubscriptionJSON } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { payment } from './support/payment.ts';
import { deliverPushUntilShown } from './support/pwa-browser.ts';
import { notifications, putFromPage, STEP_MS, usePhone } from './support/browser-approval.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCREENSHOT = `${ROOT}test/artifacts/approval.png`;
/** The README shows this one: the whole approval screen at a phone's width (~140 KB), Approve included. */
const README_SCREENSHOT = `${ROOT}docs/screenshots/approval.png`;
const poll = { timeout: STEP_MS, interval: 50 };

/**
 * The whole approval story in headless Chromium at a phone viewport, against the real server on a
 * socket: enrollment with a passkey (CDP virtual authenticator), an agent's payment request, the
 * service worker's notification for the server's push message (delivered over CDP), the request
 * on the phone, Approve, and the agent's token, redemption and outcome coming back to the phone.
 */
describe('the approver PWA in a phone browser', () => {
  const phone = usePhone();

  it('enrolls a passkey, shows the pushed payment, approves it and shows it executed', async () => {
    if (!phone.harness) throw new Error('no harness');

    // 1. The operator enrolls Alice; her phone opens the link and creates the passkey.
    expect((await phone.harness.admin('POST', '/users', { sub: 'alice', display_name: 'Alice Martin' })).status).toBe(201);
    const enrollment = await phone.harness.admin('POST', '/users/alice/enrollments');
    expect(enrollment.body.enrollment_url).toBe(`${phone.origin}/#/enroll/${enrollment.body.enrollment_code}`);
    const opened = await phone.page.goto(enrollment.body.enrollment_url);
    expect(opened?.ok()).toBe(true);
    await phone.page.getByTestId('enroll-button').tap();
    await phone.page.getByTestId('inbox').waitFor();
    expect(await phone.page.getByTestId('flash').textContent()).toContain('Alice Martin');
    await phone.page.getByTestId('inbox-empty').waitFor();
    const { credentials } = await phone.cdp.send('WebAuthn.getCredentials', { authenticatorId: phone.authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

    // The subscription the PWA would have sent had Chromium given it one, aimed at the capturing sender.
    const subscription: PushSubscriptionJSON = {
      endpoint: 'https://push.example.test/send/browser-approval',
      expirationTime: null,
      keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
    };
    expect(await putFromPage(phone.page, '/api/device/push-subscription', subscription)).toBe(204);

    // 2. The agent asks, over real HTTP, for EUR 490.00 to ACME Ltd.
    const { client_id, client_secret } = await phone.harness.createClient('Support agent');
    const clock = phone.harness.clock;
    const agent: AgentClient = createAgentClient({
      issuer: phone.origin,
      clientId: client_id,
      clientSecret: client_secret,
      // The agent waits its `interval` by moving the server's clock, not by sleeping.
      now: () => clock.now(),
      sleep: async (ms) => clock.advance(ms / 1000),
    });
    const asked = await agent.requestApproval({ login_hint: 'alice', authorization_details: payment(), binding_message: 'Order 1042' });
    const id = asked.auth_req_id;
    const requestPath = `/#/requests/${id}`;

    // 3. The server pushes; the service worker shows that very message as a notification.
    await expect.poll(() => phone.sent.filter((push) => push.endpoint === subscription.endpoint).length, poll).toBe(1);
    const push = phone.sent.find((message) => message.endpoint === subscription.endpoint)!;
    const payload = JSON.parse(push.payload) as { kind: string; auth_req_id: string; summary: string };
    expect(payload).toEqual({ kind: 'approval_request', auth_req_id: id, summary: expect.stringContaining('EUR 490.00') });
    expect(payload.summary).toContain('ACME Ltd');
    expect(push.urgency).toBe('high');
    expect(push.ttlSeconds).toBeGreaterThan(0);
    expect(push.ttlSeconds).toBeLessThanOrEqual(asked.expires_in);

    await phone.page.evaluate(async () => void (await navigator.serviceWorker.ready));
    await expect.poll(() => phone.registrations.get(`${phone.origin}/`), poll).toBeTypeOf('string');
    await deliverPushUntilShown(phone.cdp, { origin: phone.origin, registrationId: phone.registrations.get(`${phone.origin}/`)!, data: push.payload }, async () => (await notifications(phone.page, id)).length > 0);
    await expect.poll(() => notifications(phone.page, id), poll).toEqual([{ title: 'Approval requested', body: payload.summary, tag: id, url: requestPath }]);

    // 4. The open inbox shows the request live; it opens the page the notification points at.
    const item = phone.page.locator(`[data-testid="inbox-item"][data-auth-req-id="${id}"]`);
    expect(await item.getAttribute('href')).toBe(requestPath.slice(1));
    await item.tap();
    await phone.page.waitForURL(`${phone.origin}${requestPath}`);
    const screen = phone.page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    expect(await screen.getByTestId('amount').textContent()).toBe('EUR 490.00');
    expect(await screen.getByTestId('payee').textContent()).toBe('ACME Ltd (acct_77)');
    expect(await screen.getByTestId('purpose').textContent()).toBe('Refund for order 1042');
    expect(await screen.getByTestId('client-name').textContent()).toBe('Support agent');
    expect(await screen.getByTestId('binding-message').textContent()).toBe('Order 1042');
    expect(await screen.getByTestId('time-left').textContent()).toMatch(/\d/);
    expect(await screen.getByTestId('approve').isEnabled()).toBe(true);
    expect(await agent.pollToken(id)).toEqual({ status: 'pending' });

    await mkdir(`${ROOT}test/artifacts`, { recursive: true });
    await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
    // What the person sees on the phone's screen: the decision bar is sticky, so a full-page capture would paint it mid-page.
    await phone.page.screenshot({ path: SCREENSHOT, animations: 'disabled' });
    // The README's picture is refreshed on request only, so a test run leaves the committed files alone.
    if (process.env.UPDATE_SCREENSHOTS === '1') await copyFile(SCREENSHOT, README_SCREENSHOT);

    // 5. Approve: the virtual authenticator signs this request's challenge.
    const signCount = async () => (await phone.cdp.send('WebAuthn.getCredentials', { authenticatorId: phone.authenticatorId })).credentials[0]?.signCount;
    const signedBefore = await signCount();
    await screen.getByTestId('approve').tap();
    await phone.page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    expect(await signCount()).toBe(signedBefore! + 1);

    // 6. The agent's poll gets the token; the redemption happens once; the outcome reaches the phone.
    const decision = await agent.waitForDecision(id, { interval: asked.interval, timeoutSeconds: 60 });
    if (decision.status !== 'approved') throw new Error(`expected approved, got ${decision.status}`);
    const redemption = await agent.redeem(decision.token.access_token, payment());
    expect(redemption).toMatchObject({ status: 'redeemed', idempotency_key: 'txn_1042' });
    const again = await agent.redeem(decision.token.access_token, payment()).then(
      () => null,
      (error: unknown) => error,
    );
    expect(again).toBeInstanceOf(CountersignError);
    expect(again).toMatchObject({ code: 'already_redeemed', status: 409, body: { redemption: { redemption_id: redemption.redemption_id } } });
    await phone.page.locator('[data-testid="result"][data-result="awaiting_outcome"]').waitFor();

    await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });
    expect(await agent.getRequest(id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1042' } });
    await phone.page.locator('[data-testid="result"][data-result="executed"]').waitFor();
    expect(await phone.page.getByTestId('outcome-reference').textContent()).toBe('re_1042');
    expect(phone.pageErrors).toEqual([]);
  });
});
