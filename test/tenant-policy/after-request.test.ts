/** Per-tenant policy: what a request reads of the policy after it was made, once the policy changed. */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { enrollIn, agentIn } from './support.ts';

describe('what reads the policy after a request is made', () => {
  let harness: Harness;
  afterEach(() => harness.close());

  it('pushes under the push rate of the revision the request was rated under, not the current one', async () => {
    // No job runs until drained: both requests are made, then the policy changes, then they are pushed.
    harness = await createHarness({ store: 'redis', jobs: { consume: false } });
    const user = await enrollIn(harness, 'acme', 'ana');
    const agent = await agentIn(harness, 'acme');
    const withPushes = (maxCount: number) => {
      const policy = structuredClone(harness.deps.policy) as any;
      policy.limits.pushes_per_user = { window_seconds: 600, max_count: maxCount };
      return policy;
    };
    expect((await harness.admin('PUT', '/tenants/acme/policy', { policy: withPushes(1) })).body.revision).toBe(1);
    const asked = [];
    for (const id of ['txn_p1', 'txn_p2']) asked.push(await agent.requestApproval({ login_hint: user.sub, authorization_details: payment({ transaction_id: id }) }));
    expect((await harness.admin('PUT', '/tenants/acme/policy', { policy: withPushes(20) })).body.revision).toBe(2);
    await harness.drain();
    const trails = await Promise.all(asked.map(async ({ auth_req_id }) => (await harness.admin('GET', `/audit?tenant=acme&auth_req_id=${auth_req_id}`)).body.events));
    const pushEvent = (events: { type: string; reason?: string }[]) => events.filter((event) => event.type.startsWith('push')).map((event) => [event.type, event.reason])[0];
    expect(trails.map(pushEvent)).toEqual([
      ['pushed', undefined],
      ['push_skipped', 'push_rate_limited'],
    ]);
  });
});
