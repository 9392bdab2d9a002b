import { z } from 'zod';
import { displayLines, displayText, identifier } from '../schemas/text.ts';
import type { ActionDisplay } from './display.ts';
import { displayPrecondition, precondition } from './precondition.ts';
import { counted, countText } from './words.ts';

/** The channels a message may go out on, and how the person reads each: as a label, and in "Send … to". */
export const MESSAGE_CHANNELS = {
  email: { label: 'Email', noun: 'email' },
  sms: { label: 'SMS', noun: 'SMS' },
  push: { label: 'Push notification', noun: 'push notification' },
  chat: { label: 'Chat', noun: 'chat message' },
  in_app: { label: 'In-app message', noun: 'in-app message' },
  letter: { label: 'Letter', noun: 'letter' },
} as const;
/** A message's channel. */
export type MessageChannel = keyof typeof MESSAGE_CHANNELS;

/** The most recipients one message may count. */
export const MAX_RECIPIENTS = 1_000_000_000;
/** The most sample recipients one message may show. */
export const MAX_SAMPLE_RECIPIENTS = 10;

/**
 * The `message` authorization details type (docs/design.md "Actions", fixed): send `subject` and
 * `body`, exactly as stored, over `channel` to `recipients.count` people (a named `list`, a few of
 * them in `sample`). The body keeps its line breaks (see `displayLines`): what the person reads is
 * what is sent. Unknown members are refused, not dropped.
 *
 * @see RFC 9396 §2
 */
export const messageDetails = z
  .strictObject({
    type: z.literal('message'),
    /** The client's idempotency key for this action. */
    transaction_id: identifier(64),
    channel: z.enum(Object.keys(MESSAGE_CHANNELS) as [MessageChannel, ...MessageChannel[]]),
    recipients: z.strictObject({
      /** How many people receive it. */
      count: z.number().int().min(1).max(MAX_RECIPIENTS),
      /** The recipient list's name in the sending system, e.g. `newsletter-eu`. */
      list: identifier(128).optional(),
      /** A few recipients (addresses or numbers), each once, at most {@link MAX_SAMPLE_RECIPIENTS}. */
      sample: z.array(displayText(254)).max(MAX_SAMPLE_RECIPIENTS).optional(),
    }),
    subject: displayText(200).optional(),
    /** The body as it will be sent: at most 20,000 characters in 500 lines. */
    body: displayLines(20_000, 500),
    purpose: displayText(5000),
    /** Optional: run only while this record is at this version; checked at `/redeem` (`stale_record`). */
    precondition: precondition.optional(),
  })
  .superRefine((details, ctx) => {
    const sample = details.recipients.sample ?? [];
    if (new Set(sample).size !== sample.length) ctx.addIssue({ code: 'custom', path: ['recipients', 'sample'], message: 'each recipient may be named once' });
    if (sample.length > details.recipients.count) ctx.addIssue({ code: 'custom', path: ['recipients', 'sample'], message: `names more recipients than count (${details.recipients.count})` });
  });

/** A validated `message` action. */
export type MessageDetails = z.infer<typeof messageDetails>;

/**
 * What the person sees for a message: the channel, how many recipients (and the list), a few of
 * them, the subject and the body as it will be sent. Title `Send email to 12,000 recipients`.
 */
export function displayMessage(details: MessageDetails): ActionDisplay {
  const channel = MESSAGE_CHANNELS[details.channel];
  const recipients = counted(details.recipients.count, 'recipient');
  const sample = details.recipients.sample ?? [];
  return {
    type: 'message',
    verb: 'Send',
    title: `Send ${channel.noun} to ${recipients}`,
    summary: `${channel.label} to ${recipients}`,
    message: { channel: channel.label, recipient_count: details.recipients.count, list: details.recipients.list ?? null, sample, subject: details.subject ?? null, body: details.body },
    fields: [
      { label: 'Channel', value: channel.label },
      { label: 'Recipients', value: details.recipients.list ? `${countText(details.recipients.count)} (list ${details.recipients.list})` : countText(details.recipients.count) },
      ...(sample.length ? [{ label: 'For example', value: sample.join(', ') }] : []),
      ...(details.subject ? [{ label: 'Subject', value: details.subject }] : []),
      { label: 'Message', value: details.body },
      { label: 'Purpose', value: details.purpose },
      { label: 'Transaction', value: details.transaction_id },
      ...(details.precondition ? [displayPrecondition(details.precondition)] : []),
    ],
  };
}
