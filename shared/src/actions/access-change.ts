import { z } from 'zod';
import { displayName, displayText, identifier } from '../schemas/text.ts';
import type { ActionDisplay } from './display.ts';
import { displayPrecondition, precondition } from './precondition.ts';

/** A role as the resource's system names it: `admin`, `billing:read`. */
export const accessRole = identifier(64);

/**
 * The `access_change` authorization details type (docs/design.md "Actions", fixed): `principal`'s
 * role on `resource` goes from `from_role` to `to_role`; `from_role: null` is a grant,
 * `to_role: null` a revocation (not both, and not the same role twice). Unknown members are
 * refused, not dropped.
 *
 * @see RFC 9396 §2
 */
export const accessChangeDetails = z
  .strictObject({
    type: z.literal('access_change'),
    /** The client's idempotency key for this action. */
    transaction_id: identifier(64),
    /** Who gains or loses access. */
    principal: z.strictObject({ id: identifier(128), name: displayName(140) }),
    /** What they gain or lose access to. */
    resource: z.strictObject({ id: identifier(128), name: displayName(140) }),
    /** The role they hold now, or null for none (a grant). */
    from_role: accessRole.nullable(),
    /** The role they will hold, or null for none (a revocation). */
    to_role: accessRole.nullable(),
    purpose: displayText(5000),
    /** Optional: run only while this record is at this version; checked at `/redeem` (`stale_record`). */
    precondition: precondition.optional(),
  })
  .superRefine((details, ctx) => {
    if (details.from_role === null && details.to_role === null) ctx.addIssue({ code: 'custom', path: ['to_role'], message: 'from_role and to_role may not both be null: that changes nothing' });
    else if (details.from_role === details.to_role) ctx.addIssue({ code: 'custom', path: ['to_role'], message: 'must differ from from_role: that changes nothing' });
  });

/** A validated `access_change` action. */
export type AccessChangeDetails = z.infer<typeof accessChangeDetails>;

/** Whether an access change grants a role, takes one away, or swaps one for another. */
export function accessChangeKind(details: Pick<AccessChangeDetails, 'from_role' | 'to_role'>): 'grant' | 'revoke' | 'change' {
  if (details.from_role === null) return 'grant';
  if (details.to_role === null) return 'revoke';
  return 'change';
}

/**
 * What the person sees for an access change, said in words: `Grant Bo Li admin on Payments prod`,
 * `Change Bo Li from viewer to admin on Payments prod`, `Revoke Bo Li's viewer on Payments prod`;
 * then who (name and id), on what, the role before and after.
 */
export function displayAccessChange(details: AccessChangeDetails): ActionDisplay {
  const kind = accessChangeKind(details);
  const who = details.principal.name;
  const on = details.resource.name;
  const title = kind === 'grant' ? `Grant ${who} ${details.to_role} on ${on}` : kind === 'revoke' ? `Revoke ${who}'s ${details.from_role} on ${on}` : `Change ${who} from ${details.from_role} to ${details.to_role} on ${on}`;
  const principal = `${who} (${details.principal.id})`;
  const resource = `${on} (${details.resource.id})`;
  return {
    type: 'access_change',
    verb: kind === 'grant' ? 'Grant' : kind === 'revoke' ? 'Revoke' : 'Change',
    title,
    summary: title,
    access: { kind, principal, resource, from_role: details.from_role, to_role: details.to_role },
    fields: [
      { label: 'Change', value: kind === 'grant' ? 'Grant of a role' : kind === 'revoke' ? 'Revocation of a role' : 'Change of role' },
      { label: 'Who', value: principal },
      { label: 'On', value: resource },
      { label: 'Role now', value: details.from_role ?? 'None' },
      { label: 'Role after', value: details.to_role ?? 'None (access removed)' },
      { label: 'Purpose', value: details.purpose },
      { label: 'Transaction', value: details.transaction_id },
      ...(details.precondition ? [displayPrecondition(details.precondition)] : []),
    ],
  };
}
