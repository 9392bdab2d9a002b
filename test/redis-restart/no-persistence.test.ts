import { beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_CACHE_TTL_MS } from '../../server/src/clients/index.ts';
import { keys } from '../../server/src/store/index.ts';
import { payment } from '../support/payment.ts';
import { a, credentials, customer, errorOf, outageSuite, viaA, viaB } from './support.ts';

/** Without persistence: what the restart lost is refused cleanly, never with a 500. */
describe('Redis restarts and outages, two instances', () => {
  const { start, restart, approved } = outageSuite();

  describe('without persistence', () => {
    beforeEach(() => start({ appendOnly: false }));

    it('refuses the requests the restart lost cleanly — invalid_grant, invalid_token, not found — never with a 500', async () => {
      const pending = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: 'txn_lost_1' }) });
      const ready = await approved('txn_lost_2');
      const client = (await a.store.get(keys.client(credentials.client_id)))!;

      await restart();
      // Each instance keeps a client record it read for up to CLIENT_CACHE_TTL_MS (5 s): past that,
      // the registration the restart lost is read again, and found missing.
      a.clock.advance(CLIENT_CACHE_TTL_MS / 1000);

      // Everything is gone, the client's registration too: it can no longer authenticate.
      expect((await errorOf(viaA.pollToken(pending.auth_req_id))).code).toBe('invalid_client');
      expect((await a.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie } })).status).toBe(401);

      // The operator registers the client again (here: puts its record back); its old requests stay gone.
      await a.store.set(keys.client(credentials.client_id), client);
      expect((await errorOf(viaA.pollToken(pending.auth_req_id))).code).toBe('invalid_grant');
      expect((await errorOf(viaB.pollToken(ready.auth_req_id))).code).toBe('invalid_grant');
      const redeem = await errorOf(viaB.redeem(ready.token, ready.details));
      expect([redeem.code, redeem.status]).toEqual(['invalid_token', 401]);
      expect((await errorOf(viaA.getRequest(ready.auth_req_id))).status).toBe(404);
    });
  });
});
