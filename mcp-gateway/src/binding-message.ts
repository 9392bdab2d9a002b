import { toDisplayText } from '@countersign/shared';

/** What `binding_message` may hold (CIBA Core §7.1 as Countersign reads it: docs/guarantees.md). */
const NOT_ALLOWED = /[^\p{L}\p{M}0-9 .,:;!?'"()\-_/#@&+*%=]+/gu;

/**
 * The short text shown both by the MCP client and on the phone, so the person can tell that the
 * request on the phone is the call on the screen: `<server>: <tool> #<4 characters of the call key>`,
 * at most 64 characters of the characters Countersign accepts (others become spaces).
 *
 * @see CIBA Core 1.0 §7.1 (binding_message)
 */
export function bindingMessage(server: string, tool: string, key: string): string {
  const tag = ` #${key.slice(0, 4)}`;
  const text = `${server}: ${tool}`.replace(NOT_ALLOWED, ' ').replace(/\s+/g, ' ').trim();
  return `${text.slice(0, 64 - tag.length).trim()}${tag}`;
}

/**
 * An upstream's error text as an outcome `reason` Countersign accepts and the phone shows: display
 * text ({@link toDisplayText}: what a person cannot see becomes a space), at most 500 characters.
 */
export function outcomeReason(text: string): string {
  const reason = toDisplayText(text).slice(0, 500).trim();
  return reason || 'the upstream answered with an error';
}
