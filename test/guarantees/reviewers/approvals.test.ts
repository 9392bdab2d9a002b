/** Reviewers (docs/guarantees.md): roles, the reviewer's inbox, and every required party approving with its own passkey; any one denies. */
import { keys } from '@countersign/server';
import { base64url, decisionChallenge } from '@countersign/shared';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { payment } from '../../support/payment.ts';
import { answer, device, enrollWithRoles, pay, pollToken } from '../policy-support.ts';
import { useReviewers } from './support.ts';

describe.each(['memory', 'redis'] as const)('reviewers (%s store)', (storeKind) => {
  const ctx = useReviewers(storeKind);
  const { start, ask, inbox } = ctx;

  it('sets roles with POST /api/admin/users and PUT …/roles, stored on the user and audited', async () => {
    await start();
    expect((await ctx.harness.admin('GET', '/users/rita')).body.user.roles).toEqual(['reviewer:finance']);
    const changed = await ctx.harness.admin('PUT', '/users/customer_1/roles', { roles: ['reviewer:legal', 'approver'] });
    expect([changed.status, changed.body.roles]).toEqual([200, ['reviewer:legal', 'approver']]);
    expect((await ctx.harness.admin('PUT', '/users/nobody/roles', { roles: [] })).status).toBe(404);
    expect((await ctx.harness.admin('PUT', '/users/rita/roles', { roles: ['Reviewer:{x}'] })).body.error).toBe('invalid_request');
    expect(ctx.audit.filter((event) => event.type === 'roles_changed').map((event) => [event.sub, event.detail?.to])).toEqual([['customer_1', 'reviewer:legal approver']]);
  });

  it('puts a request that needs a finance reviewer in the inbox of every finance reviewer of the tenant, and pushes it to them', async () => {
    await start();
    const pushed: string[] = [];
    const notifyUser = ctx.harness.deps.push.notifyUser.bind(ctx.harness.deps.push);
    ctx.harness.deps.push.notifyUser = async (input) => {
      pushed.push(input.sub);
      return notifyUser(input);
    };
    const second = await enrollWithRoles(ctx.harness, 'rob', ['reviewer:finance']);
    const legal = await enrollWithRoles(ctx.harness, 'lee', ['reviewer:legal']);
    await ctx.harness.admin('POST', '/users', { sub: 'tina', roles: ['reviewer:finance'], tenant: 'tenant-b' });
    const id = await ask();
    await ctx.harness.deps.background.drain();
    expect([await inbox(ctx.customer), await inbox(ctx.reviewer), await inbox(second), await inbox(legal)]).toEqual([[id], [id], [id], []]);
    expect(pushed.sort()).toEqual(['customer_1', 'rita', 'rob']);
    const view = await device(ctx.harness, ctx.reviewer, 'GET', `/requests/${id}`);
    expect(view.body.request).toMatchObject({ tier: 'dual', number_matching: null, viewer: { party: 'role:reviewer:finance', can_decide: true, can_report: false } });
    expect(view.body.options.approve.allowCredentials).toEqual([expect.objectContaining({ id: ctx.reviewer.authenticator.credentialId })]);
    expect((await device(ctx.harness, legal, 'GET', `/requests/${id}`)).status).toBe(404);
  });

  it('stays pending until every required party has approved with its own passkey; the token comes after the last', async () => {
    await start();
    const id = await ask();
    expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve' })).body.request).toMatchObject({
      state: 'pending',
      approvals: [
        { party: 'customer', status: 'approved' },
        { party: 'role:reviewer:finance', status: 'waiting' },
      ],
    });
    expect((await pollToken(ctx.harness, ctx.client, id)).body.error).toBe('authorization_pending');
    const again = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
    expect(again.body.request.viewer).toEqual({ party: null, can_decide: true, can_report: true });
    expect(again.body.options.approve).toBeNull();

    expect((await answer(ctx.harness, ctx.reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
    ctx.harness.clock.advance(5);
    const token = await pollToken(ctx.harness, ctx.client, id);
    expect(token.status).toBe(200);
    const stored = (await ctx.harness.admin('GET', `/requests/${id}`)).body.request;
    expect(stored.approvals.map((given: { party: string; sub: string; credential_id: string }) => [given.party, given.sub, given.credential_id])).toEqual([
      ['customer', 'customer_1', ctx.customer.authenticator.credentialId],
      ['role:reviewer:finance', 'rita', ctx.reviewer.authenticator.credentialId],
    ]);
    expect(ctx.audit.filter((event) => ['party_approved', 'approved'].includes(event.type)).map((event) => [event.type, event.sub, event.detail?.party])).toEqual([
      ['party_approved', 'customer_1', 'customer'],
      ['approved', 'rita', 'role:reviewer:finance'],
    ]);
  });

  it('denies the request when any required party denies, whatever the others did', async () => {
    await start();
    const id = await ask();
    expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve' })).status).toBe(200);
    expect((await answer(ctx.harness, ctx.reviewer, id, { decision: 'deny' })).body.request.state).toBe('denied');
    expect((await pollToken(ctx.harness, ctx.client, id)).body.error).toBe('access_denied');
    expect(await inbox(ctx.reviewer)).toEqual([]);
    expect(ctx.audit.find((event) => event.type === 'denied')).toMatchObject({ sub: 'rita', detail: { party: 'role:reviewer:finance', cause: 'denied' } });
  });

  it('gives a reviewer no way to change the action: the decision carries no details and the passkey signs the stored details_hash', async () => {
    await start();
    const id = await ask();
    const stored = (await ctx.harness.admin('GET', `/requests/${id}`)).body.request;
    const view = await device(ctx.harness, ctx.reviewer, 'GET', `/requests/${id}`);
    const challenge = view.body.options.approve.challenge as string;
    const record = JSON.parse((await ctx.harness.store.get(keys.decisionChallenge('default', challenge)))!);
    expect(record).toMatchObject({ auth_req_id: id, decision: 'approve', sub: 'rita', party: 'role:reviewer:finance' });
    expect(base64url(await decisionChallenge({ auth_req_id: id, details_hash: stored.details_hash, decision: 'approve', nonce: record.nonce }))).toBe(challenge);

    const response = await ctx.reviewer.authenticator.authenticate(view.body.options.approve);
    const changed = await device(ctx.harness, ctx.reviewer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response, authorization_details: payment({ amount_minor: 1 }) });
    expect([changed.status, changed.body.error]).toEqual([400, 'invalid_request']);
    expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve' })).status).toBe(200);
    expect((await answer(ctx.harness, ctx.reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
    const token = await pollToken(ctx.harness, ctx.client, id);
    expect(decodeJwt(token.body.access_token)).toMatchObject({ details_hash: stored.details_hash, authorization_details: pay('txn_1') });
  });
});
