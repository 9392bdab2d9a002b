import serialize from 'canonicalize';

/**
 * RFC 8785 JSON Canonicalization Scheme: object members sorted by UTF-16 code units, no
 * insignificant white space, ECMAScript number serialisation.
 *
 * @param value - any JSON value (no `undefined` at the top, no NaN or Infinity).
 * @returns the canonical JSON text.
 * @throws TypeError when the value has no JSON form.
 * @see RFC 8785 §3.2
 */
export function canonicalize(value: unknown): string {
  const text = serialize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}
