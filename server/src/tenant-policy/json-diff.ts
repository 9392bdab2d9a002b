/** A JSON value as a parsed document holds it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [member: string]: JsonValue };

/**
 * One change between two JSON documents, at a JSON pointer (RFC 6901). `from` is absent when the
 * member or element was added, `to` when it was removed: JSON has no `undefined`, and `null` is a
 * value a document may hold.
 */
// A type, not an interface: a list of them is an audit detail, whose items need an index signature.
export type JsonChange = {
  path: string;
  from?: JsonValue;
  to?: JsonValue;
};

/** One reference token of a JSON pointer: `~` is written `~0` and `/` is written `~1` (RFC 6901 §3). */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: JsonValue | undefined): value is { [member: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The structural difference of two JSON documents, as the list of leaf changes that turns `from`
 * into `to`, in document order (members sorted by name, elements by index). Objects are compared
 * member by member and arrays element by element (an element inserted in the middle shows as a
 * change of every element after it, then an addition: a policy's arrays are short, and the reader
 * of the audit sees each position as it was and became). Where the kind differs (an object became an
 * array, a number a string), the whole value at that path is one change. Equal documents: `[]`.
 *
 * @example A lowered threshold
 * ```ts
 * jsonDiff({ amount_tiers: { EUR: [{ from_minor: 100000 }] } }, { amount_tiers: { EUR: [{ from_minor: 40000 }] } });
 * // [{ path: '/amount_tiers/EUR/0/from_minor', from: 100000, to: 40000 }]
 * ```
 * @see RFC 6901 (JSON Pointer)
 */
export function jsonDiff(from: JsonValue | undefined, to: JsonValue | undefined, path = ''): JsonChange[] {
  if (from === undefined && to === undefined) return [];
  if (from === undefined) return [{ path, to: to! }];
  if (to === undefined) return [{ path, from }];
  if (isObject(from) && isObject(to)) {
    const names = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return names.flatMap((name) => jsonDiff(from[name], to[name], `${path}/${pointerToken(name)}`));
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    return Array.from({ length: Math.max(from.length, to.length) }, (_, i) => jsonDiff(from[i], to[i], `${path}/${i}`)).flat();
  }
  // Scalars, or values of different kinds: equal scalars are no change.
  if (from === to) return [];
  return [{ path, from, to }];
}
