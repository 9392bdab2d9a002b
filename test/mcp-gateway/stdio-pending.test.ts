import { ElicitRequestSchema, ElicitationCompleteNotificationSchema, type CallToolResult, type ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectStdio, eventually } from '../support/mcp-gateway.ts';
import { useGatewayScene, useStdioGateway } from './support.ts';

// Over stdio, a call that gives up waiting: approval_pending resumed by the same call, Tasks, and URL elicitation.

describe('MCP gateway', () => {
  const gw = useGatewayScene();

  describe('over stdio, a gateway that waits 1 s', () => {
    const gateway = useStdioGateway(gw, 'quick', { wait_seconds: 1 });

    it('answers approval_pending to a client without elicitation, and the same call again resumes the same approval: one request on the phone', async () => {
      const before = await gw.seenRequests();
      const pending = await gw.deleteEntities(gateway, ['Heidi']);
      expect(pending).toMatchObject({ isError: true, structuredContent: { status: 'approval_pending', binding_message: expect.stringMatching(/^memory: delete_entities #/) } });
      const { auth_req_id } = pending.structuredContent as { auth_req_id: string };
      expect(await gw.workspace.entities()).toContain('Heidi');

      // Twice at once: one approval for both, and the second's time queued behind the first counts
      // against its wait (about 1 s for both, not 2: a client's timeout does not restart in the queue).
      const started = Date.now();
      const twice = await Promise.all([gw.deleteEntities(gateway, ['Heidi']), gw.deleteEntities(gateway, ['Heidi'])]);
      // Each wait sleeps to its deadline: queued and waited in full, the pair takes 2 s or more.
      expect(Date.now() - started).toBeLessThan(1950);
      expect(twice.map((answer) => answer.structuredContent)).toEqual([expect.objectContaining({ status: 'approval_pending', auth_req_id }), expect.objectContaining({ status: 'approval_pending', auth_req_id })]);
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      const result = await gw.deleteEntities(gateway, ['Heidi']);
      expect(result.structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).not.toContain('Heidi');
      expect((await gw.seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
    });

    it('gives a client with Tasks a task that stays working until the approval, then completes with the upstream’s result', async () => {
      const { tools } = await gateway.client.listTools();
      expect(tools.find((tool) => tool.name === 'delete_entities')!.execution).toEqual({ taskSupport: 'optional' });
      const before = await gw.seenRequests();
      const messages: { type: string; task?: { taskId: string; status: string }; result?: CallToolResult }[] = [];
      const stream = (async () => {
        for await (const message of gateway.client.experimental.tasks.callToolStream({ name: 'delete_entities', arguments: { entityNames: ['Mallory'] } }, undefined, { task: { ttl: 60_000 } })) {
          messages.push(message as (typeof messages)[number]);
        }
      })();
      const auth_req_id = await gw.newRequest(before);
      const created = await eventually(async () => messages.find((message) => message.type === 'taskCreated')?.task);
      // Longer than wait_seconds: a task is not cut short by it.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await gateway.client.experimental.tasks.getTask(created.taskId)).status).toBe('working');
      expect(await gw.workspace.entities()).toContain('Mallory');
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      await stream;
      expect(messages.at(-1)).toMatchObject({ type: 'result', result: { structuredContent: { success: true, message: 'Entities deleted successfully' } } });
      expect((await gateway.client.experimental.tasks.getTask(created.taskId)).status).toBe('completed');
      expect(await gw.workspace.entities()).not.toContain('Mallory');
    });
  });

  describe('over stdio, a client with URL elicitation', () => {
    it('is sent an elicitation/create of mode url linking to the request in the approver app, then elicitation/complete', async () => {
      const gateway = gw.track(await connectStdio(await gw.workspace.config('elicit', gw.client, gw.harness, { wait_seconds: 15 }), { capabilities: { capabilities: { elicitation: { url: {} } } } }));
      const elicitations: ElicitRequestURLParams[] = [];
      const completed: string[] = [];
      gateway.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicitations.push(request.params as ElicitRequestURLParams);
        return { action: 'accept' };
      });
      gateway.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => void completed.push(notification.params.elicitationId));

      const before = await gw.seenRequests();
      const call = gw.deleteEntities(gateway, ['Judy']);
      const auth_req_id = await gw.newRequest(before);
      const elicitation = await eventually(async () => elicitations[0]);
      expect(elicitation).toMatchObject({ mode: 'url', url: `${gw.harness.issuer}/#/requests/${auth_req_id}`, message: expect.stringContaining('memory: delete_entities') });
      expect(completed).toEqual([]);
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      expect((await call).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(completed).toEqual([elicitation.elicitationId]);
    });

    it('completes the elicitation of an earlier call that gave up waiting, once a retry sees the decision', async () => {
      const gateway = gw.track(await connectStdio(await gw.workspace.config('elicit-quick', gw.client, gw.harness, { wait_seconds: 1 }), { capabilities: { capabilities: { elicitation: { url: {} } } } }));
      const elicitations: ElicitRequestURLParams[] = [];
      const completed: string[] = [];
      gateway.client.setRequestHandler(ElicitRequestSchema, async (request) => (elicitations.push(request.params as ElicitRequestURLParams), { action: 'accept' }));
      gateway.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => void completed.push(notification.params.elicitationId));

      const pending = await gw.deleteEntities(gateway, ['Niaj']);
      const { auth_req_id } = pending.structuredContent as { auth_req_id: string };
      expect(pending.structuredContent).toMatchObject({ status: 'approval_pending', approval_url: `${gw.harness.issuer}/#/requests/${auth_req_id}` });
      expect(elicitations.map((e) => e.url)).toEqual([`${gw.harness.issuer}/#/requests/${auth_req_id}`]);
      expect(completed).toEqual([]);
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      expect((await gw.deleteEntities(gateway, ['Niaj'])).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      // The retry found the decision on its first poll: nothing new to open, the old one completed.
      expect(elicitations).toHaveLength(1);
      expect(completed).toEqual([elicitations[0]!.elicitationId]);
    });
  });
});
