import type { StreamEntry } from '../store/index.ts';
import type { ChainedAuditEvent } from './audit-event.ts';
import { chainText } from './chain-hash.ts';
import { storedFields } from './stored-event.ts';

// What the stored-event-*.test.ts files share: a proposed event as the appender chains it, and
// the stream entry it is stored as. Test code only.

/** A hash as the chain writes them (base64url SHA-256). */
export const HASH = 'aKM7Va8N4DGd25R50DxpZ6g8JYbOFduj-GTQyRiYTV4';
/** An `auth_req_id`. */
export const REQ = 'RWT4vbs9kB9jV7yTz-keoNZ2PJZYSbIbks3CcFA0ZN8';

/** A `proposed` event as the appender chains it. */
export const proposed: ChainedAuditEvent = {
  type: 'proposed',
  tenant: 'mem-0',
  auth_req_id: REQ,
  client_id: 'cli_zHiUAxG1T8KHgsaFFY8qrA',
  sub: 'mem-0-user-24',
  channel: 'agent',
  at: '2026-11-29T18:54:22.394Z',
  detail: { details_hash: HASH, expires_in: 300, tier: 'standard', parties: 'customer', number_matching: false },
  seq: 2524,
  prev_hash: HASH,
};

/** A stream entry holding `event` as the appender stores it. */
export function entryOf(event: ChainedAuditEvent, id = '1795978462394-0'): StreamEntry {
  return { id, fields: storedFields(event, event.tenant, chainText(event)) };
}
