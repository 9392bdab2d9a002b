import { describe, it } from 'vitest';
import { type Attack, token, get, device, admin } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { CIBA } from './support/world.ts';

/**
 * Known paths with the wrong method (a 405 with `Allow`, not a 404 that suggests a wrong URL)
 * and unknown paths.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 */

const methodAttacks: Attack[] = [
  // A known path with the wrong method: 405 with Allow, not a 404 that suggests a wrong URL.
  { name: 'GET /bc-authorize', request: get(() => '/bc-authorize'), status: 405, error: 'invalid_request', allow: 'POST', description: /^GET is not allowed here; this endpoint takes POST\.$/ },
  { name: 'GET /token', request: get(() => '/token'), status: 405, error: 'invalid_request', allow: 'POST', description: /takes POST\./ },
  { name: 'GET /redeem', request: get(() => '/redeem'), status: 405, error: 'invalid_request', allow: 'POST', description: /takes POST\./ },
  { name: 'GET /redemptions/{id}/outcome', request: get((w) => `/redemptions/${w.redemptionA}/outcome`), status: 405, error: 'invalid_request', allow: 'POST', description: /takes POST\./ },
  { name: 'PUT /token', request: (w) => ({ ...token(() => ({ grant_type: CIBA }))(w), method: 'PUT' }), status: 405, error: 'invalid_request', allow: 'POST', description: /^PUT is not allowed here/ },
  { name: 'DELETE /requests/{id}', request: (w) => ({ ...get(() => `/requests/${w.pendingA}`)(w), method: 'DELETE' }), status: 405, error: 'invalid_request', allow: 'GET, HEAD, POST', description: /takes GET or POST\./ },
  { name: 'POST /jwks.json', request: (w) => ({ ...get(() => '/jwks.json')(w), method: 'POST' }), status: 405, error: 'invalid_request', allow: 'GET, HEAD' },
  { name: 'an unknown device route', request: device((w) => ({ method: 'POST', path: '/admin', body: {}, as: w.alice })), status: 404, error: 'not_found' },
  { name: 'an unknown admin route', request: admin('DELETE', () => '/clients'), status: 404, error: 'not_found' },
  { name: 'an unknown API path', request: get(() => '/api/%zz'), status: 404, error: 'not_found' },
];

const TABLES: [string, Attack[]][] = [['methods and paths', methodAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
