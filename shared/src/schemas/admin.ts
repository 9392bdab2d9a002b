import { z } from 'zod';
import { displayText, identifier } from './text.ts';

/** A tenant name: lower-case letters, digits and `-`, 1 to 40 characters. */
export const tenantName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be lower-case letters, digits and -');

/** `POST /api/admin/clients` body. */
export const createClientBody = z.strictObject({
  name: displayText(80),
  token_delivery_mode: z.enum(['poll', 'ping', 'push']).default('poll'),
  backchannel_client_notification_endpoint: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  tenant: tenantName.default('default'),
});

/** `POST /api/admin/users` body. `sub` is what agents send as `login_hint`. */
export const createUserBody = z.strictObject({
  sub: identifier(128),
  display_name: displayText(80).optional(),
  tenant: tenantName.default('default'),
});

/** `POST /api/admin/users/{sub}/enrollments` body (optional). */
export const createEnrollmentBody = z.strictObject({
  tenant: tenantName.default('default'),
});
