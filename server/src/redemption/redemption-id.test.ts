import { describe, expect, it } from 'vitest';
import { randomId } from '../runtime/index.ts';
import { newRedemptionId, parseRedemptionId } from './redemption-id.ts';

describe('redemption ids', () => {
  const authReqId = randomId(32);

  it('name the request they redeem, after 16 random bytes', () => {
    const id = newRedemptionId(randomId, authReqId);
    expect(id).toMatch(new RegExp(`^rdm_[A-Za-z0-9_-]{22}\\.${authReqId.replace(/[-]/g, '\\-')}$`));
    expect(parseRedemptionId(id)).toEqual({ auth_req_id: authReqId });
    expect(newRedemptionId(randomId, authReqId)).not.toBe(id);
  });

  it('still lead older ids, which did not name their request, to the index', () => {
    expect(parseRedemptionId('rdm_0123456789abcdefghij')).toEqual({ indexed: true });
  });

  it.each(['', 'rdm_', 'rdm_short.', `rdm_${'a'.repeat(22)}.`, `rdm_${'a'.repeat(22)}.short`, `rdm_${'a'.repeat(22)}.${authReqId}.x`, `xdm_${'a'.repeat(22)}.${authReqId}`, `rdm_${'a'.repeat(22)}.{t}:x${'a'.repeat(20)}`, `rdm_${'u'.repeat(10_240)}`])('refuse anything else without a lookup: %j', (id) => {
    expect(parseRedemptionId(id)).toBeNull();
  });
});
