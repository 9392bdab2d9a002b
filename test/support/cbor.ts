/**
 * A minimal CBOR encoder for the soft authenticator (test/support/soft-authenticator.ts), and the
 * byte helpers it builds with. Written from the specification, sharing no code with the verifier.
 * @see RFC 8949 (CBOR)
 */

/** The CBOR values the soft authenticator needs: integers, text, bytes and maps. */
export type CborValue = number | string | Uint8Array | Map<string | number, CborValue>;

/**
 * A minimal CBOR encoder (RFC 8949 §3): definite lengths only, map entries in insertion order
 * (the keys above are already in CTAP2 canonical order, RFC 8949 §4.2.3 length-first).
 */
export function cbor(value: CborValue): Uint8Array {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError('only integers');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return concat(head(3, bytes.length), bytes);
  }
  if (value instanceof Uint8Array) return concat(head(2, value.length), value);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return concat(...parts);
}

/** A CBOR initial byte and argument (RFC 8949 §3): major type in the top 3 bits. */
function head(major: number, argument: number): Uint8Array {
  const mt = major << 5;
  if (argument < 24) return Uint8Array.of(mt | argument);
  if (argument < 0x100) return Uint8Array.of(mt | 24, argument);
  if (argument < 0x10000) return Uint8Array.of(mt | 25, argument >> 8, argument & 0xff);
  const out = new Uint8Array(5);
  out[0] = mt | 26;
  new DataView(out.buffer).setUint32(1, argument);
  return out;
}

/** `n` as two big-endian bytes (a credential id's length in attested credential data). */
export function uint16(n: number): Uint8Array {
  return Uint8Array.of(n >> 8, n & 0xff);
}

/** The bytes of `parts`, one after another. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
