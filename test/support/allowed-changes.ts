import { expect } from 'vitest';
import { storedEvent } from '../../server/src/audit/index.ts';
import { sameEntry, type KeyState } from './key-state.ts';
import type { Change } from './store-watch.ts';

/**
 * What a refused call may change (docs/design.md "HTTP surface": bad input changes nothing;
 * guarantee 9: every refusal is audited), given what `store-watch.ts` saw it change. The audit
 * layout is docs/audit.md's: a hash chain per tenant in a stream, and per request a string of
 * stream ids.
 */

/** Request ids as the server issues them; an audit index is never opened under anything else. */
const REQUEST_ID = /^[A-Za-z0-9_-]{16,128}$/;
const CHAIN = /^auditlog:\{([^{}]+)\}$/;
const CHAIN_INDEX = /^auditidx:\{([^{}]+)\}:(.*)$/s;
/** A rate-limit counter (`Store.rateLimit`): one number, the next time a call is allowed. */
const RATE_COUNTER = /^rate:\{[^{}]+\}$/;

/** What a refusal answered, and what it may consume by design. */
export interface Refusal {
  /** The response's `error`: the reason every audited refusal must carry. */
  error: string;
  /** Keys of single-use values this refusal is designed to consume (present before, gone after). */
  consumes?: RegExp;
}

const brief = (state: KeyState) => JSON.stringify(state)?.slice(0, 200);

/**
 * The changes a refusal left that the design does not allow, each as a sentence (empty when none).
 * Allowed are only: `refused` events with `refusal.error` as reason appended to a tenant's audit
 * chain (`auditlog:{tenant}`, docs/audit.md), the ids of exactly those events appended to the
 * per-request index of their own well-formed request id (`auditidx:{tenant}:<auth_req_id>`), a
 * rate-limit counter moved (`rate:{…}`, a number), and the single-use values `refusal.consumes`
 * names, deleted. Anything else is reported, as is a key
 * that could not be read.
 */
export function disallowedChanges(changes: Change[], refusal: Refusal): string[] {
  const problems: string[] = [];
  /** Per index key, the ids of the refused events appended for it. */
  const indexed = new Map<string, string[]>();
  for (const change of changes) {
    const chain = CHAIN.exec(change.key);
    if (!chain || change.group !== undefined) continue;
    const tenant = chain[1]!;
    if (change.after !== null && change.after.kind !== 'stream') {
      problems.push(`${change.key} is no longer a stream: ${brief(change.after)}`);
      continue;
    }
    const was = change.before?.kind === 'stream' ? change.before.value : [];
    const now = change.after?.value ?? [];
    if (change.before !== null && change.before.kind !== 'stream') problems.push(`${change.key} was not a stream: ${brief(change.before)}`);
    if (now.length < was.length || !was.every((entry, i) => sameEntry(entry, now[i]!))) problems.push(`${change.key}: an audit chain must only be appended to`);
    const fresh = now.slice(was.length);
    if (JSON.stringify(fresh.map((entry) => entry.id)) !== JSON.stringify(change.appended)) {
      problems.push(`${change.key}: entries appended during the call (${change.appended.join(' ')}) are not the new entries (${fresh.map((entry) => entry.id).join(' ')})`);
    }
    for (const entry of fresh) {
      const event = storedEvent(entry, tenant);
      if (!event) {
        problems.push(`${change.key}: an unreadable audit entry ${JSON.stringify(entry).slice(0, 200)}`);
        continue;
      }
      if (event.type !== 'refused' || event.reason !== refusal.error) {
        problems.push(`${change.key}: a refusal (${refusal.error}) audited ${event.type}${event.reason ? ` (${event.reason})` : ''}${event.auth_req_id ? ` for ${event.auth_req_id}` : ''}`);
      } else if (event.auth_req_id !== undefined) {
        const key = `auditidx:{${tenant}}:${event.auth_req_id}`;
        indexed.set(key, [...(indexed.get(key) ?? []), entry.id]);
      }
    }
  }
  for (const change of changes) {
    if (CHAIN.test(change.key) && change.group === undefined) continue;
    if (change.before?.kind === 'unreadable' || change.after?.kind === 'unreadable') {
      problems.push(`${change.key} cannot be read, so its change cannot be checked: ${brief(change.before?.kind === 'unreadable' ? change.before : change.after)}`);
      continue;
    }
    const audit = CHAIN_INDEX.exec(change.key);
    if (audit) {
      const authReqId = audit[2]!;
      if (!REQUEST_ID.test(authReqId)) problems.push(`an audit index opened under a malformed request id: ${change.key.slice(0, 200)}`);
      const was = change.before === null ? [] : change.before.kind === 'string' ? change.before.value.split(' ') : null;
      if (was === null || change.after?.kind !== 'string') {
        problems.push(`${change.key} is not a stream index: ${brief(change.before)} → ${brief(change.after)}`);
        continue;
      }
      const now = change.after.value.split(' ');
      const added = now.slice(was.length);
      const expected = indexed.get(change.key) ?? [];
      if (JSON.stringify(now.slice(0, was.length)) !== JSON.stringify(was) || added.length === 0 || added.some((id) => !expected.includes(id))) {
        problems.push(`${change.key}: an index may only gain the ids of the refused events of its request (${expected.join(' ') || 'none'}), but went ${brief(change.before)} → ${brief(change.after)}`);
      }
      continue;
    }
    if (change.group === undefined && refusal.consumes?.test(change.key) && change.before !== null && change.after === null) continue;
    // A refused call still counts against its rate limit (docs/security.md: "nothing stored" but
    // the counter), and a counter whose schedule caught up with the clock meanwhile is gone (its
    // TTL ran out).
    if (change.group === undefined && RATE_COUNTER.test(change.key) && (change.before === null || change.before.kind === 'string') && (change.after === null || (change.after.kind === 'string' && /^\d+$/.test(change.after.value)))) continue;
    problems.push(`a refused call changed ${change.key}${change.group ? ` (group ${change.group})` : ''}: ${brief(change.before)} → ${brief(change.after)}${change.appended.length ? ` (appended ${change.appended.join(' ')})` : ''}`);
  }
  return problems;
}

/** Fails the test with every change a refusal left that the design does not allow; see {@link disallowedChanges}. */
export function expectOnlyAllowedChanges(changes: Change[], refusal: Refusal): void {
  const problems = disallowedChanges(changes, refusal);
  if (problems.length > 0) expect.fail(problems.join('\n'));
}
