import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useGatewayScene, useStdioGateway } from './support.ts';

// Over stdio, a client that waits: tools listed and passed through; a gated call runs once on approval, never on a denial or an expiry.

describe('MCP gateway', () => {
  const gw = useGatewayScene();

  describe('over stdio, a client that waits', () => {
    const gateway = useStdioGateway(gw, 'waits', { wait_seconds: 15 });

    it('lists the upstream tools with their schemas and annotations, and marks the gated ones', async () => {
      const { tools } = await gateway.client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect([...byName.keys()].sort()).toEqual(['add_observations', 'create_entities', 'create_relations', 'delete_entities', 'delete_observations', 'delete_relations', 'open_nodes', 'read_graph', 'search_nodes']);
      const del = byName.get('delete_entities')!;
      expect(del.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      expect(del.inputSchema.properties).toHaveProperty('entityNames');
      expect(del.description).toMatch(/^Delete multiple entities .*\n\nCountersign: .*on their phone/s);
      expect(byName.get('read_graph')!.description).not.toMatch(/Countersign/);
      expect(byName.get('create_entities')!.description).not.toMatch(/Countersign/);
    });

    it('passes read_graph straight through, asking nobody', async () => {
      const before = await gw.seenRequests();
      const result = (await gateway.client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain('Alice');
      expect(await gw.seenRequests()).toEqual(before);
    });

    it('runs a gated call only after the approval, once, and answers the upstream’s own result', async () => {
      const before = await gw.seenRequests();
      const call = gw.deleteEntities(gateway, ['Alice']);
      const auth_req_id = await gw.newRequest(before);
      // Proposed and pushed, not run: the memory file still holds Alice.
      expect(await gw.workspace.entities()).toContain('Alice');
      const view = (await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request;
      expect(view.authorization_details).toEqual([expect.objectContaining({ type: 'tool_call', server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['Alice'] } })]);
      expect(view.binding_message).toMatch(/^memory: delete_entities #[A-Za-z0-9_-]{4}$/);

      expect((await gw.harness.decide(gw.user, auth_req_id, 'approve')).status).toBe(200);
      const result = await call;
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'Entities deleted successfully' }], structuredContent: { success: true, message: 'Entities deleted successfully' } });
      expect(result.isError).toBeFalsy();
      expect(await gw.workspace.entities()).not.toContain('Alice');
      const types = await gw.auditTypes(auth_req_id);
      expect(types.filter((type) => type === 'redeemed')).toHaveLength(1);
      expect((await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome).toMatchObject({ status: 'succeeded' });

      // The same call again is answered with the recorded result: not asked, not run, not redeemed again.
      expect(await gw.deleteEntities(gateway, ['Alice'])).toEqual(result);
      expect((await gw.seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
      expect((await gw.auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
    });

    it('asks again for a call with changed arguments after an approval', async () => {
      const before = await gw.seenRequests();
      const first = gw.deleteEntities(gateway, ['Bob']);
      const approved = await gw.newRequest(before);
      await gw.harness.decide(gw.user, approved, 'approve');
      await first;
      const second = gw.deleteEntities(gateway, ['Bob', 'Carol']);
      const other = await gw.newRequest([...before, approved]);
      expect(other).not.toBe(approved);
      expect(await gw.workspace.entities()).toContain('Carol');
      await gw.harness.decide(gw.user, other, 'approve');
      expect((await second).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).not.toContain('Carol');
    });

    it('answers denied when the person says no, and deletes nothing', async () => {
      const before = await gw.seenRequests();
      const call = gw.deleteEntities(gateway, ['Dave']);
      const auth_req_id = await gw.newRequest(before);
      await gw.harness.decide(gw.user, auth_req_id, 'deny');
      const result = await call;
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'denied', auth_req_id } });
      expect(await gw.workspace.entities()).toContain('Dave');
      expect(await gw.auditTypes(auth_req_id)).not.toContain('redeemed');
      // The same call again is denied at once: the person said no to exactly this, and is not asked again.
      expect((await gw.deleteEntities(gateway, ['Dave'])).structuredContent).toEqual({ status: 'denied', auth_req_id });
      expect((await gw.seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
    });

    it('answers expired when nobody decides in time, and deletes nothing', async () => {
      const before = await gw.seenRequests();
      const call = gw.deleteEntities(gateway, ['Erin']);
      const auth_req_id = await gw.newRequest(before);
      // The server's clock, not the test's time: the request's 300 s pass at once.
      gw.harness.clock.advance(601);
      const result = await call;
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'expired', auth_req_id } });
      expect(await gw.workspace.entities()).toContain('Erin');

      // The same call again is a new request (the dead one is not handed back), and runs once approved.
      const again = gw.deleteEntities(gateway, ['Erin']);
      const fresh = await gw.newRequest([...before, auth_req_id]);
      await gw.harness.decide(gw.user, fresh, 'approve');
      expect((await again).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).not.toContain('Erin');
    });
  });
});
