import fc from 'fast-check';
import { numberText, oddString } from './odd-values.ts';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

// Mutated form bodies and content types for fuzzing (mutations.ts).

/** One change to a form body; `at`, where it is given, picks the pair (modulo the number of pairs). */
export type FormMutation =
  | { op: 'drop' | 'duplicate'; at: number }
  | { op: 'replace'; at: number; value: string }
  | { op: 'rename'; at: number; name: string }
  | { op: 'add'; name: string; value: string }
  /** A raw `&`-separated segment, not encoded: `%zz`, `%ff`, `=x`, `&&`. */
  | { op: 'raw'; text: string };

const formName = fc.oneof(
  fc.constantFrom('scope', 'login_hint', 'id_token_hint', 'login_hint_token', 'binding_message', 'user_code', 'requested_expiry', 'client_notification_token', 'authorization_details', 'request', 'grant_type', 'auth_req_id', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type'),
  oddString,
);

/** Changes to a form body: pairs dropped, repeated, replaced, renamed or added, and raw segments. */
export function formMutation(ids: fc.Arbitrary<string>): fc.Arbitrary<FormMutation> {
  const value = fc.oneof(oddString, numberText, ids);
  return fc.oneof(
    fc.record({ op: fc.constantFrom('drop' as const, 'duplicate' as const), at: fc.nat() }),
    fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value }),
    fc.record({ op: fc.constant('rename' as const), at: fc.nat(), name: formName }),
    fc.record({ op: fc.constant('add' as const), name: formName, value }),
    fc.record({ op: fc.constant('raw' as const), text: fc.constantFrom('%zz', 'scope=%ff', 'a=%c0%af', '=openid', '&&', 'login_hint', '%', 'binding_message=%E2%80%AE') }),
  );
}

/** The form `pairs` encoded with `mutations` applied, raw segments after the encoded pairs. */
export function formBody(pairs: [string, string][], mutations: readonly FormMutation[]): string {
  const form = pairs.map(([name, value]) => [name, value] as [string, string]);
  const raw: string[] = [];
  for (const mutation of mutations) {
    const at = 'at' in mutation && form.length > 0 ? mutation.at % form.length : -1;
    if (mutation.op === 'drop' && at >= 0) form.splice(at, 1);
    else if (mutation.op === 'duplicate' && at >= 0) form.splice(at + 1, 0, [...form[at]!]);
    else if (mutation.op === 'replace' && at >= 0) form[at]![1] = mutation.value;
    else if (mutation.op === 'rename' && at >= 0) form[at]![0] = mutation.name;
    else if (mutation.op === 'add') form.push([mutation.name, mutation.value]);
    else if (mutation.op === 'raw') raw.push(mutation.text);
  }
  return [new URLSearchParams(form).toString(), ...raw].filter(Boolean).join('&');
}

/** The right content type mostly; now and then another, or none. */
export function contentType(right: string): fc.Arbitrary<string | undefined> {
  return fc.oneof({ weight: 12, arbitrary: fc.constant(right) }, { weight: 1, arbitrary: fc.constantFrom(undefined, FORM, JSON_TYPE, `${right}; charset=utf-8`, `${right}; charset=latin1`, 'text/plain', 'multipart/form-data; boundary=x', `${right}x`, right.toUpperCase()) });
}
