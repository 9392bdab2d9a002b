import { createHash } from 'node:crypto';
import type { PushPayload } from '@countersign/shared';

/**
 * The largest push payload Countersign sends, in bytes of UTF-8 JSON (docs/design.md "Display": at
 * most 2,048 bytes). RFC 8291 §4 lets one aes128gcm record carry 3993 bytes of plaintext, and RFC
 * 8030 §7.2 only promises 4096 bytes of body; 2048 leaves room under both and keeps the message one
 * record.
 */
export const MAX_PUSH_PAYLOAD_BYTES = 2048;

/** What {@link buildPushPayload} puts into a push message. */
export interface BuildPushPayloadInput {
  /** The approval request the push announces (CIBA Core 1.0 §7.3). */
  auth_req_id: string;
  /** A one-line summary computed by the server from the stored request; cut here when too long. */
  summary: string;
  /** What the push announces: a new request (the default), or that one expired unused. */
  kind?: PushPayload['kind'];
}

const ELLIPSIS = '\u2026';
/**
 * C0/C1 controls (tab, CR, LF…), line and paragraph separators, and bidirectional overrides and
 * isolates (CVE-2021-42574): none belongs in a one-line notification. Other spaces are kept, since
 * a formatted amount may hold a no-break space between the number and the currency.
 */
const NOT_ONE_LINE = /[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069]+/gu;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Builds the plaintext of the Web Push message announcing one approval request: the JSON of a
 * {@link PushPayload}, `{kind, auth_req_id, summary}` (`kind` is `approval_request` unless given), at most
 * {@link MAX_PUSH_PAYLOAD_BYTES} bytes of UTF-8.
 *
 * The summary is made one line (controls and line breaks become a space) and, when the JSON would
 * be too long, cut at the longest prefix that fits with a trailing `…`. The cut falls on a
 * grapheme boundary where one exists (never inside an emoji sequence) and always on a code-point
 * boundary, so the result is well-formed UTF-8 whatever the summary holds. Length is measured on
 * the JSON itself, so escaping (`"`, `\`) is accounted for. The PWA fetches the full display over
 * its API; the payload only has to say which request to open.
 *
 * @param input The request id and its summary.
 * @param maxBytes The byte budget; {@link MAX_PUSH_PAYLOAD_BYTES} by default.
 * @returns The JSON string to encrypt and send (RFC 8291).
 * @throws RangeError when even an empty summary does not fit (an `auth_req_id` longer than any
 *   the server generates).
 * @see RFC 8030 §5 (push message), RFC 8291 §4 (record size)
 * @example Build the payload of a new request
 * ```ts
 * const payload = buildPushPayload({ auth_req_id: 'req_1', summary: '€490.00 to ACME Ltd' });
 * ```
 */
export function buildPushPayload(input: BuildPushPayloadInput, maxBytes = MAX_PUSH_PAYLOAD_BYTES): string {
  const encode = (summary: string) => JSON.stringify({ kind: input.kind ?? 'approval_request', auth_req_id: input.auth_req_id, summary } satisfies PushPayload);
  const fits = (json: string) => Buffer.byteLength(json, 'utf8') <= maxBytes;

  const line = input.summary.replace(NOT_ONE_LINE, ' ').trim();
  const whole = encode(line);
  if (fits(whole)) return whole;
  if (!fits(encode(ELLIPSIS))) {
    throw new RangeError(`a push payload for this auth_req_id cannot fit in ${maxBytes} bytes`);
  }

  // Every code point takes at least one byte, so no more than `maxBytes` of them can ever fit;
  // taking only those keeps the search cheap whatever the length of the summary.
  const points = firstCodePoints(line, maxBytes);
  const cut = (count: number) => points.slice(0, count).join('').trimEnd() + ELLIPSIS;
  // The JSON grows with every code point added, so a binary search finds the longest prefix.
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(encode(cut(middle)))) low = middle;
    else high = middle - 1;
  }
  return encode(cut(graphemeBoundaryAtOrBefore(points, low)));
}

/**
 * The RFC 8030 §5.4 `Topic` of the push message for one request: the first 32 characters of the
 * base64url SHA-256 of the `auth_req_id`. A second push for the same request (a retry) replaces
 * an undelivered first one at the push service instead of queuing twice; hashing keeps the
 * request id away from the push service. 32 characters (24 bytes) is the RFC's maximum and is
 * never ≡ 1 (mod 4), so the value is valid base64url.
 *
 * @param authReqId The request id.
 * @returns 32 characters of the base64url alphabet, the same for the same id.
 * @see RFC 8030 §5.4 (replacing push messages)
 */
export function topicFor(authReqId: string): string {
  return createHash('sha256').update(authReqId, 'utf8').digest('base64url').slice(0, 32);
}

function firstCodePoints(text: string, limit: number): string[] {
  const points: string[] = [];
  for (const point of text) {
    if (points.length === limit) break;
    points.push(point);
  }
  return points;
}

/** The largest grapheme boundary ≤ `count` (in code points), or `count` when the first cluster is longer. */
function graphemeBoundaryAtOrBefore(points: string[], count: number): number {
  let boundary = 0;
  let seen = 0;
  // One code point past the cut shows whether a cluster straddles it.
  for (const { segment } of graphemes.segment(points.slice(0, count + 1).join(''))) {
    seen += [...segment].length;
    if (seen > count) break;
    boundary = seen;
  }
  return boundary > 0 ? boundary : count;
}
