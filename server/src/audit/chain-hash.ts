import { canonicalize } from '@countersign/shared';
import { createHash } from 'node:crypto';
import type { ChainedAuditEvent } from './audit-event.ts';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** base64url(SHA-256(text)): {@link eventHash} of an event whose {@link chainText} is `text`, without canonicalizing it again. */
export function sha256Text(text: string): string {
  return sha256(text);
}

/**
 * The `prev_hash` of a tenant's first event: base64url(SHA-256(JCS({chain, tenant}))). Bound to the
 * tenant, so one tenant's chain cannot be passed off as the start of another's.
 */
export function genesisHash(tenant: string): string {
  return sha256(canonicalize({ chain: 'countersign-audit', tenant }));
}

/**
 * The text of an event that is stored and hashed: RFC 8785 JCS of the event with its `seq` and
 * `prev_hash` and without the store's `id`, so the same event always has the same bytes.
 */
export function chainText(event: ChainedAuditEvent): string {
  const { id: _id, ...chained } = event as ChainedAuditEvent & { id?: string };
  return canonicalize(chained);
}

/**
 * The hash that the next event carries as its `prev_hash`: base64url(SHA-256(JCS(event))), over
 * every member but the store's `id` — the previous event's own `prev_hash` included, so each hash
 * covers the whole chain before it.
 *
 * @see RFC 8785 (JCS); docs/design.md guarantee 9
 */
export function eventHash(event: ChainedAuditEvent): string {
  return sha256(chainText(event));
}
