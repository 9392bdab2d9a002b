import { z } from 'zod';
import { formatAmount, type FormattedAmount } from '../money/index.ts';
import { accessChangeDetails, displayAccessChange, type AccessChangeDetails } from './access-change.ts';
import { deletionDetails, displayDeletion, type DeletionDetails } from './deletion.ts';
import type { ActionDisplay } from './display.ts';
import { displayMandate, mandateDetails, type MandateDetails } from './mandate.ts';
import { displayMessage, messageDetails, type MessageDetails } from './message.ts';
import { displayPayment, paymentDetails, type PaymentDetails } from './payment.ts';
import { displayRecordChange, recordChangeDetails, type RecordChangeDetails } from './record-change.ts';
import { displayToolCall } from './tool-call-display.ts';
import { toolCallDetails, type ToolCallDetails } from './tool-call.ts';

/** One registered `authorization_details` type: its zod schema and how a person sees it. */
export interface ActionType<T extends { type: string }> {
  schema: z.ZodType<T, unknown>;
  display(details: T): ActionDisplay;
}

/**
 * The registry of `authorization_details` types the server accepts (RFC 9396 §2), advertised in
 * discovery as `authorization_details_types_supported`.
 */
export const ACTION_TYPES = {
  payment: { schema: paymentDetails, display: displayPayment } satisfies ActionType<PaymentDetails>,
  deletion: { schema: deletionDetails, display: displayDeletion } satisfies ActionType<DeletionDetails>,
  message: { schema: messageDetails, display: displayMessage } satisfies ActionType<MessageDetails>,
  access_change: { schema: accessChangeDetails, display: displayAccessChange } satisfies ActionType<AccessChangeDetails>,
  record_change: { schema: recordChangeDetails, display: displayRecordChange } satisfies ActionType<RecordChangeDetails>,
  mandate: { schema: mandateDetails, display: displayMandate } satisfies ActionType<MandateDetails>,
  tool_call: { schema: toolCallDetails, display: displayToolCall } satisfies ActionType<ToolCallDetails>,
} as const;

/** The registered type names. */
export const ACTION_TYPE_NAMES = Object.keys(ACTION_TYPES) as (keyof typeof ACTION_TYPES)[];

/** One action of any registered type. */
export const authorizationDetail = z.discriminatedUnion('type', [paymentDetails, deletionDetails, messageDetails, accessChangeDetails, recordChangeDetails, mandateDetails, toolCallDetails]);

/** A validated action of any registered type. */
export type AuthorizationDetail = z.infer<typeof authorizationDetail>;

/**
 * `authorization_details`: one to ten actions, each of a registered type (RFC 9396 §2), whose
 * amounts of one currency add up to at most `Number.MAX_SAFE_INTEGER` minor units: the policy weighs
 * a request by its total per currency, and a larger sum has no exact value.
 */
export const authorizationDetails = z
  .array(authorizationDetail)
  .min(1)
  .max(10)
  .superRefine((details, ctx) => {
    // A mandate is approved, held and spent on its own; in a batch, one redeem would consume it.
    if (details.length > 1 && details.some((detail) => detail.type === 'mandate')) {
      ctx.addIssue({ code: 'custom', message: 'a mandate must be the only action of its request' });
      return;
    }
    const totals = new Map<string, number>();
    for (const detail of details) {
      if (detail.type !== 'payment') continue;
      const total = (totals.get(detail.currency) ?? 0) + detail.amount_minor;
      if (!Number.isSafeInteger(total)) {
        ctx.addIssue({ code: 'custom', message: `the amounts in ${detail.currency} add up to more than ${Number.MAX_SAFE_INTEGER} minor units` });
        return;
      }
      totals.set(detail.currency, total);
    }
  });

/** A validated `authorization_details` array. */
export type AuthorizationDetails = z.infer<typeof authorizationDetails>;

/** How a person sees one action (dispatches on its `type`). */
export function displayAction(detail: AuthorizationDetail): ActionDisplay {
  switch (detail.type) {
    case 'payment':
      return ACTION_TYPES.payment.display(detail);
    case 'deletion':
      return ACTION_TYPES.deletion.display(detail);
    case 'message':
      return ACTION_TYPES.message.display(detail);
    case 'access_change':
      return ACTION_TYPES.access_change.display(detail);
    case 'record_change':
      return ACTION_TYPES.record_change.display(detail);
    case 'mandate':
      return ACTION_TYPES.mandate.display(detail);
    case 'tool_call':
      return ACTION_TYPES.tool_call.display(detail);
  }
}

/**
 * What a request moves, per ISO 4217 currency: the sum of its payments' `amount_minor` (a safe
 * integer: `authorizationDetails` refuses larger sums), formatted, in code order. Empty when no
 * action moves money. What the person sees as a batch's totals, and what the policy weighs.
 */
export function totalsPerCurrency(details: readonly AuthorizationDetail[]): FormattedAmount[] {
  const totals = new Map<string, number>();
  for (const detail of details) if (detail.type === 'payment') totals.set(detail.currency, (totals.get(detail.currency) ?? 0) + detail.amount_minor);
  return [...totals.keys()].sort().map((currency) => formatAmount(totals.get(currency)!, currency));
}

/**
 * A request in one line, for a notification: its action's summary; for a batch of payments, how
 * many and the total per currency (`3 payments: EUR 1,200.00 + JPY 5,000`), since the first
 * payment alone would understate what one approval allows; for other batches, the first action's
 * summary and how many more.
 */
export function requestSummary(details: readonly AuthorizationDetail[]): string {
  const [first, ...rest] = details;
  if (!first) return '';
  if (rest.length === 0) return displayAction(first).summary;
  if (details.every((detail) => detail.type === 'payment'))
    return `${details.length} payments: ${totalsPerCurrency(details)
      .map((total) => total.formatted_code)
      .join(' + ')}`;
  return `${displayAction(first).summary} and ${rest.length} more`;
}
