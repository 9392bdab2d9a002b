import { describe, it } from 'vitest';
import { basic, type Raw } from '../support/raw-request.ts';
import { type Attack, BASIC_CHALLENGE, get } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { type World, FORM, JSON_TYPE } from './support/world.ts';

/**
 * Bad input on the client view of a request, `GET /requests/{id}` and `POST /requests/{id}`
 * (its client authentication in a form): credentials, unknown, malformed and foreign ids.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 */

const requestViewAttacks: Attack[] = [
  {
    name: 'no client authentication',
    request: get(
      (w) => `/requests/${w.pendingA}`,
      () => undefined,
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: 'a wrong client secret',
    request: get(
      (w) => `/requests/${w.pendingA}`,
      (w) => basic({ ...w.a, client_secret: 'x' }),
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: 'Basic header garbage',
    request: get(
      (w) => `/requests/${w.pendingA}`,
      () => 'Basic',
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  { name: 'an unknown auth_req_id', request: get(() => `/requests/${'u'.repeat(43)}`), status: 404, error: 'not_found' },
  { name: 'an auth_req_id of 10 KB', request: get(() => `/requests/${'u'.repeat(10_240)}`), status: 404, error: 'not_found' },
  { name: 'an auth_req_id with encoded braces', request: get((w) => `/requests/${w.pendingA}%7D%3A%7Bx`), status: 404, error: 'not_found' },
  { name: 'an auth_req_id with a malformed percent escape', request: get(() => '/requests/%zz%E0%A4%A'), status: 404, error: 'not_found' },
  {
    name: "another client's auth_req_id",
    request: get(
      (w) => `/requests/${w.pendingA}`,
      (w) => basic(w.b),
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: "another tenant's client",
    request: get(
      (w) => `/requests/${w.pendingA}`,
      (w) => basic(w.c),
    ),
    status: 404,
    error: 'not_found',
  },
];

/** `POST /requests/{id}`: the same view, its client authentication in a form. */
function postView(path: (w: World) => string, form: (w: World) => string, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const auth = options.auth ? options.auth(w) : undefined;
    return { method: 'POST', path: path(w), headers: { 'content-type': options.type ?? FORM, ...(auth === undefined ? {} : { authorization: auth }) }, body: form(w) };
  };
}
const secretForm = (client: (w: World) => { client_id: string; client_secret: string }) => (w: World) => new URLSearchParams(client(w)).toString();

const postViewAttacks: Attack[] = [
  {
    name: 'no client authentication',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '',
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: 'a JSON body instead of a form',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      (w) => JSON.stringify(w.a),
      { type: JSON_TYPE },
    ),
    status: 415,
    error: 'invalid_request',
  },
  {
    name: 'a parameter that is not client authentication',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => 'state=approved',
      { auth: (w) => basic(w.a) },
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a __proto__ parameter',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '__proto__=x',
      { auth: (w) => basic(w.a) },
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a repeated __proto__ parameter',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '__proto__=x&__proto__=y',
      { auth: (w) => basic(w.a) },
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a repeated client_id',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      (w) => `${secretForm((x) => x.a)(w)}&client_id=${w.b.client_id}`,
    ),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'client_secret_post for a client_secret_basic client',
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      secretForm((w) => w.a),
    ),
    status: 401,
    error: 'invalid_client',
    challenge: BASIC_CHALLENGE,
  },
  {
    name: "another client's auth_req_id",
    request: postView(
      (w) => `/requests/${w.pendingA}`,
      () => '',
      { auth: (w) => basic(w.b) },
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: 'an auth_req_id of 10 KB',
    request: postView(
      () => `/requests/${'u'.repeat(10_240)}`,
      () => '',
      { auth: (w) => basic(w.a) },
    ),
    status: 404,
    error: 'not_found',
  },
];

const TABLES: [string, Attack[]][] = [
  ['GET /requests/{id}', requestViewAttacks],
  ['POST /requests/{id}', postViewAttacks],
];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
