import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/mcp-gateway.ts';
import { useGatewayScene, useStdioGateway } from './support.ts';

// Over stdio, a client that waits: arguments over 8 KB, an upstream's own error, and two concurrent calls.

describe('MCP gateway', () => {
  const gw = useGatewayScene();

  describe('over stdio, a client that waits', () => {
    const gateway = useStdioGateway(gw, 'waits', { wait_seconds: 15 });

    it('refuses arguments over 8 KB as JCS before anyone is asked, and calls nothing', async () => {
      const before = await gw.seenRequests();
      const result = await gw.deleteEntities(gateway, ['Olivia', 'x'.repeat(8 * 1024)]);
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'refused', error: 'invalid_authorization_details' } });
      expect(await gw.seenRequests()).toEqual(before);
      expect(await gw.workspace.entities()).toContain('Olivia');
    });

    it('reports the upstream’s error as a failed outcome and answers the upstream’s own error result', async () => {
      const before = await gw.seenRequests();
      // Not an array: the upstream refuses its own input, after the approval.
      const call = gateway.client.callTool({ name: 'delete_entities', arguments: { entityNames: 'Olivia' } }) as Promise<CallToolResult>;
      const auth_req_id = await gw.newRequest(before);
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      const result = await call;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/Input validation error/) }]);
      const outcome = await eventually(async () => (await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome as { status: string; reason?: string } | undefined);
      expect(outcome).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^MCP error -32602: Input validation error/) });
      expect(await gw.workspace.entities()).toContain('Olivia');
    });

    it('gives two concurrent calls with different arguments two requests, each released by its own approval', async () => {
      const before = await gw.seenRequests();
      const frank = gw.deleteEntities(gateway, ['Frank']);
      const grace = gw.deleteEntities(gateway, ['Grace']);
      const [one, two] = await eventually(async () => {
        const fresh = (await gw.seenRequests()).filter((id) => !before.includes(id));
        return fresh.length === 2 ? fresh : undefined;
      });
      const details = async (id: string) => (await gw.harness.admin('GET', `/requests/${id}`)).body.request.authorization_details[0].arguments.entityNames[0] as string;
      const frankId = (await details(one!)) === 'Frank' ? one! : two!;
      const graceId = frankId === one ? two! : one!;
      await gw.harness.decide(gw.user, frankId, 'approve');
      expect((await frank).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).toContain('Grace');
      await gw.harness.decide(gw.user, graceId, 'deny');
      expect((await grace).structuredContent).toMatchObject({ status: 'denied' });
      expect(await gw.workspace.entities()).toContain('Grace');
    });
  });
});
