import type { FormattedAmount } from '../money/index.ts';

/** One labelled line of an action as the person sees it. */
export interface DisplayField {
  label: string;
  value: string;
}

/**
 * One JSON value of a tool call's arguments as the person reads it, computed by the server:
 * - `text`: a string; `full` is all of it, `preview` its first lines or characters, and `folded`
 *   says they differ (the approver app shows the preview with "Show all" one tap away). Characters a
 *   person cannot see are shown as `⟨U+200B⟩` in both (`revealUnseen`).
 * - `number`, `boolean`, `null`: `text` as JCS writes it (`1.5`, `true`, `null`).
 * - `list`: an array, each item in order; `object`: each member, name and value, in JCS order.
 */
export type DisplayValue =
  | { kind: 'text'; preview: string; full: string; folded: boolean }
  | { kind: 'number' | 'boolean' | 'null'; text: string }
  | { kind: 'list'; items: DisplayValue[] }
  | { kind: 'object'; members: DisplayMember[] };

/** One member of an object in a tool call's arguments: its name (unseen characters revealed) and value. */
export interface DisplayMember {
  name: string;
  value: DisplayValue;
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
  /**
   * `tool_call` only: each argument, structured (nested values, folded long strings). `fields` then
   * also holds an `Arguments` line, the same arguments on one line, for views with no room for this.
   */
  arguments?: DisplayMember[];
}
