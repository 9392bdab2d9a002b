import { CountersignError, outcomeBody, redeemBody, type ClientRequestView } from '@countersign/shared';
import { Hono } from 'hono';
import { authenticateClient, limitClient, type ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { isJcsNumber, readForm, readJson, readJsonDocument } from '../http/index.ts';
import { awaitingParties } from '../policy/index.ts';
import { escalationView, loadRequest, settleExpiry } from '../requests/index.ts';
import { readPresentedToken } from './presented-token.ts';
import { redeemPresented, type MandateSpender } from './redeem.ts';
import { reportOutcome, type SpendOutcomeReporter } from './report-outcome.ts';

/**
 * Audits a refused redemption. It is filed in the tenant of the approval it names when the token
 * is proven to be the one issued for it (`approval`, see `proveToken`), so the owner's trail shows every attempt on its approval, also one by a
 * client of another tenant (whose tenant the event's `detail` names); otherwise in the caller's.
 */
async function auditRefusal(deps: Deps, client: ClientRecord, error: unknown, endpoint: string, approval?: { auth_req_id: string; tenant: string }): Promise<void> {
  if (error instanceof CountersignError && error.expose) {
    const foreign = approval !== undefined && approval.tenant !== client.tenant;
    await deps.audit.record({
      type: 'refused',
      reason: error.code,
      tenant: approval?.tenant ?? client.tenant,
      client_id: client.client_id,
      channel: 'agent',
      ...(approval ? { auth_req_id: approval.auth_req_id } : {}),
      // `stale_record` names the records whose version moved: the executor's own identifiers, no secret.
      detail: { endpoint, ...(foreign ? { client_tenant: client.tenant } : {}), ...(Array.isArray(error.body?.records) ? { records: error.body.records.join(',') } : {}) },
    });
  }
}

/** The client authentication members a JSON body may carry (see `clientAuthMembers`). */
const AUTH_MEMBERS = ['client_id', 'client_secret', 'client_assertion_type', 'client_assertion'] as const;
type AuthMember = (typeof AUTH_MEMBERS)[number];

/** Splits a JSON body into its client authentication members, as the form-like parameters `authenticateClient` reads, and the rest. */
function splitAuth<T extends Partial<Record<AuthMember, string>>>(body: T): { auth: Record<string, string>; rest: Omit<T, AuthMember> } {
  const auth: Record<string, string> = {};
  const rest: Record<string, unknown> = { ...body };
  for (const name of AUTH_MEMBERS) {
    if (body[name] !== undefined) auth[name] = body[name];
    delete rest[name];
  }
  return { auth, rest: rest as Omit<T, AuthMember> };
}

/**
 * The client's view of one of its own requests: its state, the deadline of that state (a pending
 * request's decision, an approved one's redemption), the outcome once reported, and while pending
 * the parties it still waits for (`awaiting`). A request of another client, or of no one, is not
 * found: the answer does not tell the two apart (docs/design.md guarantee 5).
 * @throws CountersignError `not_found` (404).
 */
async function clientView(deps: Deps, client: ClientRecord, authReqId: string): Promise<ClientRequestView> {
  const found = await loadRequest(deps.store, client.tenant, authReqId);
  if (!found || found.client_id !== client.client_id) throw new CountersignError('not_found', 'No such request.');
  const request = await settleExpiry(deps, found);
  const outcome = request.outcome && request.outcome.status !== 'unknown' ? request.outcome : null;
  return {
    auth_req_id: request.auth_req_id,
    state: request.state,
    expires_at: new Date(request.state === 'pending' ? request.expires_at : (request.approval_expires_at ?? request.expires_at)).toISOString(),
    outcome,
    // Which parties the agent is still waiting on (the user, a reviewer of a role), while pending.
    awaiting: request.state === 'pending' ? awaitingParties({ parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] }) : [],
    // Who holds it on its escalation chain, and until when (docs/escalation.md).
    ...(request.escalation?.length ? { escalation: escalationView(request) } : {}),
    ...(request.expiry_reason ? { expiry_reason: request.expiry_reason } : {}),
  };
}

/**
 * The executor's side: `POST /redeem`, `POST /redemptions/{id}/outcome`, and the client's view
 * of a request ({@link clientView}) at `GET /requests/{auth_req_id}` and `POST /requests/{auth_req_id}`.
 * All authenticate the client: `/redeem` and the outcome with its registered method, read from the
 * header or from the JSON body's client authentication members (the body is read first, so a
 * malformed one answers `invalid_request` before any credential is checked); the GET, which has no
 * body, with HTTP Basic only (a client_secret_post client sends the same secret there); the POST
 * with a form of nothing but client authentication (RFC 6749 §2.3.1 `client_secret_post`, RFC 7523
 * §2.2 `private_key_jwt`), so every method reads the view. Each is rate limited per client
 * (`limitClient`: `/redeem` and the outcome 429 `too_many_requests`, the view `slow_down` against
 * `/token`'s limit, as polling it is polling), nothing stored or audited over a limit.
 */
export function redemptionRoutes(deps: Deps, options: { spendMandate?: MandateSpender; reportSpendOutcome?: SpendOutcomeReporter } = {}): Hono {
  const app = new Hono();

  app.post('/redeem', async (c) => {
    const { data, inexactNumbers, depth } = await readJsonDocument(c, redeemBody);
    const { auth, rest: body } = splitAuth(data);
    const client = await authenticateClient(c, deps, auth);
    // Before the try: a call over the client's limit is not audited, so a flood stores nothing.
    await limitClient(deps, 'redeem', client);
    let token: ReturnType<typeof readPresentedToken> | undefined;
    try {
      token = readPresentedToken(deps.config.publicUrl, body.token);
      // The body's other members are strings (the schema says so), so its depth and numbers are the action's.
      // A number written as JCS writes it (`49000`, or `1.5` in a tool call's arguments) hashes as
      // written; any other spelling (`49000.0`, `1.50`) cannot be the approved text.
      const numbersExact = inexactNumbers.every((number) => number.path[0] !== 'authorization_details' || isJcsNumber(number.text));
      const presented = { details: body.authorization_details, numbersExact, depth };
      const result = await redeemPresented(deps, client, token, presented, body.current_versions, options.spendMandate);
      return c.json(result, 200, { 'Cache-Control': 'no-store' });
    } catch (error) {
      // Proven to be the token issued for the approval it names: a refusal is filed under it.
      const approval = token?.authentic ? { auth_req_id: token.claims.auth_req_id, tenant: token.claims.tenant } : undefined;
      await auditRefusal(deps, client, error, 'redeem', approval);
      throw error;
    }
  });

  app.post('/redemptions/:redemption_id/outcome', async (c) => {
    const { auth, rest: report } = splitAuth(await readJson(c, outcomeBody));
    const client = await authenticateClient(c, deps, auth);
    await limitClient(deps, 'outcome', client);
    return c.json(await reportOutcome(deps, client, c.req.param('redemption_id'), report, options.reportSpendOutcome), 200, { 'Cache-Control': 'no-store' });
  });

  app.get('/requests/:auth_req_id', async (c) => {
    const client = await authenticateClient(c, deps, {}, { bodyless: true });
    await limitClient(deps, 'requestView', client);
    return c.json(await clientView(deps, client, c.req.param('auth_req_id')), 200, { 'Cache-Control': 'no-store' });
  });

  // The same view for clients whose credentials travel in a body: client_secret_post and private_key_jwt.
  app.post('/requests/:auth_req_id', async (c) => {
    const form = await readForm(c, { optional: true });
    const unknown = Object.keys(form).find((name) => !(AUTH_MEMBERS as readonly string[]).includes(name));
    if (unknown !== undefined) throw new CountersignError('invalid_request', `The parameter ${unknown.slice(0, 64)} is not known here: only client authentication is sent.`);
    const client = await authenticateClient(c, deps, form);
    await limitClient(deps, 'requestView', client);
    return c.json(await clientView(deps, client, c.req.param('auth_req_id')), 200, { 'Cache-Control': 'no-store' });
  });

  return app;
}
