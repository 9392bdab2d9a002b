import { createAgentClient, type AgentClient } from '@countersign/agent';
import { CountersignError, type AuthorizationDetails, type RequestDisplay } from '@countersign/shared';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { expectAccessibleInBothSchemes } from './support/pwa-axe.ts';
import { ARTIFACTS, enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, widthAt360, type AppBrowser } from './support/pwa-browser.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The screenshots the README shows, one per action type (the payment's is browser-approval.test.ts's). */
const README_SCREENSHOTS = new Set(['deletion', 'message', 'access_change', 'record_change', 'batch']);
const poll = { timeout: STEP_MS, interval: 50 };

/** 1,200 customers in the CRM, 8 of them named; they cannot be brought back. */
const DELETION = {
  type: 'deletion',
  transaction_id: 'del_88',
  resource: { kind: 'customer', system: 'crm' },
  ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5', 'cus_6', 'cus_7', 'cus_8'],
  count: 1200,
  reversible: false,
  purpose: 'Erasure request 88',
} as const;

/**
 * A body of several lines, an empty one and indented ones among them: what is sent is what is
 * shown. Written as the server stores it (`displayLines` turns a run of spaces into one).
 */
const BODY = 'Dear customer,\n\nFrom 1 January our prices change:\n - Basic: EUR 9.00 a month\n - Pro: EUR 19.00 a month\n\nThank you,\nACME';
const MESSAGE = {
  type: 'message',
  transaction_id: 'msg_5',
  channel: 'email',
  recipients: { count: 12000, list: 'newsletter-eu', sample: ['ana@example.com', 'bo@example.com'] },
  subject: 'Price change',
  body: BODY,
  purpose: 'Quarterly notice',
} as const;

const ACCESS_CHANGE = {
  type: 'access_change',
  transaction_id: 'acc_3',
  principal: { id: 'u_9', name: 'Bo Li' },
  resource: { id: 'proj_1', name: 'Payments prod' },
  from_role: 'viewer',
  to_role: 'admin',
  purpose: 'On-call cover',
} as const;

/** A number, a text, and a text that becomes a number: `"2"` and `2` must read apart. */
const RECORD_CHANGE = {
  type: 'record_change',
  transaction_id: 'chg_12',
  record: { kind: 'campaign', id: 'cmp_4', name: 'Auto EU' },
  changes: [
    { field: 'payout_eur_minor', from: 4000, to: 4250 },
    { field: 'status', from: 'active', to: 'paused' },
    { field: 'priority', from: '2', to: 2 },
  ],
  purpose: 'Raise payout',
  precondition: { record: 'campaign:cmp_4', version: '17' },
} as const;

/** Three payments in two currencies: EUR 120.00 + EUR 80.50 = EUR 200.50, and JPY 5,000 (standard tier). */
const BATCH = [
  { type: 'payment', transaction_id: 'txn_b1', amount_minor: 12000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' },
  { type: 'payment', transaction_id: 'txn_b2', amount_minor: 8050, currency: 'EUR', payee: { id: 'acct_78', name: 'Globex GmbH' }, purpose: 'Refund for order 1043' },
  { type: 'payment', transaction_id: 'txn_b3', amount_minor: 5000, currency: 'JPY', payee: { id: 'acct_79', name: 'Tanaka KK' }, purpose: 'Refund for order 1044' },
] as const;

/** The computed font size of an element, in CSS px. */
const fontSize = (locator: Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));

/**
 * What the person sees on the phone for each kind of action (docs/design.md "Display"), in headless
 * Chromium at a phone's viewport against the real server under the shipped policy: a deletion, a
 * message, an access change and a record change, each with the server's display on screen, axe-core
 * finding nothing, nothing wider than 360 px, a screenshot kept, and an approval with the passkey;
 * then a batch of three payments in two currencies, its totals, one approval, and redemption of
 * exactly that set, once. Screenshots are kept in test/artifacts/ as `types-<name>-phone.png`; with
 * `UPDATE_SCREENSHOTS=1` the README's are also copied to docs/screenshots/<name>.png (a plain run
 * leaves the committed pictures alone, as the other browser tests do).
 */
describe('what the person sees, per action type (phone)', () => {
  const sub = 'tess';
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;
  /** A finance reviewer on a phone of their own, for the actions the policy rates `high` (an admin grant, a payout change). */
  let reviewer: AppBrowser;
  let page: Page;
  let agent: AgentClient;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    const credentials = await harness.createClient('Operations agent');
    agent = createAgentClient({ issuer: origin, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, 'phone');
    page = app.page;
    await page.goto(await enrollmentLink(harness, sub, 'Tess Operator'));
    await page.getByTestId('enroll-button').click();
    await page.getByTestId('inbox-empty').waitFor();
    reviewer = await openAppBrowser(browser, origin, 'phone');
    await reviewer.page.goto(await enrollmentLink(harness, 'rita', 'Rita Reviewer'));
    expect((await harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance'] })).status).toBe(200);
    await reviewer.page.getByTestId('enroll-button').click();
    await reviewer.page.getByTestId('inbox-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /**
   * Fits 360 px, passes axe-core, and is kept as a screenshot (and, on request, as the README's).
   * `scrolled`: the screenshot starts at the action's card (a message's body is below the fold).
   * `whole`: the phone is as tall as the screen, so all of it is in one picture with the decision
   * bar at its foot (a full-page capture would paint the sticky bar half-way down).
   */
  async function check(name: string, { scrolled = false, whole = false } = {}): Promise<void> {
    const width = await widthAt360(page);
    expect(width.overflowing, `${name}: nothing sticks out at 360 px`).toEqual([]);
    expect(width.scrollWidth).toBeLessThanOrEqual(360);
    // The dark scheme has colours of its own (the warning, the roles, the table): axe measures them too.
    await expectAccessibleInBothSchemes(page, name);
    // No button left hovered by the last tap.
    await page.mouse.move(1, 1);
    if (scrolled) await page.getByTestId('action').evaluate((card) => window.scrollTo(0, card.getBoundingClientRect().top + window.scrollY - 12));
    const phone = page.viewportSize()!;
    if (whole) await page.setViewportSize({ width: phone.width, height: await page.evaluate(() => document.documentElement.scrollHeight) });
    await screenshot(page, `types-${name}`, 'phone');
    await page.setViewportSize(phone);
    if (process.env.UPDATE_SCREENSHOTS === '1' && README_SCREENSHOTS.has(name)) {
      await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
      await copyFile(`${ARTIFACTS}types-${name}-phone.png`, `${ROOT}docs/screenshots/${name}.png`);
    }
  }

  /** Asks for `details`, opens the request on the phone, and answers the request and what the server says the person sees. */
  async function open(details: readonly object[], binding_message?: string) {
    const asked = await agent.requestApproval({ login_hint: sub, authorization_details: details as AuthorizationDetails, ...(binding_message ? { binding_message } : {}) });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-auth-req-id'), poll).toBe(asked.auth_req_id);
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    const served = await page.evaluate(async (id) => (await (await fetch(`/api/device/requests/${id}`)).json()).request as RequestDisplay, asked.auth_req_id);
    return { asked, screen, served };
  }

  /** How many times a phone's passkey has signed. */
  const signCount = async (on: AppBrowser) => (await on.cdp.send('WebAuthn.getCredentials', { authenticatorId: on.authenticatorId })).credentials[0]?.signCount ?? 0;

  /**
   * Approves with the passkey (picking the agent's code when the tier asks for it); when the tier
   * also needs a finance reviewer, the reviewer approves next on their phone. Answers the agent's token.
   */
  async function approve(asked: { auth_req_id: string; binding_code?: string }, details: readonly object[]) {
    const before = await signCount(app);
    await page.getByTestId(asked.binding_code ? `code-${asked.binding_code}` : 'approve').click();
    await page.locator('[data-testid="result"]:is([data-result="approved"], [data-result="waiting"])').waitFor();
    expect(await signCount(app)).toBe(before + 1);
    if ((await page.getByTestId('result').getAttribute('data-result')) === 'waiting') {
      const reviewed = await signCount(reviewer);
      await reviewer.page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
      await reviewer.page.getByTestId('reviewer-note').waitFor();
      await reviewer.page.getByTestId('approve').click();
      await reviewer.page.locator('[data-testid="result"][data-result="approved"]').waitFor();
      expect(await signCount(reviewer)).toBe(reviewed + 1);
      // The customer's open screen follows.
      await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    }
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`expected approved, got ${polled.status}`);
    expect(polled.token.authorization_details).toEqual(details);
    return polled.token;
  }

  /** Denies with the passkey; the agent hears `denied`. */
  async function deny(authReqId: string): Promise<void> {
    await page.getByTestId('deny').click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    expect(await agent.pollToken(authReqId)).toEqual({ status: 'denied' });
  }

  it('shows a deletion: how many records in all, large; of what kind, where; the first ids and how many more; "Cannot be undone"', async () => {
    const { asked, screen, served } = await open([DELETION], 'Erasure 88');
    const card = screen.locator('[data-testid="action"][data-type="deletion"]');
    const display = served.actions[0]!;
    expect(display.records).toEqual({ kind: 'customer', system: 'crm', count: 1200, ids: ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5'], more: 1195, reversible: false });

    expect(await screen.getByTestId('request-title').textContent()).toBe('Delete 1,200 customer records in crm');
    // The warning comes first, in words with a mark, as a note: not colour alone.
    const warning = card.getByTestId('warning');
    expect(await warning.textContent()).toBe('!Warning: Cannot be undone');
    expect(await warning.getAttribute('role')).toBe('note');
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.evaluate((element) => Boolean(element.compareDocumentPosition(document.querySelector('[data-testid="record-count"]')!) & Node.DOCUMENT_POSITION_FOLLOWING))).toBe(true);
    expect(await warning.evaluate((element) => parseFloat(getComputedStyle(element).borderLeftWidth))).toBeGreaterThanOrEqual(4);

    const count = card.getByTestId('record-count');
    expect(await count.textContent()).toBe('1,200');
    expect(await count.getAttribute('data-count')).toBe('1200');
    expect(await fontSize(count)).toBeGreaterThanOrEqual(32);
    expect(await card.getByTestId('record-kind').textContent()).toBe('customer');
    expect(await card.getByTestId('record-system').textContent()).toBe('crm');
    expect(await card.locator('[data-testid="record-ids"] li').allTextContents()).toEqual(display.records!.ids);
    expect(await card.getByTestId('record-more').textContent()).toBe('and 1,195 more');
    expect(await card.getByTestId('purpose').textContent()).toBe('Erasure request 88');
    expect(await card.getByTestId('transaction').textContent()).toBe('del_88');
    // The lines the part shows are not repeated under it.
    expect(await card.locator('dt').allTextContents()).toEqual(['Purpose', 'Transaction']);
    await check('deletion');

    await approve(asked, [DELETION]);
  });

  it('shows a message: the channel, how many recipients, large, the list and a sample, and the subject and body as they will be sent', async () => {
    const { asked, screen, served } = await open([MESSAGE], 'Notice Q1');
    const card = screen.locator('[data-testid="action"][data-type="message"]');
    expect(served.actions[0]!.message).toEqual({ channel: 'Email', recipient_count: 12000, list: 'newsletter-eu', sample: ['ana@example.com', 'bo@example.com'], subject: 'Price change', body: BODY });

    expect(await screen.getByTestId('request-title').textContent()).toBe('Send email to 12,000 recipients');
    const count = card.getByTestId('recipient-count');
    expect(await count.textContent()).toBe('12,000');
    expect(await fontSize(count)).toBeGreaterThanOrEqual(32);
    expect(await card.getByTestId('message-channel').textContent()).toBe('Email');
    expect(await card.getByTestId('recipient-list').textContent()).toBe('newsletter-eu');
    expect(await card.locator('[data-testid="recipient-sample"] li').allTextContents()).toEqual(['ana@example.com', 'bo@example.com']);
    expect(await card.getByTestId('message-subject').textContent()).toBe('Price change');
    // The body as sent, in a quoted box: every line break and indent kept on screen, not only in the DOM.
    const body = card.getByTestId('message-body');
    expect(await body.textContent()).toBe(BODY);
    expect(await body.evaluate((element) => (element as HTMLElement).innerText)).toBe(BODY);
    expect(await body.evaluate((element) => getComputedStyle(element).whiteSpace)).toBe('pre-wrap');
    expect(await body.evaluate((element) => element.closest('blockquote') !== null)).toBe(true);
    expect(await card.locator('dt').allTextContents()).toEqual(['Purpose', 'Transaction']);
    await check('message', { scrolled: true });

    await approve(asked, [MESSAGE]);
  });

  it('shows an access change in words: who, on what, and the role now → after', async () => {
    const { asked, screen, served } = await open([ACCESS_CHANGE]);
    const card = screen.locator('[data-testid="action"][data-type="access_change"]');
    expect(served.actions[0]!.access).toEqual({ kind: 'change', principal: 'Bo Li (u_9)', resource: 'Payments prod (proj_1)', from_role: 'viewer', to_role: 'admin' });

    expect(await screen.getByTestId('request-title').textContent()).toBe('Change Bo Li from viewer to admin on Payments prod');
    expect(await card.getByTestId('access-kind').textContent()).toBe('Change of role');
    expect(await card.getByTestId('access-principal').textContent()).toBe('Bo Li (u_9)');
    expect(await card.getByTestId('access-resource').textContent()).toBe('Payments prod (proj_1)');
    expect(await card.getByTestId('role-from').textContent()).toBe('viewer');
    expect(await card.getByTestId('role-to').textContent()).toBe('admin');
    // Visually `viewer → admin`, in that order on one line.
    expect(await card.getByTestId('role-change').evaluate((element) => (element as HTMLElement).innerText.replace(/\s+/g, ' '))).toBe('Now viewer → After admin');
    const [from, to] = await Promise.all([card.getByTestId('role-from').boundingBox(), card.getByTestId('role-to').boundingBox()]);
    expect(from!.x).toBeLessThan(to!.x);
    expect(Math.abs(from!.y - to!.y)).toBeLessThan(2);
    expect(await card.getByTestId('purpose').textContent()).toBe('On-call cover');
    await check('access_change');

    await approve(asked, [ACCESS_CHANGE]);
  });

  it('says a grant and a revocation in words, "No role" and "No access" where the server has none', async () => {
    const grant = { ...ACCESS_CHANGE, transaction_id: 'acc_4', from_role: null, to_role: 'admin' };
    const granted = await open([grant]);
    expect(await granted.screen.getByTestId('request-title').textContent()).toBe('Grant Bo Li admin on Payments prod');
    expect(await granted.screen.getByTestId('access-kind').textContent()).toBe('Grant of a role');
    expect(await granted.screen.getByTestId('role-from').textContent()).toBe('No role');
    expect(await granted.screen.getByTestId('role-from').getAttribute('data-role')).toBe('');
    expect(await granted.screen.getByTestId('role-to').textContent()).toBe('admin');
    await deny(granted.asked.auth_req_id);

    const revoke = { ...ACCESS_CHANGE, transaction_id: 'acc_5', from_role: 'viewer', to_role: null };
    const revoked = await open([revoke]);
    expect(await revoked.screen.getByTestId('request-title').textContent()).toBe("Revoke Bo Li's viewer on Payments prod");
    expect(await revoked.screen.getByTestId('access-kind').textContent()).toBe('Revocation of a role');
    expect(await revoked.screen.getByTestId('role-from').textContent()).toBe('viewer');
    expect(await revoked.screen.getByTestId('role-to').textContent()).toBe('No access');
    await deny(revoked.asked.auth_req_id);
  });

  it('shows a record change: the record and a before → after table of each field, text and numbers told apart', async () => {
    const { asked, screen, served } = await open([RECORD_CHANGE]);
    const card = screen.locator('[data-testid="action"][data-type="record_change"]');
    expect(served.actions[0]!.changes?.map((change) => change.field)).toEqual(['payout_eur_minor', 'status', 'priority']);

    expect(await screen.getByTestId('request-title').textContent()).toBe('Change campaign Auto EU (cmp_4): 3 fields');
    expect(await card.getByTestId('record').textContent()).toBe('campaign Auto EU (cmp_4)');
    const table = card.locator('table[data-testid="changes"]');
    expect(await table.locator('thead th[scope="col"]').allTextContents()).toEqual(['Field', 'Now', 'After']);
    expect(await table.locator('tbody th[scope="row"]').allTextContents()).toEqual(['payout_eur_minor', 'status', 'priority']);
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => ({ text: td.textContent, kind: td.dataset.kind }))));
    expect(rows).toEqual([
      [
        { text: '4000', kind: 'number' },
        { text: '4250', kind: 'number' },
      ],
      [
        { text: '"active"', kind: 'text' },
        { text: '"paused"', kind: 'text' },
      ],
      [
        { text: '"2"', kind: 'text' },
        { text: '2', kind: 'number' },
      ],
    ]);
    // The table stands where the server's one-line-per-field lines were: Record, the table, the rest.
    expect(await card.locator('dt').allTextContents()).toEqual(['Record', 'Purpose', 'Transaction', 'Only if unchanged']);
    expect(await card.evaluate((element) => [...element.querySelectorAll('[data-testid="record"], table, [data-testid="purpose"]')].map((node) => (node.tagName === 'TABLE' ? 'table' : (node as HTMLElement).dataset.testid)))).toEqual(['record', 'table', 'purpose']);
    expect(await card.getByTestId('only-if-unchanged').textContent()).toBe('campaign:cmp_4 at version 17');
    await check('record_change');

    await approve(asked, [RECORD_CHANGE]);
  });

  it('shows one request of every type at once, each with the longest names it may have, within 360 px', async () => {
    // A new hour: the policy's velocity limits (records deleted, recipients reached per user and
    // hour) start afresh, and these counts are the largest they let one request have.
    harness.clock.advance(3601);
    const id = (prefix: string, length: number) => `${prefix}${'x'.repeat(length - prefix.length)}`;
    const longest = [
      { ...DELETION, transaction_id: 'del_long', resource: { kind: id('k', 64), system: id('s', 64) }, ids: [id('cus_', 128), id('cus2_', 128)], count: 99_999 },
      { ...MESSAGE, transaction_id: 'msg_long', recipients: { count: 999_999, list: id('list-', 128), sample: [`${'a'.repeat(60)}@${'b'.repeat(60)}.example.com`] }, subject: 'S'.repeat(200), body: `${'w'.repeat(300)}\n${'Long words and short ones. '.repeat(20)}` },
      { ...ACCESS_CHANGE, transaction_id: 'acc_long', principal: { id: id('u_', 128), name: 'B'.repeat(140) }, resource: { id: id('p_', 128), name: 'P'.repeat(140) }, from_role: id('r', 64), to_role: id('t', 64) },
      {
        ...RECORD_CHANGE,
        transaction_id: 'chg_long',
        changes: [
          { field: id('f', 64), from: 'v'.repeat(1000), to: 123456789012345.67 },
          { field: 'note', from: null, to: 'y'.repeat(200) },
          { field: 'Purpose', from: 'old', to: 'new' },
        ],
      },
    ];
    const { asked, screen } = await open(longest);
    expect(await screen.locator('[data-testid="action"]').evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.type))).toEqual(['deletion', 'message', 'access_change', 'record_change']);
    // Several actions: each card has its heading; no money moves, so there are no totals.
    expect(await screen.locator('[data-testid="action"] > h2').count()).toBe(4);
    expect(await screen.getByTestId('totals').count()).toBe(0);
    expect(await screen.getByTestId('record-count').textContent()).toBe('99,999');
    expect(await screen.getByTestId('recipient-count').textContent()).toBe('999,999');
    // A changed field named like one of the server's lines (`Purpose`) is a row of the table; the request's purpose stays a line.
    const changed = screen.locator('[data-testid="action"][data-type="record_change"]');
    expect(await changed.locator('tbody th').allTextContents()).toEqual([id('f', 64), 'note', 'Purpose']);
    expect(await changed.locator('dt').allTextContents()).toEqual(['Record', 'Purpose', 'Transaction', 'Only if unchanged']);
    expect(await changed.getByTestId('purpose').textContent()).toBe('Raise payout');
    // Text can stick out of a box that fits (a word too long for its line): the page's scroll width says so.
    expect(await widthAt360(page), 'folded: nothing sticks out at 360 px').toEqual({ scrollWidth: 360, overflowing: [] });
    // A long value is folded, all of it a tap away (and still within 360 px once shown: check() below).
    const from = screen.locator('[data-testid="change"][data-field^="f"] [data-testid="change-from"]');
    expect(await from.getByTestId('show-all').isVisible()).toBe(true);
    await from.getByTestId('show-all').click();
    expect(await from.getByTestId('arg-text').textContent()).toBe('v'.repeat(1000));
    await check('every-type-longest');
    await deny(asked.auth_req_id);
  });

  it('shows a batch of three payments in two currencies: each payment, and the total per currency once; one approval; one redeem of exactly that set', async () => {
    const { asked, screen, served } = await open(BATCH, 'Refunds 1042-1044');
    expect(served.totals.map((total) => total.formatted_code)).toEqual(['EUR 200.50', 'JPY 5,000']);

    expect(await screen.getByTestId('request-title').textContent()).toBe('Pay EUR 120.00 to ACME Ltd and 2 more');
    const cards = screen.locator('[data-testid="action"][data-type="payment"]');
    expect(await cards.count()).toBe(3);
    expect(await cards.locator('h2').allTextContents()).toEqual(served.actions.map((action) => action.title));
    expect(await cards.getByTestId('amount').allTextContents()).toEqual(['EUR 120.00', 'EUR 80.50', 'JPY 5,000']);
    expect(await cards.getByTestId('payee').allTextContents()).toEqual(['ACME Ltd (acct_77)', 'Globex GmbH (acct_78)', 'Tanaka KK (acct_79)']);
    // The totals, once, above the payments.
    expect(await screen.getByTestId('totals').count()).toBe(1);
    expect(await screen.locator('[data-testid="totals"] h2').textContent()).toBe('Total of 3 payments');
    expect(await screen.getByTestId('total').allTextContents()).toEqual(['EUR 200.50', 'JPY 5,000']);
    expect(await screen.getByTestId('total').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.amountMinor))).toEqual(['20050', '5000']);
    const [totals, first] = await Promise.all([screen.getByTestId('totals').boundingBox(), cards.first().boundingBox()]);
    expect(totals!.y).toBeLessThan(first!.y);
    await check('batch', { whole: true });

    const token = await approve(asked, BATCH);
    const refused = (details: readonly object[]) =>
      agent.redeem(token.access_token, details as AuthorizationDetails).then(
        () => null,
        (error: unknown) => error,
      );
    // One payment left out: the approval covers exactly the three.
    const leftOut = await refused(BATCH.slice(0, 2));
    expect(leftOut).toBeInstanceOf(CountersignError);
    expect(leftOut).toMatchObject({ code: 'approval_mismatch', status: 400 });
    // One payment changed: JPY 5,001 instead of 5,000.
    expect(await refused([BATCH[0], BATCH[1], { ...BATCH[2], amount_minor: 5001 }])).toMatchObject({ code: 'approval_mismatch', status: 400 });
    // The exact set: one redeem consumes all three.
    const redemption = await agent.redeem(token.access_token, BATCH as unknown as AuthorizationDetails);
    expect(redemption).toMatchObject({ status: 'redeemed', authorization_details: BATCH });
    const again = await refused(BATCH);
    expect(again).toMatchObject({ code: 'already_redeemed', status: 409, body: { redemption: { redemption_id: redemption.redemption_id } } });
    expect((await agent.getRequest(asked.auth_req_id)).state).toBe('redeemed');
    expect(app.errors).toEqual([]);
    expect(reviewer.errors).toEqual([]);
  });
});
