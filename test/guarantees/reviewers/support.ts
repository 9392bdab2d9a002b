/** Set-up shared by the reviewers suite (docs/guarantees.md "Reviewers"): the policies it runs under, and one server with a customer, a finance reviewer and a client. */
import { afterEach } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { bcAuthorize, device, enrollWithRoles, onlyTier, pay, testPolicy, watchAudit, type SeenEvent } from '../policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** A policy whose only tier needs the customer and a finance reviewer, without number matching. */
const customerAndFinance = () =>
  testPolicy((policy) => {
    onlyTier(policy, { name: 'dual', approvers: ['customer', { role: 'reviewer:finance' }], number_matching: false });
  });

/** A tier of two reviewers of different roles, and no customer. */
export const twoReviewers = () =>
  testPolicy((policy) => {
    onlyTier(policy, { name: 'two-reviewers', approvers: [{ role: 'reviewer:finance' }, { role: 'reviewer:risk' }], number_matching: false });
  });

/**
 * Registers, in the calling `describe`, the close of a server that `start` makes: a customer, the finance reviewer rita,
 * a client and the audit watched. Each test starts its own server; read its state through the returned object.
 */
export function useReviewers(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    reviewer: EnrolledUser;
    client: Client;
    audit: SeenEvent[];
  };

  async function start(env: Record<string, string> = { POLICY_FILE: customerAndFinance() }) {
    state.harness = await createHarness({ store: storeKind, env });
    state.customer = await state.harness.enrollUser('customer_1');
    state.reviewer = await enrollWithRoles(state.harness, 'rita', ['reviewer:finance']);
    state.client = await state.harness.createClient('Refund agent');
    state.audit = watchAudit(state.harness);
  }
  afterEach(() => state.harness.close());

  const ask = async (transactionId = 'txn_1', details = pay(transactionId)) => (await bcAuthorize(state.harness, state.client, { login_hint: state.customer.sub, details })).body.auth_req_id as string;
  const inbox = async (user: EnrolledUser) => ((await device(state.harness, user, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);
  const stateOf = async (id: string) => (await state.harness.admin('GET', `/requests/${id}`)).body.request.state as string;

  return Object.assign(state, { start, ask, inbox, stateOf });
}
