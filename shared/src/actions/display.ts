import type { FormattedAmount } from '../money/index.ts';
import type { DisplayMandate } from './mandate.ts';

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
export type DisplayValue = { kind: 'text'; preview: string; full: string; folded: boolean } | { kind: 'number' | 'boolean' | 'null'; text: string } | { kind: 'list'; items: DisplayValue[] } | { kind: 'object'; members: DisplayMember[] };

/** One member of an object in a tool call's arguments: its name (unseen characters revealed) and value. */
export interface DisplayMember {
  name: string;
  value: DisplayValue;
}

/** An action as the person sees it, computed by the server from the stored details. */
export interface ActionDisplay {
  /** The `authorization_details` type, e.g. `payment`. */
  type: string;
  /**
   * What approving does, in one word, for the approve button: `Pay`, `Delete`, `Send`, `Grant`,
   * `Revoke`, `Change`, `Allow`; a tool call's is the tool's own name (`refund_order`), the only
   * word for it that is not the model's. Every title but a tool call's starts with it.
   */
  verb: string;
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
  /** What the person must not miss, shown before the fields: `Cannot be undone`. */
  warnings?: string[];
  /** `deletion` only: which records, how many in all, the first few ids and how many more. */
  records?: DisplayRecords;
  /** `message` only: where it goes, to how many, and the message as it will be sent. */
  message?: DisplayMessage;
  /** `access_change` only: the kind of change, in words, and the roles before and after. */
  access?: DisplayAccess;
  /** `record_change` only: each changed field, before → after. */
  changes?: DisplayChange[];
  /** `mandate` only: the standing permission's bounds. */
  mandate?: DisplayMandate;
}

/** The records a deletion removes, as the person sees them. */
export interface DisplayRecords {
  /** What kind of record, e.g. `customer`. */
  kind: string;
  /** The system they live in, e.g. `crm`. */
  system: string;
  /** How many records in all (at least `ids.length + more`). */
  count: number;
  /** The first few named ids, in the order sent. */
  ids: string[];
  /** How many of `count` are not in `ids`: "and N more". */
  more: number;
  /** False when the deletion cannot be undone. */
  reversible: boolean;
}

/** A message as the person sees it: exactly what will be sent, to whom. */
export interface DisplayMessage {
  /** The channel as a word: `Email`, `SMS`. */
  channel: string;
  recipient_count: number;
  /** The named recipient list, when the message goes to one. */
  list: string | null;
  /** A few of the recipients. */
  sample: string[];
  subject: string | null;
  /** The body, line feeds kept. */
  body: string;
}

/** An access change, in words. */
export interface DisplayAccess {
  /** `grant` (no role before), `revoke` (no role after) or `change`. */
  kind: 'grant' | 'revoke' | 'change';
  /** `Bo Li (u_9)`. */
  principal: string;
  /** `Payments prod (proj_1)`. */
  resource: string;
  from_role: string | null;
  to_role: string | null;
}

/** One changed field of a record: its value now and the value it will have. */
export interface DisplayChange {
  field: string;
  from: DisplayValue;
  to: DisplayValue;
}
