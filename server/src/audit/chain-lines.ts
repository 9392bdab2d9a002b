import type { StoredAuditEvent } from './audit-event.ts';
import type { RetentionAnchor, RetentionAnchorLine } from './chain-report.ts';

// Reading the items of an export (parsed events or JSON lines, as `export` writes them).

const HASH = /^[A-Za-z0-9_-]{43}$/;

/** An item of an export as a value: a JSON line parsed (undefined when it is not JSON), anything else as it is. */
function parsedLine(item: unknown): unknown {
  if (typeof item !== 'string') return item;
  try {
    return JSON.parse(item);
  } catch {
    return undefined;
  }
}

/** The retention anchor a first line or first item names, or null when it is not one. */
export function readAnchorLine(item: unknown): RetentionAnchor | null {
  const value = parsedLine(item);
  if (typeof value !== 'object' || value === null || !('retention_anchor' in value)) return null;
  const anchor = (value as RetentionAnchorLine).retention_anchor;
  if (typeof anchor !== 'object' || anchor === null || !Number.isSafeInteger(anchor.seq) || anchor.seq < 0 || typeof anchor.hash !== 'string' || !HASH.test(anchor.hash)) return null;
  return anchor;
}

/** An item read as a stored audit event, or null when it is not an object with a numeric `seq` and a string `prev_hash`. */
export function readEvent(item: unknown): StoredAuditEvent | null {
  const value = parsedLine(item);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const event = value as StoredAuditEvent;
  return typeof event.seq === 'number' && typeof event.prev_hash === 'string' ? event : null;
}
