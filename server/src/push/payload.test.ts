import { describe, expect, it } from 'vitest';
import { buildPushPayload, MAX_PUSH_PAYLOAD_BYTES, topicFor } from './payload.ts';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const summaryOf = (json: string) => (JSON.parse(json) as { summary: string }).summary;
const WELL_FORMED = (text: string) => Buffer.from(text, 'utf8').toString('utf8') === text;

describe('buildPushPayload', () => {
  it('holds the kind, the request id and the summary, unchanged when short', () => {
    const json = buildPushPayload({ auth_req_id: 'req_1', summary: '€490.00 to ACME Ltd' });
    expect(json).toBe('{"kind":"approval_request","auth_req_id":"req_1","summary":"€490.00 to ACME Ltd"}');
  });

  it('makes the summary one line and drops bidirectional overrides', () => {
    const json = buildPushPayload({ auth_req_id: 'req_1', summary: ' Refund\r\nfor\torder\u2028\u202e1042 ' });
    expect(summaryOf(json)).toBe('Refund for order 1042');
  });

  it('keeps a no-break space of a formatted amount', () => {
    expect(summaryOf(buildPushPayload({ auth_req_id: 'r', summary: '490,00\u00a0€' }))).toBe('490,00\u00a0€');
  });

  it('cuts a 5,000-character multi-byte summary to at most 2048 bytes with an ellipsis', () => {
    const summary = 'Zahlung für Bestellung — 返金 😀 '.repeat(250).slice(0, 5000);
    const json = buildPushPayload({ auth_req_id: 'req_long', summary });
    expect(bytes(json)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    expect(bytes(json)).toBeGreaterThan(MAX_PUSH_PAYLOAD_BYTES - 8); // cut as late as it fits
    const cut = summaryOf(json);
    expect(cut.endsWith('…')).toBe(true);
    expect(summary.startsWith(cut.slice(0, -1))).toBe(true);
    expect(WELL_FORMED(json)).toBe(true);
  });

  it.each(['😀', 'é', '返', 'a'])('never splits a code point when every character is %s', (char) => {
    const json = buildPushPayload({ auth_req_id: 'req_1', summary: char.repeat(5000) });
    expect(bytes(json)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    expect(WELL_FORMED(json)).toBe(true);
    expect(summaryOf(json)).toMatch(new RegExp(`^(?:${char})+…$`, 'u'));
  });

  it('does not split an emoji sequence of several code points', () => {
    const family = '👩‍👩‍👧‍👦'; // 7 code points, one grapheme
    const json = buildPushPayload({ auth_req_id: 'req_1', summary: family.repeat(500) });
    const cut = summaryOf(json).slice(0, -1);
    expect(cut.length % family.length).toBe(0);
    expect(cut).toBe(family.repeat(cut.length / family.length));
  });

  it('counts JSON escaping against the budget', () => {
    const json = buildPushPayload({ auth_req_id: 'req_1', summary: '"\\'.repeat(3000) });
    expect(bytes(json)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    expect(summaryOf(json).endsWith('…')).toBe(true);
  });

  it('cuts exactly at the budget: a summary that fits is kept whole, one byte more is cut', () => {
    const overhead = bytes(buildPushPayload({ auth_req_id: 'req_1', summary: '' }));
    const fitting = 'a'.repeat(MAX_PUSH_PAYLOAD_BYTES - overhead);
    expect(summaryOf(buildPushPayload({ auth_req_id: 'req_1', summary: fitting }))).toBe(fitting);
    const over = summaryOf(buildPushPayload({ auth_req_id: 'req_1', summary: `${fitting}a` }));
    expect(over).toBe(`${'a'.repeat(fitting.length - 3)}…`); // '…' takes 3 bytes of UTF-8
  });

  it('does not end the cut summary with a space before the ellipsis', () => {
    const summary = `${'a'.repeat(2000)}          ${'b'.repeat(100)}`;
    const cut = summaryOf(buildPushPayload({ auth_req_id: 'req_1', summary }));
    expect(cut).toMatch(/a…$/);
  });

  it('throws when the request id alone does not fit', () => {
    expect(() => buildPushPayload({ auth_req_id: 'r'.repeat(3000), summary: 'x' })).toThrow(RangeError);
  });
});

describe('topicFor', () => {
  it('is 32 base64url characters, a length never ≡ 1 (mod 4) (RFC 8030 §5.4)', () => {
    const topic = topicFor('req_1042');
    expect(topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(topic.length % 4).not.toBe(1);
  });

  it('is stable per request and differs between requests', () => {
    expect(topicFor('req_1042')).toBe(topicFor('req_1042'));
    expect(topicFor('req_1042')).not.toBe(topicFor('req_1043'));
  });

  it('does not reveal the request id', () => {
    expect(topicFor('req_1042')).not.toContain('1042');
  });
});
