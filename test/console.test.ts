import { AxeBuilder } from '@axe-core/playwright';
import { createAgentClient } from '@countersign/agent';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleAction, type SampleType } from '../server/src/console/index.ts';
import { testPolicy } from './guarantees/policy-support.ts';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { toolCall } from './support/tool-call.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ARTIFACTS = `${ROOT}test/artifacts`;
const STEP_MS = 10_000;

/** What axe-core (WCAG 2.x A/AA and best practices) finds on the page, one line per rule and its elements. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * The operator console (`/console`) in headless Chromium against the real server: sign in with
 * the admin token, send a test request to an enrolled user, and watch it move through its states
 * while the person (a software passkey through the device API) decides on it.
 */
describe('the operator console', () => {
  let harness: Harness;
  let origin: string;
  let alice: EnrolledUser;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: Error[] = [];
  /** Every `Authorization` header the page sent to the admin API. */
  const adminAuthorizations = new Set<string>();

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    alice = await harness.enrollUser('alice');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-quic'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', locale: 'en-GB' });
    context.setDefaultTimeout(STEP_MS);
    // Any CSP violation (an inline script or style) is recorded where the test can read it.
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error));
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/admin/')) adminAuthorizations.add(request.headers().authorization ?? '(none)');
    });
    await mkdir(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  const cspViolations = () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
  const state = () => page.getByTestId('watch-state').getAttribute('data-state');
  const timeline = () => page.locator('[data-testid="timeline"] li').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));

  it("is a static page under the server's CSP, with no inline script or style", async () => {
    const response = await page.goto(`${origin}/console`);
    expect(response?.status()).toBe(200);
    const csp = response!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    const html = await response!.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
    await page.getByTestId('sign-in').waitFor();
    expect(await cspViolations()).toEqual([]);
  });

  it('refuses a wrong token and keeps nothing', async () => {
    await page.getByTestId('token').fill('not-the-admin-token-0123456789');
    await page.getByTestId('sign-in-button').click();
    await expect.poll(() => page.getByTestId('sign-in-error').textContent()).toContain('not the admin token');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('signs in with the admin token, keeps it in this tab only, and sends it as a Bearer token', async () => {
    await page.getByTestId('token').fill(harness.adminToken);
    await page.getByTestId('token').press('Enter');
    await page.getByTestId('send').waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['countersign.console.admin-token']);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await page.reload();
    await page.getByTestId('send').waitFor();
    expect(adminAuthorizations).toContain(`Bearer ${harness.adminToken}`);
  });

  it('sends a test request and follows it from pending to approved', async () => {
    await page.getByTestId('login-hint').fill('alice');
    await page.getByTestId('binding-message').fill('Console 0001');
    await page.getByTestId('send').click();
    await expect.poll(state, { timeout: STEP_MS }).toBe('pending');
    const id = (await page.getByTestId('watch').getAttribute('data-auth-req-id'))!;
    await expect.poll(timeline).toContain('proposed');
    expect(await page.getByTestId('watch').textContent()).toContain('EUR 490.00 to ACME Ltd');
    await expect.poll(() => page.locator(`[data-testid="pending"] li[data-auth-req-id="${id}"]`).count()).toBe(1);

    // What the person sees on the phone: the console's client, named so they know it is a test.
    const view = await harness.call('GET', `/api/device/requests/${id}`, { headers: { cookie: alice.cookie } });
    expect(view.body.request).toMatchObject({ client_name: 'Countersign console (test)', binding_message: 'Console 0001' });
    await page.screenshot({ path: `${ARTIFACTS}/console-pending.png`, fullPage: true });

    expect((await harness.decide(alice, id, 'approve')).status).toBe(200);
    await expect.poll(state, { timeout: STEP_MS }).toBe('approved');
    await expect.poll(timeline).toEqual(expect.arrayContaining(['proposed', 'viewed', 'approved']));
    await page.getByTestId('refresh').click();
    await expect.poll(() => page.locator(`[data-testid="pending"] li[data-auth-req-id="${id}"]`).count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/console-approved.png`, fullPage: true });
  });

  it('sends a tool call as a test request', async () => {
    await page.getByTestId('action-type').selectOption('tool_call');
    expect(await page.getByTestId('amount').isVisible()).toBe(false);
    await page.getByTestId('tool-arguments').fill('{"entityNames": ["Alice", "Zoë"], "ratio": 1.5}');
    await page.getByTestId('send').click();
    await expect.poll(() => page.getByTestId('watch').textContent(), { timeout: STEP_MS }).toContain('memory: delete_entities');
    const id = (await page.getByTestId('watch').getAttribute('data-auth-req-id'))!;
    const stored = await harness.admin('GET', `/requests/${id}`);
    expect(stored.body.request.authorization_details[0]).toMatchObject({ type: 'tool_call', server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['Alice', 'Zoë'], ratio: 1.5 }, annotations: { destructiveHint: true } });
    await page.getByTestId('action-type').selectOption('payment');
  });

  it("sends each action type's sample, built by the server, previews what the person will see, and shows it on the phone", async () => {
    const cases: [string, string, string | null][] = [
      ['deletion', 'Delete 1,200 customer records in crm', 'Cannot be undone'],
      ['message', 'Send email to 12,000 recipients', null],
      ['access_change', 'Change Bo Li from viewer to editor on Payments prod', null],
      ['record_change', 'Change campaign Auto EU (cmp_4): 2 fields', null],
    ];
    for (const [type, title, warning] of cases) {
      const previous = await page.getByTestId('watch').getAttribute('data-auth-req-id');
      await page.getByTestId('action-type').selectOption(type);
      expect(await page.getByTestId('amount').isVisible()).toBe(false);
      await expect.poll(() => page.getByTestId('sample-title').textContent()).toBe(title);
      expect(await page.getByTestId('sample-warnings').textContent()).toBe(warning ?? '');
      if (type === 'message') {
        // The body as it will be sent, its line breaks kept on screen.
        const body = page.getByTestId('sample-fields').locator('dd').nth(4);
        expect(await body.textContent()).toBe('Hello,\n\nOur prices change on 1 January.\nThe new prices are on our website.\n\nThe ACME team');
        expect(await body.evaluate((element) => getComputedStyle(element).whiteSpace)).toBe('pre-wrap');
        // With the preview shown (its warning list empty here, a deletion's below), axe finds nothing.
        expect(await axeViolations(page), `${type} preview`).toEqual([]);
      }
      await page.getByTestId('send').click();
      await expect.poll(() => page.getByTestId('watch').getAttribute('data-auth-req-id'), { timeout: STEP_MS }).not.toBe(previous);
      await expect.poll(state, { timeout: STEP_MS }).toBe('pending');
      const id = (await page.getByTestId('watch').getAttribute('data-auth-req-id'))!;

      const view = await harness.call('GET', `/api/device/requests/${id}`, { headers: { cookie: alice.cookie } });
      expect(view.body.request.actions).toHaveLength(1);
      const [action] = view.body.request.actions;
      expect([action.type, action.title]).toEqual([type, title]);
      expect(await page.getByTestId('watch').textContent()).toContain(action.summary);
      if (warning) {
        await expect.poll(() => page.getByTestId('watch').textContent()).toContain(warning);
        expect(await axeViolations(page), `${type} preview`).toEqual([]);
      }
      await page.screenshot({ path: `${ARTIFACTS}/console-sample-${type}.png`, fullPage: true });
      // The preview was the phone's display, but for the transaction id, new for each send.
      expect(await page.getByTestId('sample-fields').locator('dd').allTextContents()).toEqual(action.fields.filter((field: { label: string }) => field.label !== 'Transaction').map((field: { value: string }) => field.value));
      const stored = (await harness.admin('GET', `/requests/${id}`)).body.request;
      expect(stored.authorization_details[0].transaction_id).toMatch(/^[a-z]{3}_console_[A-Za-z0-9_-]{16}$/);
      // Deletions and messages are irreversible and reach many: number matching, and the console shows the agent's code.
      if (type === 'deletion' || type === 'message') await expect.poll(() => page.getByTestId('watch').textContent()).toMatch(/Code to show the person\d{2}/);
      // Denied, so the console client's pending places stay free for the tests after this one.
      expect((await harness.decide(alice, id, 'deny')).status).toBe(200);
      await expect.poll(state, { timeout: STEP_MS }).toBe('denied');
    }
    await page.getByTestId('action-type').selectOption('payment');
    expect(await page.getByTestId('sample-preview').isVisible()).toBe(false);
  });

  it('follows a denied request, and one that expires', async () => {
    // The watch still shows the previous test's request, pending too: wait for the new one.
    const previous = await page.getByTestId('watch').getAttribute('data-auth-req-id');
    await page.getByTestId('send').click();
    await expect.poll(() => page.getByTestId('watch').getAttribute('data-auth-req-id'), { timeout: STEP_MS }).not.toBe(previous);
    await expect.poll(state, { timeout: STEP_MS }).toBe('pending');
    const denied = (await page.getByTestId('watch').getAttribute('data-auth-req-id'))!;
    expect((await harness.decide(alice, denied, 'deny')).status).toBe(200);
    await expect.poll(state, { timeout: STEP_MS }).toBe('denied');

    await page.getByTestId('expiry').fill('30');
    await page.getByTestId('send').click();
    await expect.poll(() => page.getByTestId('watch').getAttribute('data-auth-req-id')).not.toBe(denied);
    await expect.poll(state, { timeout: STEP_MS }).toBe('pending');
    harness.clock.advance(31);
    await expect.poll(state, { timeout: STEP_MS }).toBe('expired');
    await expect.poll(timeline).toContain('expired');
  });

  it("shows the server's refusal of a request it cannot send", async () => {
    await page.getByTestId('login-hint').fill('nobody');
    await page.getByTestId('send').click();
    await expect.poll(() => page.getByTestId('send-error').textContent()).toContain('unknown_user_id');
  });

  it('passes axe-core at a desktop and a phone viewport, signed out and signed in, in both colour schemes', async () => {
    // Signed in, watching a request, with a refusal shown: the console at its fullest.
    expect(await axeViolations(page)).toEqual([]);
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, colorScheme, locale: 'en-GB' });
      try {
        const small = await phone.newPage();
        await small.goto(`${origin}/console`);
        await small.getByTestId('sign-in').waitFor();
        expect(await axeViolations(small), `sign-in (${colorScheme})`).toEqual([]);
        await small.getByTestId('token').fill(harness.adminToken);
        await small.getByTestId('sign-in-button').click();
        await small.getByTestId('send').waitFor();
        await small.getByTestId('login-hint').fill('alice');
        await small.getByTestId('send').click();
        await small.getByTestId('watch-state').waitFor();
        await expect.poll(() => small.getByTestId('watch-state').getAttribute('data-state'), { timeout: STEP_MS }).toBe('pending');
        expect(await axeViolations(small), `signed in (${colorScheme})`).toEqual([]);
        // A sample's preview, with its warning: what the operator checks before sending.
        await small.getByTestId('action-type').selectOption('deletion');
        await expect.poll(() => small.getByTestId('sample-warnings').textContent()).toBe('Cannot be undone');
        expect(await axeViolations(small), `deletion sample (${colorScheme})`).toEqual([]);
        await small.screenshot({ path: `${ARTIFACTS}/console-phone-sample-${colorScheme}.png`, fullPage: true });
        await small.getByTestId('action-type').selectOption('payment');
        await small.screenshot({ path: `${ARTIFACTS}/console-phone-${colorScheme}.png` });
      } finally {
        await phone.close();
      }
    }
  });

  it('signs out and forgets the token', async () => {
    await page.getByTestId('sign-out').click();
    await page.getByTestId('sign-in').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await cspViolations()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('works at 360 px without horizontal scrolling', async () => {
    const small = await context.newPage();
    await small.setViewportSize({ width: 360, height: 740 });
    await small.goto(`${origin}/console`);
    await small.getByTestId('token').fill(harness.adminToken);
    await small.getByTestId('sign-in-button').click();
    await small.getByTestId('send').waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await small.close();
  });
});

describe('POST /api/admin/test-requests with a sample of each action type', () => {
  let harness: Harness;
  let alice: EnrolledUser;

  beforeAll(async () => {
    harness = await createHarness({ env: { POLICY_FILE: testPolicy() } });
    alice = await harness.enrollUser('alice');
  });
  afterAll(() => harness?.close());

  const cases: [string, string, 'standard' | 'elevated'][] = [
    ['payment', 'Pay EUR 490.00 to ACME Ltd', 'standard'],
    ['deletion', 'Delete 1,200 customer records in crm', 'elevated'],
    ['message', 'Send email to 12,000 recipients', 'elevated'],
    ['access_change', 'Change Bo Li from viewer to editor on Payments prod', 'standard'],
    ['record_change', 'Change campaign Auto EU (cmp_4): 2 fields', 'standard'],
  ];

  it.each(cases)("creates a %s request from the server's sample, shown on the phone as the server computes it", async (type, title, tier) => {
    const created = await harness.admin('POST', '/test-requests', { login_hint: 'alice', sample: type });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    if (tier === 'elevated') expect(created.body.binding_code).toMatch(/^[1-9][0-9]$/);
    else expect(created.body).not.toHaveProperty('binding_code');
    const stored = (await harness.admin('GET', `/requests/${created.body.auth_req_id}`)).body.request;
    expect(stored).toMatchObject({ state: 'pending', client_name: 'Countersign console (test)', tier });
    expect(stored.authorization_details).toEqual([sampleAction(type as SampleType, stored.authorization_details[0].transaction_id)]);
    const inbox = (await harness.call('GET', '/api/device/requests', { headers: { cookie: alice.cookie } })).body.requests as { auth_req_id: string; actions: { type: string; title: string }[] }[];
    const listed = inbox.find((request) => request.auth_req_id === created.body.auth_req_id) as { actions: unknown; test?: boolean } | undefined;
    expect(listed?.actions).toMatchObject([{ type, title }]);
    // The device views mark it as the console's test, from its client.
    expect(listed?.test).toBe(true);
    const view = await harness.call('GET', `/api/device/requests/${created.body.auth_req_id}`, { headers: { cookie: alice.cookie } });
    expect(view.body.request.test).toBe(true);
    // A second send is a second request: a fresh transaction_id each time.
    const again = await harness.admin('POST', '/test-requests', { login_hint: 'alice', sample: type });
    expect(again.status).toBe(201);
    expect(again.body.auth_req_id).not.toBe(created.body.auth_req_id);
  });

  it('does not mark an agent’s request as a test, though its client has the console’s name', async () => {
    const namesake = await harness.createClient('Countersign console (test)');
    const agent = createAgentClient({ issuer: harness.issuer, clientId: namesake.client_id, clientSecret: namesake.client_secret, fetch: harness.fetch });
    const asked = await agent.requestApproval({ login_hint: 'alice', authorization_details: [{ type: 'payment', transaction_id: 'txn_namesake', amount_minor: 100, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Real' }] });
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: alice.cookie } });
    expect(view.body.request.client_name).toBe('Countersign console (test)');
    expect(view.body.request.test).toBe(false);
  });

  it('previews every sample as the phone would show it, less its transaction id', async () => {
    const answer = await harness.admin('GET', '/test-requests/samples');
    expect(answer.status).toBe(200);
    expect(answer.body.samples.map((sample: { type: string; display: { title: string } }) => [sample.type, sample.display.title])).toEqual(cases.map(([type, title]) => [type, title]));
    const deletion = answer.body.samples.find((sample: { type: string }) => sample.type === 'deletion');
    expect(deletion.display.warnings).toEqual(['Cannot be undone']);
    expect(deletion.display.fields).toContainEqual({ label: 'Ids', value: 'cus_1, cus_2, cus_3, cus_4, cus_5 and 1,195 more' });
    expect(JSON.stringify(answer.body)).not.toContain('Transaction');
    expect((await harness.call('GET', '/api/admin/test-requests/samples')).status).toBe(401);
  });

  it('takes either authorization_details or a sample, not both or neither, and no type it has no sample of', async () => {
    for (const body of [{ login_hint: 'alice' }, { login_hint: 'alice', sample: 'deletion', authorization_details: payment({ transaction_id: 'txn_both' }) }, { login_hint: 'alice', sample: 'tool_call' }, { login_hint: 'alice', sample: 'refund' }]) {
      const refused = await harness.admin('POST', '/test-requests', body);
      expect([refused.status, refused.body.error], JSON.stringify(body)).toEqual([400, 'invalid_request']);
    }
  });
});

describe('POST /api/admin/test-requests', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await createHarness();
    await harness.enrollUser('alice');
  });
  afterAll(() => harness?.close());

  it('needs the admin token', async () => {
    const answer = await harness.call('POST', '/api/admin/test-requests', { body: { login_hint: 'alice', authorization_details: payment() } });
    expect(answer.status).toBe(401);
  });

  it("creates a request from the tenant's console client, the same one every time", async () => {
    const first = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment({ transaction_id: 'txn_t1' }), requested_expiry: 60 });
    const second = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment({ transaction_id: 'txn_t2' }) });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ auth_req_id: expect.any(String), client_id: expect.stringMatching(/^cli_/), expires_in: 60 });
    expect(second.body.client_id).toBe(first.body.client_id);
    const stored = await harness.admin('GET', `/requests/${first.body.auth_req_id}`);
    expect(stored.body.request).toMatchObject({ state: 'pending', sub: 'alice', client_name: 'Countersign console (test)' });
  });

  it("sends a tool call as a test request, its float argument kept, shown as the agent's would be", async () => {
    const call = toolCall({ transaction_id: 'mcp_t1', arguments: { entityNames: ['Alice'], ratio: 1.5 } });
    const created = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: call });
    expect(created.status).toBe(201);
    const stored = await harness.admin('GET', `/requests/${created.body.auth_req_id}`);
    expect(stored.body.request.authorization_details).toEqual(call);
    const oversize = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: toolCall({ transaction_id: 'mcp_t2', arguments: { text: 'x'.repeat(9000) } }) });
    expect([oversize.status, oversize.body.error]).toEqual([400, 'invalid_authorization_details']);
  });

  it("holds test requests to the agents' rules", async () => {
    const badDetails = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: [{ type: 'payment', amount_minor: -1 }] });
    expect(badDetails.body.error).toBe('invalid_authorization_details');
    const badBinding = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment({ transaction_id: 'txn_t3' }), binding_message: 'emoji 🙂' });
    expect(badBinding.body.error).toBe('invalid_binding_message');
    const unknown = await harness.admin('POST', '/test-requests', { login_hint: 'nobody', authorization_details: payment({ transaction_id: 'txn_t4' }) });
    expect(unknown.body.error).toBe('unknown_user_id');
    const extra = await harness.admin('POST', '/test-requests', { login_hint: 'alice', authorization_details: payment(), client_id: 'cli_x' });
    expect(extra.status).toBe(400);
  });

  it('refuses an action member named __proto__, as /bc-authorize does, instead of dropping it', async () => {
    // Raw JSON: JSON.parse makes it an own member, which a zod record skips without a word.
    const action = JSON.stringify(payment({ transaction_id: 'txn_t5' })[0]).replace('{', '{"__proto__":{"amount_minor":1},');
    const sent = await harness.call('POST', '/api/admin/test-requests', { body: `{"login_hint":"alice","authorization_details":[${action}]}`, headers: { authorization: `Bearer ${harness.adminToken}` } });
    expect([sent.status, sent.body.error, sent.body.error_description]).toEqual([400, 'invalid_authorization_details', 'authorization_details[0]: `__proto__` is not a member of payment']);
  });
});
