import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/harness.ts';
import { connectStdio, startHttpGateway, type HttpGateway } from '../support/mcp-gateway.ts';
import { useGatewayScene } from './support.ts';

// The gateway over Streamable HTTP, and in front of a Streamable HTTP upstream.

describe('MCP gateway', () => {
  const gw = useGatewayScene();

  describe('over Streamable HTTP', () => {
    let gateway: HttpGateway;
    beforeAll(async () => {
      gateway = await startHttpGateway(await gw.workspace.config('http', gw.client, gw.harness, { wait_seconds: 15 }), await freePort());
      gw.track({ close: () => gateway.stop() });
    });

    it('passes read_graph through and runs a gated call once after the approval', async () => {
      const mcp = gw.track(await gateway.connect());
      const read = (await mcp.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect((read.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain('Grace');

      const before = await gw.seenRequests();
      const call = mcp.callTool({ name: 'delete_entities', arguments: { entityNames: ['Grace'] } }) as Promise<CallToolResult>;
      const auth_req_id = await gw.newRequest(before);
      expect(await gw.workspace.entities()).toContain('Grace');
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      expect((await call).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).not.toContain('Grace');
    });

    it('stands in front of a Streamable HTTP upstream too: tools listed, read_graph through', async () => {
      // The upstream here is the HTTP gateway above (itself in front of the memory server): what
      // matters is the {name, url} upstream. Its gated tools stay gated by it, and say so.
      const outer = gw.track(await connectStdio(await gw.workspace.config('remote', gw.client, gw.harness, { upstream: { name: 'remote', url: gateway.url.href } })));
      const { tools } = await outer.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('read_graph');
      expect(tools.find((tool) => tool.name === 'delete_entities')!.description).toMatch(/on their phone/);
      const read = (await outer.client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect((read.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain('Dave');
    });

    it('answers outside localhost with 403, and an unknown session with 404', async () => {
      // A DNS-rebound page reaches 127.0.0.1 with its own name in Host (fetch cannot set Host).
      const wrongHost = await new Promise<number>((resolve, reject) => {
        const sent = request(gateway.url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (res) => resolve(res.statusCode!));
        sent.once('error', reject);
        sent.end('{}');
      });
      expect(wrongHost).toBe(403);
      const unknown = await fetch(gateway.url, { method: 'POST', headers: { 'mcp-session-id': 'nope', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(unknown.status).toBe(404);
    });
  });
});
