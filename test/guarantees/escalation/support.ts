/**
 * Set-up shared by the escalation tests (docs/escalation.md): a tier says how long its approver has and
 * who is asked next. On the injected clock: a window that passes hands the request to the next role
 * (pushed to its holders, audited `escalated`), and the earlier holder can no longer approve; the
 * last window passing expires it loudly (`escalation_exhausted`); the agent and the devices see who
 * holds it.
 */
import { afterEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { bcAuthorize, device, enrollWithRoles, onlyTier, pay, testPolicy } from '../policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** The only tier: the customer has 60 s, then ops until 180 s, then a manager until the request's 600 s. */
export function chainPolicy(
  chain: unknown[] = [
    { after_seconds: 60, to: { role: 'ops' } },
    { after_seconds: 180, to: { role: 'manager' } },
  ],
  approvers: unknown[] = ['customer'],
) {
  return testPolicy((policy) => {
    onlyTier(policy, { name: 'watched', approvers, number_matching: false });
    Object.assign(policy.tiers[0], { request_expiry_seconds: 600, escalation: chain });
  });
}

/** Registers, in the calling `describe`, the close of the server `start` makes under a chain policy: customer_1, olga (ops), max (manager), a client, and every push asked of the notifier in `pushes`. Read them through the returned object. */
export function useEscalation(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    olga: EnrolledUser;
    max: EnrolledUser;
    client: Client;
    /** Every push asked of the notifier: to whom, of what kind, saying what. */
    pushes: { sub: string; kind: string; summary: string }[];
  };

  async function start(policyFile = chainPolicy()) {
    state.harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policyFile } });
    state.customer = await state.harness.enrollUser('customer_1');
    state.olga = await enrollWithRoles(state.harness, 'olga', ['ops']);
    state.max = await enrollWithRoles(state.harness, 'max', ['manager']);
    state.client = await state.harness.createClient('Refund agent');
    state.pushes = [];
    const notifyUser = state.harness.deps.push.notifyUser.bind(state.harness.deps.push);
    state.harness.deps.push.notifyUser = async (input) => {
      state.pushes.push({ sub: input.sub, kind: input.kind ?? 'approval_request', summary: input.summary });
      return notifyUser(input);
    };
  }
  afterEach(() => state.harness.close());

  const ask = async (params: { requested_expiry?: number } = {}) => {
    const asked = await bcAuthorize(state.harness, state.client, { login_hint: state.customer.sub, details: pay('txn_1'), ...params });
    expect(asked.status).toBe(200);
    await state.harness.drain();
    return asked.body.auth_req_id as string;
  };
  /** Moves the clock, runs one sweep and what it enqueued; answers how many due entries it handled. */
  const pass = async (seconds: number) => {
    state.harness.clock.advance(seconds);
    const handled = await state.harness.deps.sweeper.sweep();
    await state.harness.drain();
    return handled;
  };
  const clientView = async (id: string) => (await state.harness.call('GET', `/requests/${id}`, { headers: { authorization: `Basic ${Buffer.from(`${state.client.client_id}:${state.client.client_secret}`).toString('base64')}` } })).body;
  const inbox = async (user: EnrolledUser) => ((await device(state.harness, user, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);
  const auditOf = async (id: string) => (await state.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; reason?: string; sub?: string; detail?: Record<string, unknown> }[];
  /** The gate's steps, in order: what was proposed, pushed (to whom, for which step), escalated, decided, expired. */
  const steps = async (id: string) =>
    (await auditOf(id))
      .filter((event) => ['proposed', 'pushed', 'escalated', 'approved', 'denied', 'expired'].includes(event.type))
      .map((event) => {
        if (event.type === 'pushed') return `pushed ${event.sub}${event.detail?.kind ? ` ${String(event.detail.kind)}` : ''}${event.detail?.step ? ` step ${String(event.detail.step)}` : ''}`;
        if (event.type === 'escalated') return `escalated ${String(event.detail?.from)} → ${String(event.detail?.to)} step ${String(event.detail?.step)}`;
        return event.reason ? `${event.type} ${event.reason}` : event.type;
      });
  /** A decision posted with a prompt taken earlier (before the clock moved on). */
  const post = async (user: EnrolledUser, id: string, prompt: unknown) => device(state.harness, user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await user.authenticator.authenticate(prompt as never) });

  return Object.assign(state, { start, ask, pass, clientView, inbox, auditOf, steps, post });
}
