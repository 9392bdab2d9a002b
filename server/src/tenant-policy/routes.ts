import { CountersignError, tenantName } from '@countersign/shared';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { readJson } from '../http/index.ts';
import { policySchema, unreachableEscalation, type Policy } from '../policy/index.ts';
import { changePolicy } from './change-policy.ts';
import { pointerToken } from './json-diff.ts';
import { policyProblems, type PolicyProblem } from './policy-problems.ts';
import { policyView, type TenantPolicyView } from './policy-view.ts';

/** Who made a change, as the audit names them: an operator's id or e-mail address. */
const actorName = z.string().regex(/^[A-Za-z0-9._:@+-]{1,128}$/, 'must be 1 to 128 letters, digits and ._:@+-');
const revision = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** `PUT` body: the policy (validated on its own, so its problems can be listed), and what the change is made against. */
export const putBody = z.strictObject({ policy: z.unknown(), expected_revision: revision.optional(), actor: actorName.optional() });
/** `DELETE` body (optional). */
export const deleteBody = z.strictObject({ expected_revision: revision.optional(), actor: actorName.optional() });

/** The tenant named in the path; a malformed one is refused, never looked up. */
function tenantOf(c: Context): string {
  const parsed = tenantName.safeParse(c.req.param('tenant'));
  if (!parsed.success) throw new CountersignError('invalid_request', 'tenant is malformed: lower-case letters, digits and -.');
  return parsed.data;
}

/**
 * The revision a change is made against: `expected_revision` in the body, or `If-Match` holding it
 * as the `ETag` of a `GET` gave it (`"3"`, quotes optional). Both given must agree.
 * @throws CountersignError `invalid_request` for a malformed `If-Match` or two that disagree.
 */
function expectedOf(c: Context, fromBody: number | undefined): number | undefined {
  const header = c.req.header('if-match');
  if (header === undefined) return fromBody;
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  if (!match) throw new CountersignError('invalid_request', 'If-Match must hold the policy revision, as the ETag of a GET gives it.');
  const fromHeader = Number(match[1]);
  if (fromBody !== undefined && fromBody !== fromHeader) throw new CountersignError('invalid_request', 'If-Match and expected_revision name different revisions.');
  return fromHeader;
}

/** Who makes the change: `X-Countersign-Actor`, else the body's `actor`, else `admin`. */
function actorOf(c: Context, fromBody: string | undefined): string {
  const header = c.req.header('x-countersign-actor');
  if (header === undefined) return fromBody ?? 'admin';
  const parsed = actorName.safeParse(header);
  if (!parsed.success) throw new CountersignError('invalid_request', 'X-Countersign-Actor must be 1 to 128 letters, digits and ._:@+-.');
  return parsed.data;
}

/**
 * The policy of a `PUT`, validated by the same schema as `POLICY_FILE`, and as the server is
 * configured: no escalation step at or past `requestExpiryMax` (seconds, `REQUEST_EXPIRY_MAX`;
 * see `unreachableEscalation`).
 * @throws CountersignError `invalid_policy` (400) with `problems`: `[{path, message}]`, each path a JSON pointer into the policy.
 */
function validPolicy(document: unknown, requestExpiryMax: number): Policy {
  const parsed = policySchema.safeParse(document);
  if (parsed.success) {
    const unreachable: PolicyProblem[] = unreachableEscalation(parsed.data.tiers, requestExpiryMax).map((problem) => ({ path: problem.path.map((token) => `/${pointerToken(token)}`).join(''), message: problem.message }));
    if (unreachable.length === 0) return parsed.data;
    throw invalidPolicy(unreachable);
  }
  throw invalidPolicy(policyProblems(parsed.error));
}

function invalidPolicy(problems: PolicyProblem[]): CountersignError {
  return new CountersignError('invalid_policy', `The policy is not valid: ${problems.length === 1 ? 'one problem' : `${problems.length} problems`}, listed in problems.`, { body: { problems } });
}

function answer(c: Context, view: TenantPolicyView): Response {
  return c.json(view, 200, { ETag: `"${view.revision}"` });
}

/**
 * The per-tenant approval policy on the admin API (bearer `ADMIN_TOKEN`, see `admin/routes.ts`):
 *
 * - `GET /tenants/{tenant}/policy` → {@link TenantPolicyView} (`ETag: "<revision>"`): the policy
 *   new requests of the tenant are rated under; `?revision=n` an earlier revision.
 * - `PUT /tenants/{tenant}/policy` `{policy, expected_revision?, actor?}` (or `If-Match`) → the new
 *   revision: validated as `POLICY_FILE` is, stored as revision + 1 by compare-and-swap, audited
 *   `policy_changed` with the actor and the diff.
 * - `DELETE /tenants/{tenant}/policy` (body `{expected_revision?, actor?}` optional, or `If-Match`)
 *   → the tenant goes back to the server's default as revision + 1, audited alike.
 *
 * The actor is `X-Countersign-Actor`, else the body's `actor`, else `admin`. The audit trail of the
 * changes: `GET /api/admin/audit?tenant=…&type=policy_changed`.
 *
 * @throws CountersignError `invalid_policy` (400, `problems`), `revision_conflict` (409, `revision`),
 *   `invalid_request` (400: body, tenant, `If-Match`, actor), `not_found` (an unknown `?revision`).
 * @see docs/policy.md
 */
export function registerTenantPolicyRoutes(app: Hono, deps: Deps): void {
  app.get('/tenants/:tenant/policy', async (c) => {
    const tenant = tenantOf(c);
    const asked = c.req.query('revision');
    if (asked === undefined) return answer(c, await policyView(deps, tenant));
    const wanted = /^\d{1,15}$/.test(asked) ? Number(asked) : Number.NaN;
    if (!Number.isSafeInteger(wanted)) throw new CountersignError('invalid_request', 'revision must be a whole number.');
    if (wanted > (await deps.policies.revision(tenant))) throw new CountersignError('not_found', 'The tenant has no such policy revision.');
    return answer(c, await policyView(deps, tenant, wanted));
  });

  app.put('/tenants/:tenant/policy', async (c) => {
    const tenant = tenantOf(c);
    const body = await readJson(c, putBody);
    if (body.policy === undefined) throw new CountersignError('invalid_request', 'policy is required.');
    const change = { tenant, policy: validPolicy(body.policy, deps.config.requestExpiryMax), expectedRevision: expectedOf(c, body.expected_revision), actor: actorOf(c, body.actor) };
    return answer(c, (await changePolicy(deps, change)).view);
  });

  app.delete('/tenants/:tenant/policy', async (c) => {
    const tenant = tenantOf(c);
    const body = await readJson(c, deleteBody, { optional: true });
    const change = { tenant, policy: null, expectedRevision: expectedOf(c, body.expected_revision), actor: actorOf(c, body.actor) };
    return answer(c, (await changePolicy(deps, change)).view);
  });
}
