import { z } from 'zod';
import { historyEntry } from './device-schemas.ts';
import { auditEvent } from './admin-schemas.ts';

// Answers of the operator tools (docs/operator-tools.md), written from `ClientView`
// (admin/client-routes.ts), `UserView` and the export (admin/operator-user-routes.ts) and
// `OperatorDeviceView` (devices/operator-devices.ts). Every time is an RFC 3339 string: the views
// write them so, and admin/iso-times.ts would anyway.

/** The opaque cursor of the next page (pass it back as `cursor`), null on the last page. */
const nextCursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/)
  .nullable();

/** `ClientView`: a client as the operator sees it, never its secret's hash. */
export const clientView = z.looseObject({
  client_id: z.string(),
  tenant: z.string(),
  name: z.string(),
  token_delivery_mode: z.enum(['poll', 'ping', 'push']),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt']),
  profile: z.enum(['default', 'fapi-ciba']),
  backchannel_client_notification_endpoint: z.string().nullable(),
  created_at: z.iso.datetime(),
  disabled: z.boolean(),
  disabled_at: z.iso.datetime().nullable(),
  secret_rotated_at: z.iso.datetime().nullable(),
});

/** `GET /clients`: one page of the tenant's clients, by `client_id`. */
export const clientPage = z.looseObject({ clients: z.array(clientView), next_cursor: nextCursor });

/** `POST /clients/{client_id}/secret`: the client and its new secret, shown this once. */
export const rotatedClient = clientView.extend({ client_secret: z.string().min(1) });

/** `UserView`: a user as the operator's list shows it. */
export const userView = z.looseObject({
  sub: z.string(),
  tenant: z.string(),
  display_name: z.string(),
  roles: z.array(z.string()),
  created_at: z.iso.datetime(),
});

/** `GET /users`: one page of the tenant's users, by `sub`. */
export const userPage = z.looseObject({ users: z.array(userView), next_cursor: nextCursor });

/** `OperatorDeviceView`: never a public key nor a signature counter. */
export const operatorDevice = z.looseObject({
  device_id: z.string(),
  name: z.string(),
  credential_id: z.string(),
  aaguid: z.string(),
  transports: z.array(z.string()),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  push_subscriptions: z.number().int().min(0),
});

/** `GET /users/{sub}/devices`: all of them at once (at most `MAX_DEVICES_PER_USER`), so never a next page. */
export const operatorDeviceList = z.looseObject({ devices: z.array(operatorDevice), next_cursor: z.null() });

/** `DELETE /users/{sub}/devices/{device_id}`: revoked; `notified` push subscriptions accepted the notice. */
export const revokedDevice = z.looseObject({ device_id: z.string(), notified: z.number().int().min(0) });

/** `GET /users/{sub}/export`: what the server holds about the user (a JSON download). */
export const userExport = z.looseObject({
  exported_at: z.iso.datetime(),
  user: userView,
  devices: z.array(operatorDevice),
  blocks: z.array(z.looseObject({ client_id: z.string(), auth_req_id: z.string(), blocked_at: z.iso.datetime() })),
  /** The requests of the user's history, each with its audit trail in chain order. */
  requests: z.array(historyEntry.extend({ events: z.array(auditEvent) })),
});
