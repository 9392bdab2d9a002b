import type { AuthorizationDetails } from '@countersign/shared';

/** The tool call of docs/ciba.md (`memory: delete_entities` of Alice), with overrides. */
export function toolCall(overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'tool_call',
      transaction_id: 'mcp_1',
      server: 'memory',
      tool: 'delete_entities',
      arguments: { entityNames: ['Alice'] },
      annotations: { destructiveHint: true },
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}
