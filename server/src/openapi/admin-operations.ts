import { createClientBody, createEnrollmentBody, createUserBody, setRolesBody } from '@countersign/shared';
import { z } from 'zod';
import { testRequestBody } from '../console/index.ts';
import { deletePolicyBody, putPolicyBody } from '../tenant-policy/index.ts';
import { adminMandateRevoked, adminRequestView, auditEvents, clientRecord, enrollment, mandateEvidence, pendingRequests, tenantPolicyView, testRequestCreated, testRequestSamples, userRecord, userWithBlocks } from './admin-schemas.ts';
import { ADMIN_ERRORS, BODY_ERRORS, COMMON_ERRORS, type ErrorSpec } from './errors.ts';
import type { Method, Operation } from './operation.ts';

/** A JSON answer: its description and schema. */
export const json = (description: string, schema: z.ZodType) => ({ description, schema });
/** The tenant of a read (`default` unless given). */
export const tenantQuery = z.object({ tenant: z.string().optional() });
const policyHeaders = { ETag: 'The revision, quoted.' };
/** A policy change is made against a revision: `expected_revision` in the body, or `If-Match` holding it quoted. */
const ifMatch = z.object({ 'if-match': z.string().optional().describe('The expected revision, quoted (as the ETag).') });

/** An operation of the operator API: `/api/admin` prefixed, with the refusals every admin call shares (and a body's, when it reads one). */
export function admin(method: Method, path: string, operation: Omit<Operation, 'method' | 'path' | 'tag' | 'caller'>): Operation {
  const errors: ErrorSpec[] = [...COMMON_ERRORS, ...(operation.body ? BODY_ERRORS : []), ...ADMIN_ERRORS, ...operation.errors];
  return { ...operation, method, path: `/api/admin${path}`, tag: 'admin', caller: 'admin', errors };
}

/** The operator's operations (docs/design.md "Operator"), all under `/api/admin`, bearer `ADMIN_TOKEN`. */
export const ADMIN_OPERATIONS: readonly Operation[] = [
  admin('post', '/clients', {
    summary: 'Register a client',
    body: { json: createClientBody },
    responses: { 201: json('The client, with `client_secret` when it has one (shown once).', clientRecord) },
    errors: ['invalid_client_metadata'],
  }),
  admin('post', '/users', {
    summary: 'Create a user (posting an existing one changes nothing)',
    body: { json: createUserBody },
    responses: { 200: json('The user existed.', userRecord), 201: json('Created.', userRecord) },
    errors: [],
  }),
  admin('get', '/users/:sub', { summary: 'A user and their blocks', query: tenantQuery, responses: { 200: json('The user.', userWithBlocks) }, errors: ['not_found'] }),
  admin('put', '/users/:sub/roles', { summary: "Replace a user's roles", body: { json: setRolesBody }, responses: { 200: json('The user.', userRecord) }, errors: ['not_found'] }),
  admin('delete', '/users/:sub/blocks/:client_id', {
    summary: 'Clear a "this wasn\'t me" block',
    query: tenantQuery,
    responses: { 204: { description: 'Cleared.' } },
    errors: ['not_found'],
  }),
  admin('get', '/tenants/:tenant/policy', {
    summary: "A tenant's policy (or the default), at a revision",
    query: z.object({
      revision: z
        .string()
        .regex(/^[0-9]+$/)
        .optional(),
    }),
    responses: { 200: { ...json('The policy.', tenantPolicyView), headers: policyHeaders } },
    errors: ['not_found'],
  }),
  admin('put', '/tenants/:tenant/policy', {
    summary: "Set a tenant's policy (compare-and-swap on its revision)",
    body: { json: putPolicyBody },
    headers: ifMatch,
    responses: { 200: { ...json('The new revision.', tenantPolicyView), headers: policyHeaders } },
    errors: ['invalid_policy', 'revision_conflict'],
  }),
  admin('delete', '/tenants/:tenant/policy', {
    summary: "Drop a tenant's own policy (back to the default)",
    body: { json: deletePolicyBody, optional: true },
    headers: ifMatch,
    responses: { 200: { ...json('The new revision.', tenantPolicyView), headers: policyHeaders } },
    errors: ['revision_conflict'],
  }),
  admin('post', '/mandates/:auth_req_id/revoke', {
    summary: 'Stop a standing mandate',
    query: tenantQuery,
    responses: { 200: json('Revoked.', adminMandateRevoked) },
    errors: ['not_found'],
  }),
  admin('get', '/mandates/:auth_req_id/evidence', {
    summary: "A mandate's evidence bundle",
    query: tenantQuery,
    responses: { 200: json('The evidence (an attachment).', mandateEvidence) },
    errors: ['not_found'],
  }),
  admin('post', '/users/:sub/enrollments', {
    summary: 'A single-use enrollment code and link (15 minutes)',
    body: { json: createEnrollmentBody, optional: true },
    responses: { 201: json('The enrollment.', enrollment) },
    errors: ['not_found'],
  }),
  admin('get', '/requests', {
    summary: 'Pending requests, soonest deadline first',
    query: z.object({
      state: z.literal('pending'),
      tenant: z.string().optional(),
      q: z.string().max(128).optional().describe('Keeps those whose sub, client id or name, or binding message contains it, case-insensitive.'),
      cursor: z.string().optional().describe('The `next_cursor` of the page before, as it is.'),
      limit: z
        .string()
        .regex(/^[0-9]+$/)
        .optional()
        .describe('1 to 500, 100 unless given.'),
    }),
    responses: { 200: json('The requests.', pendingRequests) },
    errors: [],
  }),
  admin('get', '/requests/:auth_req_id', {
    summary: 'The stored request and its display',
    query: tenantQuery,
    responses: { 200: json('The request.', adminRequestView) },
    errors: ['not_found'],
  }),
  admin('get', '/audit', {
    summary: "A request's audit events, or a tenant's policy changes",
    query: z.object({ auth_req_id: z.string().optional(), tenant: z.string().optional(), type: z.literal('policy_changed').optional() }),
    responses: { 200: json('Events in chain order.', auditEvents) },
    errors: [],
  }),
  admin('get', '/test-requests/samples', { summary: 'The sample actions of the console', responses: { 200: json('The samples.', testRequestSamples) }, errors: [] }),
  admin('post', '/test-requests', {
    summary: "A test request from the tenant's console client",
    body: { json: testRequestBody },
    responses: { 201: json('Made; it can be decided but never redeemed.', testRequestCreated) },
    errors: ['unknown_user_id', 'invalid_authorization_details', 'invalid_binding_message', 'no_approver', 'client_blocked', 'too_many_pending', 'velocity_exceeded', 'transaction_conflict'],
  }),
];
