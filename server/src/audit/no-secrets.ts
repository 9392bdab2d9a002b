import type { AuditDetailValue, AuditEvent } from './audit-event.ts';

/**
 * Detail members that name a credential. Code builds `detail`, so one of these is a bug that must
 * fail loudly in tests, never a value to store: the audit trail is read by operators and exported.
 */
const SECRET_NAMES = /^(access_token|id_token|refresh_token|token|client_secret|secret|client_assertion|assertion|client_notification_token|notification_token|enrollment_code|password|cookie|session|session_id|nonce|challenge|signing_key|private_key|admin_token)$/i;

/** A compact JWS/JWT (RFC 7515 §7.1): an approval token, an id_token or a client assertion. */
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

/**
 * The event without `undefined` members, with any JWT-shaped text in `detail` values replaced by
 * `[redacted]` (values such as an outcome's `reference` come from clients, and a client may paste
 * a token there).
 *
 * @throws TypeError when a `detail` member is named like a credential (`client_secret`, `token`…).
 */
export function withoutSecrets(event: AuditEvent): AuditEvent {
  const clean = Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined)) as unknown as AuditEvent;
  if (!event.detail) return clean;
  const detail: Record<string, AuditDetailValue> = {};
  for (const [name, value] of Object.entries(event.detail)) {
    if (SECRET_NAMES.test(name)) throw new TypeError(`audit detail must not carry a credential: ${name}`);
    if (value !== undefined) detail[name] = typeof value === 'string' ? value.replace(JWT, '[redacted]') : value;
  }
  return { ...clean, detail };
}
