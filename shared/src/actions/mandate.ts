import { z } from 'zod';
import { currencyCode, formatAmount, type FormattedAmount } from '../money/index.ts';
import { displayName, displayText, identifier } from '../schemas/text.ts';
import type { ActionDisplay } from './display.ts';
import { displayPrecondition, precondition } from './precondition.ts';
import { MANDATE_PERIODS, periodsTouched, type MandatePeriod } from './mandate-period.ts';
import { counted } from './words.ts';

/** The most payees one mandate may allow. */
export const MAX_MANDATE_PAYEES = 20;
/** The most spends a mandate may allow, in all or per period. */
export const MAX_MANDATE_SPENDS = 10_000;

const minor = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * An instant as a mandate states it: RFC 3339 in UTC to the second, `2026-12-01T00:00:00Z`. One
 * spelling per instant, so the signed bounds (and `details_hash`) have one form.
 */
export const mandateInstant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'must be an RFC 3339 UTC time to the second, e.g. 2026-12-01T00:00:00Z')
  .refine((text) => {
    const ms = Date.parse(text);
    return Number.isFinite(ms) && new Date(ms).toISOString() === text.replace('Z', '.000Z');
  }, 'is not a real date and time');

/** One currency's bounds: each spend from `per_spend_min_minor` to `per_spend_max_minor`, at most `total_minor` in all (per period when the mandate has one). */
export const mandateLimit = z
  .strictObject({
    /** ISO 4217 alphabetic code. */
    currency: currencyCode,
    /** The smallest one spend may be, minor units. */
    per_spend_min_minor: minor,
    /** The largest one spend may be, minor units. */
    per_spend_max_minor: minor,
    /** The most all spends may add up to, minor units: per `period` when set, else over the mandate's life. */
    total_minor: minor,
  })
  .superRefine((limit, ctx) => {
    if (limit.per_spend_min_minor > limit.per_spend_max_minor) ctx.addIssue({ code: 'custom', path: ['per_spend_min_minor'], message: 'must be at most per_spend_max_minor' });
    if (limit.per_spend_max_minor > limit.total_minor) ctx.addIssue({ code: 'custom', path: ['per_spend_max_minor'], message: 'must be at most total_minor' });
  });

/**
 * The `mandate` authorization details type: a standing permission, approved once, for the client to
 * make actions of type `covers` (payments) within bounds: to one of `payees`, each spend within its
 * currency's range, all spends within `total_minor` and `max_spends` (per UTC calendar `period`
 * when set, else in all), from `starts_at` until `ends_at`. Each spend is redeemed against it at
 * `/redeem` (see docs/mandates.md). A mandate is the only action of its request. Unknown members
 * are refused, not dropped.
 *
 * @see RFC 9396 §2; AP2 "intent mandate"; PSD2 RTS Art. 13 (trusted beneficiaries) for the shape of a standing consent
 */
export const mandateDetails = z
  .strictObject({
    type: z.literal('mandate'),
    /** The client's idempotency key for the mandate itself (each spend has its own). */
    transaction_id: identifier(64),
    /** The action type each spend must be. */
    covers: z.literal('payment'),
    /** Who may be paid: each spend's `payee` must be one of these, id and name. */
    payees: z
      .array(z.strictObject({ id: identifier(64), name: displayName(140) }))
      .min(1)
      .max(MAX_MANDATE_PAYEES),
    /** The bounds per currency; a spend in a currency not listed is refused. */
    limits: z.array(mandateLimit).min(1).max(5),
    /** The most spends, per period when `period` is set, else in all. */
    max_spends: z.number().int().min(1).max(MAX_MANDATE_SPENDS).optional(),
    /** The period `total_minor` and `max_spends` renew in; absent, they hold for the mandate's life. */
    period: z.enum(MANDATE_PERIODS).optional(),
    starts_at: mandateInstant,
    ends_at: mandateInstant,
    purpose: displayText(5000),
    /** Push the person a receipt for each spend. Off unless asked for. */
    receipts: z.boolean().optional(),
    /** Optional: spend only while this record is at this version; checked at each spend's `/redeem` (`stale_record`). */
    precondition: precondition.optional(),
  })
  .superRefine((details, ctx) => {
    const ids = details.payees.map((payee) => payee.id);
    if (new Set(ids).size !== ids.length) ctx.addIssue({ code: 'custom', path: ['payees'], message: 'each payee may be named once' });
    const currencies = details.limits.map((limit) => limit.currency);
    if (new Set(currencies).size !== currencies.length) ctx.addIssue({ code: 'custom', path: ['limits'], message: 'each currency may be limited once' });
    if (Date.parse(details.ends_at) <= Date.parse(details.starts_at)) ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'must be after starts_at' });
  });

/** A validated `mandate` action. */
export type MandateDetails = z.infer<typeof mandateDetails>;

/**
 * The most a mandate can move in all, per currency, in minor units: `total_minor` times the periods
 * its life touches (capped at `Number.MAX_SAFE_INTEGER`). What the policy weighs it by: a mandate of
 * EUR 200 a month for a year is EUR 2,400 of exposure.
 */
export function mandateExposure(details: MandateDetails): Record<string, number> {
  const times = details.period ? periodsTouched(Date.parse(details.starts_at), Date.parse(details.ends_at), details.period) : 1;
  const exposure: Record<string, number> = {};
  for (const limit of details.limits) exposure[limit.currency] = Math.min(Number.MAX_SAFE_INTEGER, limit.total_minor * times);
  return exposure;
}

/** One currency's bounds as the person reads them. */
export interface DisplayMandateLimit {
  currency: string;
  per_spend_min: FormattedAmount;
  per_spend_max: FormattedAmount;
  total: FormattedAmount;
}

/** A mandate's bounds as the person reads them. */
export interface DisplayMandate {
  payees: { id: string; name: string }[];
  limits: DisplayMandateLimit[];
  max_spends: number | null;
  period: MandatePeriod | null;
  /** ISO 8601. */
  starts_at: string;
  /** ISO 8601. */
  ends_at: string;
  receipts: boolean;
}

const PER: Record<MandatePeriod, string> = { day: 'a day', week: 'a week', month: 'a month' };
const DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** `1 Dec 2026, 00:00 UTC`. */
function instantText(instant: string): string {
  return `${DATE.format(new Date(instant))} UTC`;
}

/**
 * What the person sees for a mandate, in plain words: who may be paid, how much each time and in
 * all (per period or until the end), how many times, from when until when.
 * Title `Allow payments to ACME Utilities: up to EUR 200.00 a month`.
 */
export function displayMandate(details: MandateDetails): ActionDisplay {
  const limits = details.limits.map((limit) => ({
    currency: limit.currency,
    per_spend_min: formatAmount(limit.per_spend_min_minor, limit.currency),
    per_spend_max: formatAmount(limit.per_spend_max_minor, limit.currency),
    total: formatAmount(limit.total_minor, limit.currency),
  }));
  const per = details.period ? PER[details.period] : 'in all';
  const payees = details.payees.length === 1 ? details.payees[0]!.name : `${details.payees[0]!.name} and ${details.payees.length - 1} more`;
  const totals = limits.map((limit) => `${limit.total.formatted_code} ${per}`).join(', ');
  return {
    type: 'mandate',
    verb: 'Allow',
    title: `Allow payments to ${payees}: up to ${totals}`,
    summary: `Standing permission: up to ${totals} to ${payees}`,
    mandate: {
      payees: details.payees.map((payee) => ({ id: payee.id, name: payee.name })),
      limits,
      max_spends: details.max_spends ?? null,
      period: details.period ?? null,
      starts_at: details.starts_at,
      ends_at: details.ends_at,
      receipts: details.receipts ?? false,
    },
    fields: [
      { label: 'Payees', value: details.payees.map((payee) => `${payee.name} (${payee.id})`).join(', ') },
      ...limits.map((limit) => ({ label: limits.length === 1 ? 'Each payment' : `Each payment in ${limit.currency}`, value: `${limit.per_spend_min.formatted_code} to ${limit.per_spend_max.formatted_code}` })),
      ...limits.map((limit) => ({ label: limits.length === 1 ? 'In all' : `In all in ${limit.currency}`, value: `up to ${limit.total.formatted_code} ${per}` })),
      ...(details.max_spends ? [{ label: 'How many', value: `at most ${counted(details.max_spends, 'payment')} ${per}` }] : []),
      { label: 'From', value: instantText(details.starts_at) },
      { label: 'Until', value: instantText(details.ends_at) },
      { label: 'Purpose', value: details.purpose },
      { label: 'Receipts', value: details.receipts ? 'A notification for each payment' : 'None' },
      { label: 'Transaction', value: details.transaction_id },
      ...(details.precondition ? [displayPrecondition(details.precondition)] : []),
    ],
  };
}
