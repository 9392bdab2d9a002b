import type { FormattedAmount } from '../money/index.ts';

/** One labelled line of an action as the person sees it. */
export interface DisplayField {
  label: string;
  value: string;
}

/** An action as the person sees it, computed by the server from the stored details. */
export interface ActionDisplay {
  /** The `authorization_details` type, e.g. `payment`. */
  type: string;
  /** A one-line headline: `Pay EUR 490.00 to ACME Ltd`. */
  title: string;
  /** A shorter one-line summary, for notifications. */
  summary: string;
  /** The amount, for types that move money. */
  amount?: FormattedAmount;
  /** Every member of the action a person should read before deciding, in order. */
  fields: DisplayField[];
}
