import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../support/harness.ts';
import { connectStdio } from '../support/mcp-gateway.ts';
import { useGatewayScene } from './support.ts';

// A gateway killed while a call waits, a /redeem whose answer is lost, and a gateway whose Redis is down.

describe('MCP gateway', () => {
  const gw = useGatewayScene();

  describe('over stdio, a gateway killed while a call waits', () => {
    it('resumes the pending approval after a restart (Redis) and runs the call once', async () => {
      const env = { REDIS_URL: inject('redisUrl') };
      const config = await gw.workspace.config('restart', gw.client, gw.harness, { wait_seconds: 15, redis_prefix: `test:${randomBytes(6).toString('hex')}:` });
      const first = await connectStdio(config, { via: 'node', env });
      const before = await gw.seenRequests();
      const waiting = gw.deleteEntities(first, ['Ivan']).catch((error: Error) => error);
      const auth_req_id = await gw.newRequest(before);
      process.kill(first.pid!, 'SIGKILL');
      expect(await waiting).toBeInstanceOf(Error);
      await first.close();

      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      expect(await gw.workspace.entities()).toContain('Ivan');
      const second = gw.track(await connectStdio(config, { via: 'node', env }));
      const result = await gw.deleteEntities(second, ['Ivan']);
      expect(result.structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).not.toContain('Ivan');
      expect((await gw.seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
      await second.close();

      // A third process answers the executed call from Redis: the recorded result, not a second run.
      const third = gw.track(await connectStdio(config, { via: 'node', env }));
      expect(await gw.deleteEntities(third, ['Ivan'])).toEqual(result);
      expect((await gw.auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
    });
  });

  describe('over stdio, a /redeem whose answer is lost', () => {
    it('runs the call once when the same call comes again: the retry finds its own redemption and claims it', async () => {
      // Between the gateway and Countersign: the first POST /redeem reaches the server, is
      // redeemed, and its answer never comes back (the connection is cut).
      let cut = 0;
      const proxy = createServer((incoming, answer) => {
        const target = new URL(incoming.url ?? '/', gw.harness.issuer);
        const forward = request(target, { method: incoming.method, headers: incoming.headers }, (response) => {
          if (incoming.method === 'POST' && target.pathname === '/redeem' && cut === 0) {
            cut += 1;
            response.resume();
            response.on('end', () => answer.socket?.destroy());
            return;
          }
          answer.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(answer);
        });
        incoming.pipe(forward);
      });
      const proxyPort = await freePort();
      await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
      gw.track({ close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) });
      const config = await gw.workspace.config('lost-redeem', gw.client, gw.harness, {
        wait_seconds: 15,
        countersign: { issuer: `http://127.0.0.1:${proxyPort}`, client_id: gw.client.client_id, client_secret: gw.client.client_secret },
      });
      const gateway = gw.track(await connectStdio(config));

      const before = await gw.seenRequests();
      const first = gw.deleteEntities(gateway, ['Peggy']);
      const auth_req_id = await gw.newRequest(before);
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      // Redeemed on the server; the gateway heard nothing, so it did not call the upstream.
      expect(await first).toMatchObject({ isError: true, structuredContent: { status: 'refused', auth_req_id } });
      expect(cut).toBe(1);
      expect((await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.state).toBe('redeemed');
      expect(await gw.workspace.entities()).toContain('Peggy');

      // The same call again: `already_redeemed` names a redemption with no outcome while this call's
      // record still holds the token; the gateway claims it and runs the upstream, once.
      const second = await gw.deleteEntities(gateway, ['Peggy']);
      expect(second).toMatchObject({ structuredContent: { success: true, message: 'Entities deleted successfully' } });
      expect(await gw.workspace.entities()).not.toContain('Peggy');
      expect((await gw.auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
      expect((await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome).toMatchObject({ status: 'succeeded' });
      // And never again: the third call is answered from the record.
      expect(await gw.deleteEntities(gateway, ['Peggy'])).toEqual(second);
      expect((await gw.seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
    });
  });
  describe('over stdio, a gateway whose Redis is down', () => {
    it('answers a gated call refused temporarily_unavailable, asks nobody and runs nothing; read_graph still passes', async () => {
      const deadPort = await freePort();
      const gateway = gw.track(await connectStdio(await gw.workspace.config('redis-down', gw.client, gw.harness, { wait_seconds: 5 }), { env: { REDIS_URL: `redis://127.0.0.1:${deadPort}` } }));
      const before = await gw.seenRequests();
      const result = await gw.deleteEntities(gateway, ['Olivia']);
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'refused', error: 'temporarily_unavailable' } });
      expect(await gw.workspace.entities()).toContain('Olivia');
      expect(await gw.seenRequests()).toEqual(before);
      expect(((await gateway.client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult).isError).toBeFalsy();
    });
  });
});
