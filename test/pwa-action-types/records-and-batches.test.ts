import { CountersignError, type AuthorizationDetails } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { BATCH, ACCESS_CHANGE, DELETION, MESSAGE, RECORD_CHANGE } from './actions.ts';
import { useTypesPhone } from './support.ts';
import { widthAt360 } from '../support/pwa-browser.ts';

// A record change, one request of every type at once at 360 px, and a batch of payments in two currencies.

describe('what the person sees, per action type (phone)', () => {
  const ui = useTypesPhone();

  it('shows a record change: the record and a before → after table of each field, text and numbers told apart', async () => {
    const { asked, screen, served } = await ui.open([RECORD_CHANGE]);
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
    await ui.check('record_change');

    await ui.approve(asked, [RECORD_CHANGE]);
  });

  it('shows one request of every type at once, each with the longest names it may have, within 360 px', async () => {
    // A new hour: the policy's velocity limits (records deleted, recipients reached per user and
    // hour) start afresh, and these counts are the largest they let one request have.
    ui.harness.clock.advance(3601);
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
    const { asked, screen } = await ui.open(longest);
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
    expect(await widthAt360(ui.page), 'folded: nothing sticks out at 360 px').toEqual({ scrollWidth: 360, overflowing: [] });
    // A long value is folded, all of it a tap away (and still within 360 px once shown: check() below).
    const from = screen.locator('[data-testid="change"][data-field^="f"] [data-testid="change-from"]');
    expect(await from.getByTestId('show-all').isVisible()).toBe(true);
    await from.getByTestId('show-all').click();
    expect(await from.getByTestId('arg-text').textContent()).toBe('v'.repeat(1000));
    await ui.check('every-type-longest');
    await ui.deny(asked.auth_req_id);
  });

  it('shows a batch of three payments in two currencies: each payment, and the total per currency once; one approval; one redeem of exactly that set', async () => {
    const { asked, screen, served } = await ui.open(BATCH, 'Refunds 1042-1044');
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
    await ui.check('batch', { whole: true });

    const token = await ui.approve(asked, BATCH);
    const refused = (details: readonly object[]) =>
      ui.agent.redeem(token.access_token, details as AuthorizationDetails).then(
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
    const redemption = await ui.agent.redeem(token.access_token, BATCH as unknown as AuthorizationDetails);
    expect(redemption).toMatchObject({ status: 'redeemed', authorization_details: BATCH });
    const again = await refused(BATCH);
    expect(again).toMatchObject({ code: 'already_redeemed', status: 409, body: { redemption: { redemption_id: redemption.redemption_id } } });
    expect((await ui.agent.getRequest(asked.auth_req_id)).state).toBe('redeemed');
    expect(ui.app.errors).toEqual([]);
    expect(ui.reviewer.errors).toEqual([]);
  });
});
