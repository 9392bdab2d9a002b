import { describe, expect, it } from 'vitest';
import { actionProbe } from './action-probe.test-support.ts';

/** The message of docs/ciba.md ("The actions a request may carry"), as an agent sends it. */
const EXAMPLE = {
  type: 'message',
  transaction_id: 'msg_5',
  channel: 'email',
  recipients: { count: 12000, list: 'newsletter-eu', sample: ['ana@example.com'] },
  subject: 'Price change',
  body: '…',
  purpose: 'Quarterly notice',
};

const { parse, problems, shown } = actionProbe(EXAMPLE);

const recipients = (sample: string[], count = 100) => ({ recipients: { count, sample } });

describe('the message type', () => {
  it('accepts the documented message as sent', () => {
    const result = parse({});
    expect(result.success).toBe(true);
    expect(result.data).toEqual([EXAMPLE]);
  });

  it('refuses unknown fields, in the action and in its recipients', () => {
    expect(problems({ cc: ['bo@example.com'] })).toEqual(['0: Unrecognized key: "cc"']);
    expect(problems({ recipients: { count: 2, bcc: ['bo@example.com'] } })).toEqual(['0.recipients: Unrecognized key: "bcc"']);
    expect(problems({ channel: 'fax' })).toEqual(['0.channel: Invalid option: expected one of "email"|"sms"|"push"|"chat"|"in_app"|"letter"']);
  });

  it('shows at most 10 sample recipients, each once, and no more than it counts', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
    expect(parse(recipients(ten, 10)).success).toBe(true);
    expect(problems(recipients([...ten, 'r10@example.com']))).toEqual(['0.recipients.sample: Too big: expected array to have <=10 items']);
    expect(problems(recipients(['ana@example.com', 'bo@example.com'], 1))).toEqual(['0.recipients.sample: names more recipients than count (1)']);
    // Compared in their canonical form: a space more is the same recipient to the person.
    expect(problems(recipients(['ana@example.com', ' ana@example.com']))).toEqual(['0.recipients.sample: each recipient may be named once']);
    expect(problems({ recipients: { count: 0 } })).toEqual(['0.recipients.count: Too small: expected number to be >=1']);
    expect(problems({ recipients: { count: 1_000_000_001 } })).toEqual(['0.recipients.count: Too big: expected number to be <=1000000000']);
  });

  it('takes a body of 20,000 characters in 500 lines and refuses more', () => {
    expect(parse({ body: 'b'.repeat(20_000) }).success).toBe(true);
    expect(problems({ body: 'b'.repeat(20_001) })).toEqual(['0.body: must be at most 20000 characters']);
    expect(parse({ body: Array(500).fill('line').join('\n') }).success).toBe(true);
    expect(problems({ body: Array(501).fill('line').join('\n') })).toEqual(['0.body: must be at most 500 lines']);
    expect(problems({ body: ' \r\n ' })).toEqual(['0.body: must not be empty']);
  });

  it('refuses strings past their maximum', () => {
    expect(problems({ subject: 's'.repeat(201) })).toEqual(['0.subject: must be at most 200 characters']);
    expect(problems({ purpose: 'p'.repeat(5001) })).toEqual(['0.purpose: must be at most 5000 characters']);
    expect(problems(recipients(['r'.repeat(255)]))).toEqual(['0.recipients.sample.0: must be at most 254 characters']);
    expect(problems({ recipients: { count: 2, list: 'l'.repeat(129) } })).toEqual(['0.recipients.list: Too big: expected string to have <=128 characters']);
    expect(problems({ transaction_id: 't'.repeat(65) })).toEqual(['0.transaction_id: Too big: expected string to have <=64 characters']);
  });

  it.each([
    ['a right-to-left override', '\u202e', 'must not hold a bidirectional control (U+202E)'],
    ['a zero-width space', '\u200b', 'must not hold an invisible or filler character (U+200B)'],
    ['an escape (a control character)', '\u001b', 'must not hold a control character (U+001B)'],
  ])('refuses %s in the subject, the body, a sample recipient and the purpose, naming it', (_name, character, reason) => {
    expect(problems({ subject: `Price${character} change` })).toEqual([`0.subject: ${reason}`]);
    expect(problems({ body: `Dear customer,\nprices rise by 5${character}0%.` })).toEqual([`0.body: ${reason}`]);
    expect(problems(recipients([`ana${character}@example.com`]))).toEqual([`0.recipients.sample.0: ${reason}`]);
    expect(problems({ purpose: `Quarterly${character} notice` })).toEqual([`0.purpose: ${reason}`]);
  });

  it('allows the line feed alone of the controls in a body: a tab is refused', () => {
    expect(problems({ body: 'Price:\t5 EUR' })).toEqual(['0.body: must not hold a control character (U+0009)']);
    expect(problems({ body: 'Price\u2028now' })).toEqual(['0.body: must not hold a line or paragraph separator (U+2028)']);
  });

  it('shows the documented message: channel, how many, the list, a sample, subject and body', () => {
    expect(shown({})).toStrictEqual({
      type: 'message',
      verb: 'Send',
      title: 'Send email to 12,000 recipients',
      summary: 'Email to 12,000 recipients',
      message: { channel: 'Email', recipient_count: 12000, list: 'newsletter-eu', sample: ['ana@example.com'], subject: 'Price change', body: '…' },
      fields: [
        { label: 'Channel', value: 'Email' },
        { label: 'Recipients', value: '12,000 (list newsletter-eu)' },
        { label: 'For example', value: 'ana@example.com' },
        { label: 'Subject', value: 'Price change' },
        { label: 'Message', value: '…' },
        { label: 'Purpose', value: 'Quarterly notice' },
        { label: 'Transaction', value: 'msg_5' },
      ],
    });
  });

  it('stores and shows a CR LF body with its line breaks as canonicalised, and no subject line when there is none', () => {
    const body = '\r\nHello  Ana, \r\n\r\n  Your plan changes on 1 May.\rReply STOP to opt out.\r\n\r\n';
    const canonical = 'Hello Ana,\n\n Your plan changes on 1 May.\nReply STOP to opt out.';
    const sms = { channel: 'sms', recipients: { count: 1 }, subject: undefined, body };
    expect(parse(sms).data![0]).toEqual({ ...EXAMPLE, ...sms, subject: undefined, body: canonical });
    expect(shown(sms)).toStrictEqual({
      type: 'message',
      verb: 'Send',
      title: 'Send SMS to 1 recipient',
      summary: 'SMS to 1 recipient',
      message: { channel: 'SMS', recipient_count: 1, list: null, sample: [], subject: null, body: canonical },
      fields: [
        { label: 'Channel', value: 'SMS' },
        { label: 'Recipients', value: '1' },
        { label: 'Message', value: canonical },
        { label: 'Purpose', value: 'Quarterly notice' },
        { label: 'Transaction', value: 'msg_5' },
      ],
    });
  });

  it('names each channel in words', () => {
    const titles = ['email', 'sms', 'push', 'chat', 'in_app', 'letter'].map((channel) => shown({ channel, recipients: { count: 2 } }).title);
    expect(titles).toEqual(['Send email to 2 recipients', 'Send SMS to 2 recipients', 'Send push notification to 2 recipients', 'Send chat message to 2 recipients', 'Send in-app message to 2 recipients', 'Send letter to 2 recipients']);
  });
});
