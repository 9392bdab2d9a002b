import { REQUEST_STATES } from '@countersign/shared';
import { z } from 'zod';

// Response shapes of what the person sees, written from the TypeScript types in
// shared/src/schemas/ciba.ts, shared/src/actions/display.ts and shared/src/money/ (which have no
// zod schema: the server builds them, nobody sends them). Objects are loose where docs/design.md
// lets fields be added to a fixed shape; the members named are required as the types say. Each `id`
// is its name under `components.schemas`, where the document refers to it with `$ref`.

/** `FormattedAmount` (shared/src/money/format-amount.ts): minor units and their ISO 4217 rendering. */
export const formattedAmount = z
  .looseObject({
    amount_minor: z.number().int(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    exponent: z.number().int().min(0),
    decimal: z.string(),
  })
  .meta({ id: 'FormattedAmount' });

/**
 * `DisplayValue`: one JSON value of a tool call's arguments as the person reads it. Its `list` and
 * `object` kinds nest further values, described here by their `kind` only: the document stays
 * free of recursive schemas, which not every OpenAPI tool reads.
 */
const displayValue = z
  .looseObject({
    kind: z.enum(['text', 'number', 'boolean', 'null', 'list', 'object']),
    preview: z.string().optional(),
    full: z.string().optional(),
    folded: z.boolean().optional(),
    text: z.string().optional(),
    items: z.array(z.looseObject({ kind: z.string() })).optional(),
    members: z.array(z.looseObject({ name: z.string(), value: z.looseObject({ kind: z.string() }) })).optional(),
  })
  .meta({ id: 'DisplayValue' });

/** `DisplayRecords`: what a deletion removes. */
const displayRecords = z.looseObject({ kind: z.string(), system: z.string(), count: z.number().int().min(1), ids: z.array(z.string()), more: z.number().int().min(0), reversible: z.boolean() });

/** `DisplayMessage`: who a mass message goes to, and what it says. */
const displayMessage = z.looseObject({ channel: z.string(), recipient_count: z.number().int().min(1), list: z.string().nullable(), sample: z.array(z.string()), subject: z.string().nullable(), body: z.string() });

/** `DisplayAccess`: an access change in words. */
const displayAccess = z.looseObject({ kind: z.enum(['grant', 'revoke', 'change']), principal: z.string(), resource: z.string(), from_role: z.string().nullable(), to_role: z.string().nullable() });

/** `DisplayChange`: one field of a record change, its value now and after. */
const displayChange = z.looseObject({ field: z.string(), from: displayValue, to: displayValue });

/** `DisplayMandate` (shared/src/actions/mandate.ts): a mandate's bounds as the person reads them. */
const displayMandate = z.looseObject({
  payees: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  limits: z.array(z.looseObject({ currency: z.string().regex(/^[A-Z]{3}$/), per_spend_min: formattedAmount, per_spend_max: formattedAmount, total: formattedAmount })),
  max_spends: z.number().int().min(1).nullable(),
  period: z.enum(['day', 'week', 'month']).nullable(),
  starts_at: z.iso.datetime(),
  ends_at: z.iso.datetime(),
  receipts: z.boolean(),
});

/** `ActionDisplay` (shared/src/actions/display.ts): one action as the person reads it. */
export const actionDisplay = z
  .looseObject({
    type: z.string(),
    verb: z.string(),
    title: z.string(),
    summary: z.string(),
    amount: formattedAmount.optional(),
    fields: z.array(z.looseObject({ label: z.string(), value: z.string() })),
    arguments: z.array(z.looseObject({ name: z.string(), value: displayValue })).optional(),
    warnings: z.array(z.string()).optional(),
    records: displayRecords.optional(),
    message: displayMessage.optional(),
    access: displayAccess.optional(),
    changes: z.array(displayChange).optional(),
    mandate: displayMandate.optional(),
  })
  .meta({ id: 'ActionDisplay' });

/** A request state (fixed, `REQUEST_STATES`). */
export const requestState = z.enum(REQUEST_STATES);

/** `ApprovalParty`: `customer` or `role:<role>`. */
export const approvalParty = z.string().regex(/^(customer|role:.+)$/);

/** `Outcome`: `unknown` until the executor reports, then its report. */
export const outcome = z
  .looseObject({
    status: z.enum(['unknown', 'succeeded', 'failed']),
    reference: z.string().optional(),
    reason: z.string().optional(),
  })
  .meta({ id: 'Outcome' });

/** `EscalationView`: who holds a request on its escalation chain, and until when. */
export const escalationView = z
  .looseObject({
    step: z.number().int().min(0),
    steps: z.number().int().min(0),
    holder: z.array(approvalParty),
    next_at: z.iso.datetime().nullable(),
    next: approvalParty.nullable(),
  })
  .meta({ id: 'EscalationView' });

/** `PartyDisplay`: where one required party stands. */
export const partyDisplay = z
  .looseObject({
    party: approvalParty,
    label: z.string(),
    status: z.enum(['approved', 'waiting']),
    approved_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'PartyDisplay' });

/** `RequestDisplay`: everything the approver PWA (and the operator) sees of one request. */
export const requestDisplay = z
  .looseObject({
    auth_req_id: z.string(),
    state: requestState,
    client_name: z.string(),
    binding_message: z.string().nullable(),
    actions: z.array(actionDisplay),
    totals: z.array(formattedAmount),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    seconds_left: z.number().int().min(0),
    outcome: orNull(outcome),
    tier: z.string(),
    approvals: z.array(partyDisplay),
    escalation: escalationView.optional(),
    number_matching: z.looseObject({ candidates: z.array(z.string()) }).nullable(),
    test: z.boolean().optional(),
    viewer: z.looseObject({ party: approvalParty.nullable(), can_decide: z.boolean(), can_report: z.boolean() }).nullable(),
  })
  .meta({ id: 'RequestDisplay' });

/** WebAuthn options as the server sends them (`PublicKeyCredential…OptionsJSON`); only the challenge is named. */
export const passkeyPrompt = z.looseObject({ challenge: z.string().regex(/^[A-Za-z0-9_-]+$/) }).meta({ id: 'PasskeyPrompt' });

/** `MandateView` (shared/src/schemas/mandate-view.ts): a standing mandate as the person sees it. */
export const mandateView = z
  .looseObject({
    auth_req_id: z.string(),
    status: z.enum(['pending', 'active', 'revoked', 'expired']),
    client_name: z.string(),
    display: actionDisplay,
    period: z.looseObject({ start: z.string(), end: z.string() }).nullable(),
    remaining: z.array(z.looseObject({ currency: z.string(), total: formattedAmount, spent: formattedAmount, left: formattedAmount })),
    spends_left: z.number().int().nullable(),
    spends: z.array(
      z.looseObject({
        redemption_id: z.string(),
        transaction_id: z.string(),
        amount: formattedAmount,
        payee: z.looseObject({ id: z.string(), name: z.string() }),
        spent_at: z.string(),
        outcome,
      }),
    ),
    revoked_at: z.string().nullable(),
    ends_at: z.string(),
  })
  .meta({ id: 'MandateView' });

/**
 * `schema` or null. Not `.nullable()`: on a schema with an `id` (a component), that is generated as
 * `allOf: [{$ref}, {type: [object, null]}]`, which null cannot satisfy.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}
