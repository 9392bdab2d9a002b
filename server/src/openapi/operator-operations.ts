import { z } from 'zod';
import { admin, json, tenantQuery } from './admin-operations.ts';
import type { Operation } from './operation.ts';
import { clientPage, clientView, operatorDeviceList, revokedDevice, rotatedClient, userExport, userPage } from './operator-schemas.ts';

/**
 * A page of a list (admin/page.ts `readPageQuery`): `limit` 1 to 200 (50 unless given), `cursor`
 * the `next_cursor` of the page before, `q` at most 128 characters. Anything else is 400 `invalid_request`.
 */
const pageQuery = tenantQuery.extend({
  q: z.string().max(128).optional().describe('Keeps what contains it, case-insensitive.'),
  cursor: z.string().optional().describe('The `next_cursor` of the page before, as it is.'),
  limit: z
    .string()
    .regex(/^[0-9]+$/)
    .optional()
    .describe('1 to 200, 50 unless given.'),
});

/**
 * The operator tools (docs/operator-tools.md: admin/client-routes.ts, admin/operator-user-routes.ts),
 * every one `?tenant=` (`default` when absent). A path id not shaped like one, or one of another
 * tenant, is 404 `not_found`; a malformed tenant, limit, cursor or `q` is 400 `invalid_request`
 * (in `COMMON_ERRORS`).
 */
export const OPERATOR_OPERATIONS: readonly Operation[] = [
  admin('get', '/users', {
    summary: "A page of the tenant's users, by sub, searched with `q` (sub or display name)",
    query: pageQuery,
    responses: { 200: json('The page.', userPage) },
    errors: [],
  }),
  admin('get', '/users/:sub/devices', {
    summary: "A user's devices, oldest first (all of them: never a next page)",
    query: tenantQuery,
    responses: { 200: json('The devices (never a public key or a counter).', operatorDeviceList) },
    errors: ['not_found'],
  }),
  admin('delete', '/users/:sub/devices/:device_id', {
    summary: "Revoke a user's lost device; their other devices are told by push",
    query: tenantQuery,
    responses: { 200: json('Revoked; `notified` push subscriptions accepted the notice.', revokedDevice) },
    errors: ['not_found'],
  }),
  admin('get', '/users/:sub/export', {
    summary: 'What the server holds about a user, as a JSON download (audited `user_exported`)',
    query: tenantQuery,
    responses: { 200: { ...json('The export.', userExport), headers: { 'Content-Disposition': 'attachment; filename="countersign-user-<sub>.json"' } } },
    errors: ['not_found'],
  }),
  admin('get', '/clients', {
    summary: "A page of the tenant's clients, by client_id, searched with `q` (id or name)",
    query: pageQuery,
    responses: { 200: json('The page.', clientPage) },
    errors: [],
  }),
  admin('get', '/clients/:client_id', { summary: 'A client', query: tenantQuery, responses: { 200: json('The client.', clientView) }, errors: ['not_found'] }),
  admin('post', '/clients/:client_id/disable', {
    summary: 'Disable a client: every call its credentials make is refused until it is enabled',
    query: tenantQuery,
    responses: { 200: json('The client, disabled.', clientView) },
    errors: ['not_found'],
  }),
  admin('post', '/clients/:client_id/enable', {
    summary: 'Enable a disabled client again',
    query: tenantQuery,
    responses: { 200: json('The client, enabled.', clientView) },
    errors: ['not_found'],
  }),
  admin('post', '/clients/:client_id/secret', {
    summary: "Rotate a client's secret (refused for a key-based client and the console's own)",
    query: tenantQuery,
    responses: { 200: json('The client and its new `client_secret`, shown this once; the old one stops working.', rotatedClient) },
    errors: ['not_found'],
  }),
  admin('delete', '/clients/:client_id', {
    summary: "Delete a client: its credentials are an unknown client's from then on",
    query: tenantQuery,
    responses: { 204: { description: 'Deleted.' } },
    errors: ['not_found'],
  }),
];
