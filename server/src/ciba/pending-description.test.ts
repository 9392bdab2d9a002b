import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../requests/index.ts';
import { pendingDescription } from './pending-description.ts';

const approval = { device_id: 'd', credential_id: 'c', at: 0 };
const pending = (parties: ApprovalRequest['parties'], approvals: ApprovalRequest['approvals'] = []) => ({ parties, approvals }) as ApprovalRequest;

describe('pendingDescription', () => {
  it('keeps the usual words when only the user is asked', () => {
    expect(pendingDescription(pending(['customer']))).toBe('The user has not decided yet.');
    // A record from before parties were stored reads as the user alone.
    expect(pendingDescription({} as ApprovalRequest)).toBe('The user has not decided yet.');
  });

  it('names the parties still needed and those that approved, without a double quote (RFC 6749 §5.2)', () => {
    expect(pendingDescription(pending(['customer', 'role:reviewer:finance']))).toBe("Waiting for the approval of the user and a reviewer with the role 'reviewer:finance'.");
    expect(pendingDescription(pending(['customer', 'role:reviewer:finance'], [{ ...approval, party: 'customer', sub: 'cara' }]))).toBe("The user has approved; still waiting for the approval of a reviewer with the role 'reviewer:finance'.");
    expect(
      pendingDescription(
        pending(
          ['customer', 'role:a', 'role:b'],
          [
            { ...approval, party: 'customer', sub: 'cara' },
            { ...approval, party: 'role:a', sub: 'rita' },
          ],
        ),
      ),
    ).toBe("The user and a reviewer with the role 'a' have approved; still waiting for the approval of a reviewer with the role 'b'.");
  });
});
