import { displayAction, type AuthorizationDetails } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { accessChange, deletion, message, recordChange } from './support/action-samples.ts';
import { mandate } from './support/mandate.ts';
import { payment } from './support/payment.ts';
import { actionDisplay } from '../server/src/openapi/display-schemas.ts';

/**
 * The OpenAPI document's `ActionDisplay` describes what the server really shows for each action
 * type, its nested parts included (the records of a deletion, a message's recipients, an access
 * change, a record's changes, a mandate's bounds, a tool call's arguments), not just that they are
 * objects.
 */
describe("the document's ActionDisplay", () => {
  const toolCall = [{ type: 'tool_call', transaction_id: 'mcp_1', server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['Alice'], dry: false, limit: 2, nested: { a: null } } }] as AuthorizationDetails;
  const cases: [string, string, AuthorizationDetails][] = [
    ['payment', 'amount', payment()],
    ['deletion', 'records', deletion()],
    ['message', 'message', message()],
    ['access_change', 'access', accessChange()],
    ['record_change', 'changes', recordChange()],
    ['mandate', 'mandate', mandate(Date.parse('2026-12-01T00:00:00Z'))],
    ['tool_call', 'arguments', toolCall],
  ];

  it.each(cases)('matches the display of a %s, with its %s part', (_type, part, details) => {
    const shown = displayAction(details[0]!);
    expect(shown).toHaveProperty(part);
    expect(actionDisplay.safeParse(shown).error?.issues ?? []).toEqual([]);
  });

  it('refuses a display whose nested part has the wrong shape', () => {
    const shown = displayAction(deletion()[0]!);
    expect(actionDisplay.safeParse({ ...shown, records: { ...shown.records, count: 'many' } }).success).toBe(false);
    expect(actionDisplay.safeParse({ ...displayAction(accessChange()[0]!), access: { kind: 'promote' } }).success).toBe(false);
  });
});
