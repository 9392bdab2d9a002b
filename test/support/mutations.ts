/**
 * Mutated requests for fuzzing (`test/fuzz/`): arbitraries of fast-check that change a valid
 * JSON or form body the way an attacker would (fields dropped, repeated, renamed, retyped or added;
 * odd strings and numbers; JSON that does not parse), rather than random bytes, so most inputs get
 * past the first parser and reach the checks behind it. Each arbitrary yields a description of the
 * changes; `mutatedJson` and `formBody` apply it to the valid body of the moment.
 */

export { numberText, oddString } from './odd-values.ts';
export { jsonChanges, mutatedJson, type JsonChanges, type JsonMutation } from './json-mutations.ts';
export { contentType, formBody, formMutation, type FormMutation } from './form-mutations.ts';
