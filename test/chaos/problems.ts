// What every invariant check shares: the deployment's names, and the problems a check finds.

/** The key prefix `main.ts` gives the Redis store (`REDIS_PREFIX`), and the tenant every client and user here is in. */
export const SERVER_PREFIX = 'cs:';
export const TENANT = 'default';

/** Invariant → the auth_req_ids (or answers) that break it. Empty when everything holds. */
export type Problems = Record<string, string[]>;

/** Records `example` as one break of `invariant`. */
export function add(problems: Problems, invariant: string, example: string): void {
  (problems[invariant] ??= []).push(example);
}

/** Problems as counts with a few examples each, for the failure message and the report. */
export function summarize(problems: Problems): Record<string, { count: number; examples: string[] }> {
  return Object.fromEntries(Object.entries(problems).map(([invariant, examples]) => [invariant, { count: examples.length, examples: examples.slice(0, 3) }]));
}
