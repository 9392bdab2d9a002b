/** Set-up shared by the push fatigue suite (docs/guarantees.md): one server per test, its pushes recorded. */
import { afterEach } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../../support/harness.ts';
import { bcAuthorize, device, pay, testPolicy, watchAudit, type SeenEvent } from '../policy-support.ts';

export type Client = { client_id: string; client_secret: string };

/**
 * Registers, in the calling `describe`, the close of the server `start` makes under the test policy (changed by `change`):
 * customer_1, a client, the audit watched and every push's auth_req_id in `pushes`. Read them through the returned getters.
 */
export function usePushFatigue(storeKind: 'memory' | 'redis') {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  let audit: SeenEvent[];
  let pushes: string[];

  async function start(change: (policy: any) => void = () => {}, passkey: Parameters<Harness['enrollUser']>[1] = {}) {
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: testPolicy(change) } });
    customer = await harness.enrollUser('customer_1', passkey);
    client = await harness.createClient('Refund agent');
    audit = watchAudit(harness);
    pushes = [];
    const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
    harness.deps.push.notifyUser = async (input) => {
      pushes.push(input.auth_req_id);
      return notifyUser(input);
    };
  }
  afterEach(() => harness.close());

  const ask = (transactionId: string, amount = 49_000) => bcAuthorize(harness, client, { login_hint: customer.sub, details: pay(transactionId, amount) });
  const inbox = async () => ((await device(harness, customer, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);
  /** A request of the elevated tier, which number matching guards. */
  const elevated = () => ask('txn_big', 250_000);

  return {
    get harness() {
      return harness;
    },
    get customer() {
      return customer;
    },
    get client() {
      return client;
    },
    get audit() {
      return audit;
    },
    get pushes() {
      return pushes;
    },
    start,
    ask,
    inbox,
    elevated,
  };
}
