/** Set-up shared by the push fatigue suite (docs/guarantees.md): one server per test, its pushes recorded. */
import { afterEach } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { bcAuthorize, device, pay, testPolicy, watchAudit, type SeenEvent } from '../policy-support.ts';

type Client = { client_id: string; client_secret: string };

/**
 * Registers, in the calling `describe`, the close of the server `start` makes under the test policy (changed by `change`):
 * customer_1, a client, the audit watched and every push's auth_req_id in `pushes`. Read them through the returned object.
 */
export function usePushFatigue(storeKind: 'memory' | 'redis') {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    client: Client;
    audit: SeenEvent[];
    pushes: string[];
  };

  async function start(change: (policy: any) => void = () => {}, passkey: Parameters<Harness['enrollUser']>[1] = {}) {
    state.harness = await createHarness({ store: storeKind, env: { POLICY_FILE: testPolicy(change) } });
    state.customer = await state.harness.enrollUser('customer_1', passkey);
    state.client = await state.harness.createClient('Refund agent');
    state.audit = watchAudit(state.harness);
    state.pushes = [];
    const notifyUser = state.harness.deps.push.notifyUser.bind(state.harness.deps.push);
    state.harness.deps.push.notifyUser = async (input) => {
      state.pushes.push(input.auth_req_id);
      return notifyUser(input);
    };
  }
  afterEach(() => state.harness.close());

  const ask = (transactionId: string, amount = 49_000) => bcAuthorize(state.harness, state.client, { login_hint: state.customer.sub, details: pay(transactionId, amount) });
  const inbox = async () => ((await device(state.harness, state.customer, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);
  /** A request of the elevated tier, which number matching guards. */
  const elevated = () => ask('txn_big', 250_000);

  return Object.assign(state, { start, ask, inbox, elevated });
}
