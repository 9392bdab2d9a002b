import { describe, expect, it } from 'vitest';
import type { Deps } from '../deps.ts';
import type { MandateReceiptJob } from '../jobs/index.ts';
import { ManualClock } from '../runtime/index.ts';
import { MemoryStore } from '../store/index.ts';
import { EARLIER, storeMandate } from './mandate-record.test-support.ts';
import { sendSpendReceipt } from './spend-receipt.ts';

/**
 * The receipt of one spend (`mandate_receipt` job): what it says is left is the spend's period's, so
 * a receipt retried past that period's end says nothing of it; and a job run twice pushes once.
 * (End to end, decrypted from real Web Push: test/mandate-receipts.test.ts.)
 */
describe('a spend receipt', () => {
  it("says what is left this month while the spend's month runs, nothing of it once the month is over, and pushes once per job", async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(Date.parse('2026-01-15T12:00:00Z'));
    const pushed: string[] = [];
    const deps = { store, clock, push: { notifyUser: async (input: { summary: string }) => (pushed.push(input.summary), { sent: 1, removed: 0, failed: 0 }) } } as unknown as Deps;
    const { id } = await storeMandate(store, 'approved', clock.now(), { period: 'month' });
    const job: MandateReceiptJob = { kind: 'mandate_receipt', tenant: 'default', auth_req_id: id, transaction_id: EARLIER, attempt: 1 };

    expect(await sendSpendReceipt(deps, job)).toBe('done');
    // The same job delivered again: its mark is there, nothing more is pushed.
    expect(await sendSpendReceipt(deps, job)).toBe('skipped');
    // A retry (attempt 2: its first push reached no device) after the month ended.
    clock.advance(17 * 86_400);
    expect(await sendSpendReceipt(deps, { ...job, attempt: 2 })).toBe('done');
    expect(pushed).toEqual(['EUR 1.00 paid to ACME Utilities under your standing permission for Test; EUR 36.00 left this month', 'EUR 1.00 paid to ACME Utilities under your standing permission for Test']);
  });
});
