/** Reviewers (docs/guarantees.md): duties kept apart, tenants kept apart, approvals fired together, and the shipped high tier. */
import { describe, expect, it } from 'vitest';
import type { EnrolledUser } from '../../support/harness.ts';
import { createSoftAuthenticator } from '../../support/soft-authenticator.ts';
import { answer, bcAuthorize, device, onlyTier, pay, pollToken, testPolicy } from '../policy-support.ts';
import { useReviewers } from './support.ts';

describe.each(['memory', 'redis'] as const)('reviewers (%s store)', (storeKind) => {
  const ctx = useReviewers(storeKind);
  const { start, ask, inbox, stateOf } = ctx;

  it('keeps the duties apart: the customer holding the reviewer role cannot approve as reviewer, nor one reviewer twice', async () => {
    await start();
    await ctx.harness.admin('PUT', '/users/customer_1/roles', { roles: ['reviewer:finance'] });
    const id = await ask();
    expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve' })).body.request.state).toBe('pending');
    expect((await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`)).body.options.approve).toBeNull();
    expect((await answer(ctx.harness, ctx.reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');

    const two = await (async () => {
      await ctx.harness.close();
      await start({
        POLICY_FILE: testPolicy((policy) => {
          onlyTier(policy, { name: 'two-reviewers', approvers: [{ role: 'reviewer:finance' }, { role: 'reviewer:risk' }], number_matching: false });
        }),
      });
      await ctx.harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance', 'reviewer:risk'] });
      // Someone else can fill the other role (rita alone could fill only one: no_approver, below).
      await ctx.harness.admin('POST', '/users', { sub: 'rob', roles: ['reviewer:risk'] });
      return ask('txn_2');
    })();
    expect((await answer(ctx.harness, ctx.reviewer, two, { decision: 'approve' })).body.request).toMatchObject({ state: 'pending', approvals: [{ status: 'approved' }, { status: 'waiting' }] });
    const view = await device(ctx.harness, ctx.reviewer, 'GET', `/requests/${two}`);
    expect([view.body.request.viewer.party, view.body.options]).toEqual([null, null]);
  });

  it('lets a reviewer act only in its own tenant, and stops one whose role was removed at once', async () => {
    await start();
    const id = await ask();
    const view = await device(ctx.harness, ctx.reviewer, 'GET', `/requests/${id}`);
    await ctx.harness.admin('PUT', '/users/rita/roles', { roles: [] });
    const response = await ctx.reviewer.authenticator.authenticate(view.body.options.approve);
    const refused = await device(ctx.harness, ctx.reviewer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response });
    expect([refused.status, refused.body.error]).toEqual([404, 'not_found']);
    expect(await stateOf(id)).toBe('pending');

    // A finance reviewer of tenant-b, with a passkey and a session of their own, sees nothing of tenant default.
    expect((await ctx.harness.admin('POST', '/users', { sub: 'otto', roles: ['reviewer:finance'], tenant: 'tenant-b' })).status).toBe(201);
    const code = (await ctx.harness.admin('POST', '/users/otto/enrollments', { tenant: 'tenant-b' })).body.enrollment_code;
    const phone = createSoftAuthenticator({ origin: ctx.harness.issuer, rpId: new URL(ctx.harness.issuer).hostname });
    const options = await ctx.harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: ctx.harness.issuer } });
    const enrolled = await ctx.harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await phone.register(options.body) }, headers: { origin: ctx.harness.issuer } });
    const otto: EnrolledUser = { sub: 'otto', authenticator: phone, cookie: (enrolled.headers.get('set-cookie') ?? '').split(';')[0]! };
    await ctx.harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance'] });
    expect([await inbox(otto), await inbox(ctx.reviewer)]).toEqual([[], [id]]);
    expect((await device(ctx.harness, otto, 'GET', `/requests/${id}`)).status).toBe(404);
  });

  it('records both of two approvals fired together and approves exactly once', async () => {
    await start();
    const id = await ask();
    const [customerView, reviewerView] = await Promise.all([device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`), device(ctx.harness, ctx.reviewer, 'GET', `/requests/${id}`)]);
    const [customerSays, reviewerSays] = await Promise.all([ctx.customer.authenticator.authenticate(customerView.body.options.approve), ctx.reviewer.authenticator.authenticate(reviewerView.body.options.approve)]);
    const results = await Promise.all([device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: customerSays }), device(ctx.harness, ctx.reviewer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: reviewerSays })]);
    expect(results.map((result) => result.status)).toEqual([200, 200]);
    expect(await stateOf(id)).toBe('approved');
    expect(ctx.audit.filter((event) => event.type === 'approved')).toHaveLength(1);
    expect(ctx.audit.filter((event) => event.type === 'party_approved')).toHaveLength(1);
  });

  it('runs the shipped high tier end to end: customer with number matching, then a finance reviewer', async () => {
    await start({});
    const asked = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_big', 2_500_000) });
    expect(asked.body).toMatchObject({ expires_in: 600, binding_code: expect.stringMatching(/^[1-9][0-9]$/) });
    expect((await answer(ctx.harness, ctx.customer, asked.body.auth_req_id, { decision: 'approve', code: asked.body.binding_code })).body.request.state).toBe('pending');
    expect((await answer(ctx.harness, ctx.reviewer, asked.body.auth_req_id, { decision: 'approve' })).body.request.state).toBe('approved');
    expect((await pollToken(ctx.harness, ctx.client, asked.body.auth_req_id)).body.expires_in).toBe(120);
  });
});
