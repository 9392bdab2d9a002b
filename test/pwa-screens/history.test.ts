import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { answer, device, enrollWithRoles } from '../guarantees/policy-support.ts';
import { payment } from '../support/payment.ts';
import { useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { toolCall } from '../support/tool-call.ts';
import { LONG_BINDING, LONG_PAYMENT, poll, useScreens } from './support.ts';

// The history screen, light and dark, over the decisions the other screens make: made here through
// the device API with a second, software passkey of the same person.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const ui = useScreens(chromium, viewport);
  const { ask, check, focused } = ui;

  /**
   * What the other screens decide: the long request denied, one approved, a console's test request
   * denied, a tool call approved, one expired, one by number matching, and a high-value one the
   * customer approved that waits for a finance reviewer. One second apart, so the order is one.
   */
  async function decideEarlier(): Promise<void> {
    const { harness } = ui;
    const phone = await harness.enrollUser(ui.sub);
    await enrollWithRoles(harness, `rita-${viewport}`, ['reviewer:finance']);
    const decide = async (id: string, decision: 'approve' | 'deny', code?: string) => {
      expect((await answer(harness, phone, id, { decision, ...(code ? { code } : {}) })).status).toBe(200);
      harness.clock.advance(1);
    };
    await decide((await ask(LONG_PAYMENT, { binding_message: LONG_BINDING })).auth_req_id, 'deny');
    await decide((await ask(undefined, { binding_message: 'Order 1042' })).auth_req_id, 'approve');
    const test = await harness.admin('POST', '/test-requests', { login_hint: ui.sub, sample: 'payment' });
    await decide(test.body.auth_req_id as string, 'deny');
    const tool = toolCall({ transaction_id: `mcp_${randomBytes(6).toString('hex')}`, annotations: { title: 'Delete Entities', destructiveHint: true }, arguments: { entityNames: ['Alice', 'Zoë'], options: { cascade: true, ratio: 1.5 }, observations: `${'Met at the conference in Lyon. '.repeat(12)}Zoë — 東京 ✓` } });
    await decide((await ask(tool, { binding_message: 'delete_entities' })).auth_req_id, 'approve');
    const lapsed = await ask(undefined, { requested_expiry: 60 });
    harness.clock.advance(61);
    await device(harness, phone, 'GET', `/requests/${lapsed.auth_req_id}`);
    for (const amount of [150_000, 1_200_000]) {
      const asked = await ask(payment({ transaction_id: `txn_${randomBytes(6).toString('hex')}`, amount_minor: amount }), { binding_message: amount === 150_000 ? LONG_BINDING : 'Order 3001' });
      await decide(asked.auth_req_id, 'approve', asked.binding_code);
    }
  }

  it('shows the history, in both colour schemes', async () => {
    const { page, origin } = ui;
    await decideEarlier();
    await page.goto(`${origin}/#/history`);
    await expect.poll(() => page.getByTestId('history-item').count(), poll).toBeGreaterThanOrEqual(3);
    expect(await focused()).toBe('h1');
    await check('history');
    // Reduced motion: no colour transition half-way through while axe measures the contrast.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await check('history-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });
});
