import { describe, it } from 'vitest';
import { basic } from '../support/raw-request.ts';
import { type Attack, BEARER_CHALLENGE, admin } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import type { World } from './support/world.ts';

/**
 * Every `/api/admin/*` route without the operator's bearer token, with a wrong one, and with
 * another scheme.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 */

/** Every admin route, each without a token, with a wrong one, and with another scheme. */
const ADMIN_ROUTES: [string, (w: World) => string, unknown][] = [
  ['POST /clients', () => '/clients', { name: 'Intruder' }],
  ['POST /users', () => '/users', { sub: 'intruder' }],
  ['POST /users/{sub}/enrollments', () => '/users/alice/enrollments', undefined],
  ['GET /requests/{id}', (w) => `/requests/${w.pendingA}`, undefined],
  ['GET /audit', (w) => `/audit?auth_req_id=${w.pendingA}`, undefined],
];

const adminAuthAttacks: Attack[] = ADMIN_ROUTES.flatMap(([route, path, body]): Attack[] => {
  const method = route.split(' ')[0]!;
  return [
    { name: `${route} without a bearer token`, request: admin(method, path, body, { auth: () => undefined }), status: 401, error: ['invalid_token', 'invalid_request'], challenge: BEARER_CHALLENGE },
    { name: `${route} with a wrong bearer token`, request: admin(method, path, body, { auth: (w) => `Bearer ${w.h.adminToken.slice(0, -1)}x` }), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
    { name: `${route} with a client's Basic credentials`, request: admin(method, path, body, { auth: (w) => basic(w.a) }), status: 400, error: 'invalid_request', challenge: BEARER_CHALLENGE },
    { name: `${route} with a bearer token of 10 KB`, request: admin(method, path, body, { auth: () => `Bearer ${'t'.repeat(10_240)}` }), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  ];
});

const TABLES: [string, Attack[]][] = [['/api/admin/*: bearer token', adminAuthAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
