import { CIBA_GRANT_TYPE } from '@countersign/shared';
import { expect } from 'vitest';
import type { ClientAuthentication } from './client-authentication.ts';
import { createAgentClient } from './create-agent-client.ts';
import type { Fetch } from './types.ts';

// A recording fetch and a whole flow of calls, shared by the client-authentication-*.test.ts files: each
// states how one way of authenticating the client travels on every call.

/** The issuer, with a path, as some deployments have. */
export const ISSUER = 'https://cs.example/base';
export const CLIENT_ID = 'agent:1';
export const SECRET = 'sëcret+/=:%';
export const NOW_MS = 1_700_000_000_500;
export const details = [{ type: 'payment' as const, transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];

/** What the server answers on each path, so the client's parsing succeeds. */
export function answerFor(path: string): unknown {
  if (path.endsWith('/bc-authorize')) return { auth_req_id: 'req_1', expires_in: 300, interval: 5 };
  if (path.endsWith('/token')) return { access_token: 'at_1', token_type: 'Bearer', expires_in: 600, id_token: 'idt', authorization_details: details };
  if (path.endsWith('/redeem')) return { status: 'redeemed', redemption_id: 'rdm_1', idempotency_key: 'txn_1042', authorization_details: details, redeemed_at: '2025-01-01T00:00:00.000Z' };
  if (path.endsWith('/outcome')) return { status: 'succeeded' };
  return { auth_req_id: 'req_1', state: 'redeemed', expires_at: '2025-01-01T00:00:00.000Z', outcome: { status: 'succeeded' } };
}

export interface Sent {
  method: string;
  path: string;
  headers: Headers;
  /** The form or JSON body as an object; null without a body. */
  body: Record<string, unknown> | null;
}

/** A fetch double that records every call and answers it as the server would. */
export function recorder() {
  const sent: Sent[] = [];
  const fetch: Fetch = async (url, init) => {
    const headers = new Headers(init.headers);
    const path = new URL(url).pathname;
    const text = init.body as string | undefined;
    const body = text === undefined ? null : headers.get('content-type') === 'application/json' ? (JSON.parse(text) as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(text));
    sent.push({ method: init.method ?? 'GET', path, headers, body });
    expect(init.redirect).toBe('error');
    return Response.json(answerFor(path));
  };
  return { sent, fetch };
}

/** Every endpoint the client calls, once, in the order of a whole flow. */
export async function wholeFlow(auth: ClientAuthentication, ids = ['jti-1', 'jti-2', 'jti-3', 'jti-4', 'jti-5']) {
  const { sent, fetch } = recorder();
  const client = createAgentClient({ issuer: `${ISSUER}/`, clientId: CLIENT_ID, auth, fetch, now: () => NOW_MS, newId: () => ids.shift() ?? 'jti-more' });
  await client.requestApproval({ login_hint: 'alice', authorization_details: details });
  await client.pollToken('req_1');
  await client.redeem('at_1', details);
  await client.reportOutcome('rdm_1', { status: 'succeeded', reference: 're_1' });
  await client.getRequest('req_1');
  return { client, sent };
}

/** The members each call carries besides client authentication. */
export const OWN_MEMBERS = [
  { scope: 'openid', login_hint: 'alice', authorization_details: JSON.stringify(details) },
  { grant_type: CIBA_GRANT_TYPE, auth_req_id: 'req_1' },
  { token: 'at_1', authorization_details: details },
  { status: 'succeeded', reference: 're_1' },
];

/** A body less the members of client authentication. */
export function withoutAuthMembers(body: Record<string, unknown> | null) {
  const { client_id, client_secret, client_assertion, client_assertion_type, ...rest } = body ?? {};
  return rest;
}
