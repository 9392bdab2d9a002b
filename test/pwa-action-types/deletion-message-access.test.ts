import { describe, expect, it } from 'vitest';
import { ACCESS_CHANGE, DELETION, fontSize, MESSAGE, BODY } from './actions.ts';
import { useTypesPhone } from './support.ts';

// A deletion, a message and an access change (a grant and a revocation too), as the phone shows them.

describe('what the person sees, per action type (phone)', () => {
  const ui = useTypesPhone();

  it('shows a deletion: how many records in all, large; of what kind, where; the first ids and how many more; "Cannot be undone"', async () => {
    const { asked, screen, served } = await ui.open([DELETION], 'Erasure 88');
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
    await ui.check('deletion');

    await ui.approve(asked, [DELETION]);
  });

  it('shows a message: the channel, how many recipients, large, the list and a sample, and the subject and body as they will be sent', async () => {
    const { asked, screen, served } = await ui.open([MESSAGE], 'Notice Q1');
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
    await ui.check('message', { scrolled: true });

    await ui.approve(asked, [MESSAGE]);
  });

  it('shows an access change in words: who, on what, and the role now → after', async () => {
    const { asked, screen, served } = await ui.open([ACCESS_CHANGE]);
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
    await ui.check('access_change');

    await ui.approve(asked, [ACCESS_CHANGE]);
  });

  it('says a grant and a revocation in words, "No role" and "No access" where the server has none', async () => {
    const grant = { ...ACCESS_CHANGE, transaction_id: 'acc_4', from_role: null, to_role: 'admin' };
    const granted = await ui.open([grant]);
    expect(await granted.screen.getByTestId('request-title').textContent()).toBe('Grant Bo Li admin on Payments prod');
    expect(await granted.screen.getByTestId('access-kind').textContent()).toBe('Grant of a role');
    expect(await granted.screen.getByTestId('role-from').textContent()).toBe('No role');
    expect(await granted.screen.getByTestId('role-from').getAttribute('data-role')).toBe('');
    expect(await granted.screen.getByTestId('role-to').textContent()).toBe('admin');
    await ui.deny(granted.asked.auth_req_id);

    const revoke = { ...ACCESS_CHANGE, transaction_id: 'acc_5', from_role: 'viewer', to_role: null };
    const revoked = await ui.open([revoke]);
    expect(await revoked.screen.getByTestId('request-title').textContent()).toBe("Revoke Bo Li's viewer on Payments prod");
    expect(await revoked.screen.getByTestId('access-kind').textContent()).toBe('Revocation of a role');
    expect(await revoked.screen.getByTestId('role-from').textContent()).toBe('viewer');
    expect(await revoked.screen.getByTestId('role-to').textContent()).toBe('No access');
    await ui.deny(revoked.asked.auth_req_id);
  });
});
