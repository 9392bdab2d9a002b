import { createPingInbox, createRedisPendingApprovals } from '@countersign/agent';
import { countersign } from '@countersign/ai-sdk';
import type { ModelMessage } from 'ai';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { servePingInbox, type PingEndpoint } from '../support/ping-endpoint.ts';
import { modelSaw, OTHER_REFUND, REFUND, scriptedModel, useAiSdk } from './support.ts';

// Two gated calls in one step, a run continued in another process, and waiting for a ping.

describe('Countersign for the Vercel AI SDK (@countersign/ai-sdk)', () => {
  const ai = useAiSdk();

  it('asks once per call for two gated calls of one step with different arguments, and approving one releases only that one', async () => {
    const model = scriptedModel([
      { toolName: 'refund_order', input: REFUND },
      { toolName: 'refund_order', input: OTHER_REFUND },
    ]);
    const messages: ModelMessage[] = [{ role: 'user', content: 'Refund orders 1042 and 1043.' }];
    const stopped = await ai.run(model, messages);
    expect(stopped.content.filter((part) => part.type === 'tool-approval-request')).toHaveLength(2);
    expect(ai.asked.map((entry) => entry.amount_minor)).toEqual([49000, 12000]);
    expect(new Set(ai.asked.map((entry) => entry.auth_req_id)).size).toBe(2);
    messages.push(...stopped.responseMessages);

    // The person approves the second refund only.
    expect((await ai.harness.decide(ai.approver, ai.asked[1]!.auth_req_id, 'approve')).status).toBe(200);
    const answers = (await ai.gate.waitForDecisions(messages))!;
    expect(answers.content.map((part) => (part.type === 'tool-approval-response' ? part.approved : undefined))).toEqual([false, true]);
    // An app that answers yes to both gets no more than the person approved.
    for (const part of answers.content) if (part.type === 'tool-approval-response') part.approved = true;
    messages.push(answers);

    const result = await ai.run(model, messages);
    expect(ai.refundExecute).toHaveBeenCalledTimes(1);
    expect(ai.refundExecute.mock.calls[0]?.[0]).toEqual(OTHER_REFUND);
    expect(ai.ledger.refunds).toMatchObject([{ order_id: '1043', amount_minor: 12000 }]);
    const saw = modelSaw(result.text);
    expect(saw.call_1).toMatchObject({ type: 'json', value: { status: 'approval_pending', auth_req_id: ai.asked[0]!.auth_req_id } });
    expect(saw.call_2).toMatchObject({ type: 'json', value: { status: 'executed', auth_req_id: ai.asked[1]!.auth_req_id } });
    expect((await ai.agent.getRequest(ai.asked[0]!.auth_req_id)).state).toBe('pending');
    expect(ai.asked).toHaveLength(2);
  });

  it('continues in another process (one Countersign per request, the pending approvals in Redis): asked once, run once', async () => {
    const redis = new Redis(inject('redisUrl'));
    try {
      const store = createRedisPendingApprovals(redis, { prefix: `test:{ai-sdk-${randomBytes(6).toString('hex')}}:` });
      // Each HTTP request of a serverless app builds its own; only the store is shared.
      const perRequest = () => countersign({ client: ai.agent, tools: ai.tools, wait: 'poll', waitTimeoutSeconds: 60, pending: store, now: () => ai.harness.clock.now() });
      const model = scriptedModel([{ toolName: 'refund_order', input: REFUND }]);
      const messages: ModelMessage[] = [{ role: 'user', content: 'Refund order 1042.' }];

      const stopped = await ai.run(model, messages, perRequest().settings());
      messages.push(...stopped.responseMessages);
      expect(await store.list()).toMatchObject([{ tool: 'refund_order', auth_req_id: ai.asked[0]!.auth_req_id }]);
      expect((await ai.harness.decide(ai.approver, ai.asked[0]!.auth_req_id, 'approve')).status).toBe(200);
      messages.push((await perRequest().waitForDecisions(messages))!);

      const resumed = await ai.run(model, messages, perRequest().settings());
      expect(modelSaw(resumed.text).call_1).toMatchObject({ type: 'json', value: { status: 'executed', auth_req_id: ai.asked[0]!.auth_req_id } });
      expect(ai.refundExecute).toHaveBeenCalledTimes(1);
      expect(ai.bcAuthorizeCalls).toBe(1);
      expect(await store.list()).toEqual([]);
    } finally {
      await redis.quit();
    }
  });

  describe('waiting for a ping (CIBA Core §10.2)', () => {
    let endpoint: PingEndpoint;
    afterEach(async () => {
      await endpoint.close();
    });

    it('asks with the inbox bearer, waits for the ping instead of polling, then runs the approved call once', async () => {
      const inbox = createPingInbox();
      endpoint = await servePingInbox(inbox);
      const created = await ai.harness.admin('POST', '/clients', {
        name: 'Ping agent',
        token_delivery_mode: 'ping',
        backchannel_client_notification_endpoint: endpoint.url,
      });
      expect(created.status).toBe(201);
      const pingClient = ai.clientFor(created.body.client_id, created.body.client_secret);
      const waitForDecision = vi.spyOn(pingClient, 'waitForDecision');
      const pingGate = countersign({ client: pingClient, tools: ai.tools, wait: { ping: inbox }, now: () => ai.harness.clock.now() });
      const model = scriptedModel([{ toolName: 'refund_order', input: REFUND }]);
      const messages: ModelMessage[] = [{ role: 'user', content: 'Refund order 1042.' }];

      const stopped = await ai.run(model, messages, pingGate.settings());
      expect(stopped.content.filter((part) => part.type === 'tool-approval-request')).toHaveLength(1);
      messages.push(...stopped.responseMessages);
      const decided = pingGate.waitForDecisions(messages);
      expect((await ai.harness.decide(ai.approver, ai.asked[0]!.auth_req_id, 'approve')).status).toBe(200);
      const answers = (await decided)!;
      expect(answers.content).toEqual([expect.objectContaining({ approved: true })]);
      messages.push(answers);

      const resumed = await ai.run(model, messages, pingGate.settings());
      expect(modelSaw(resumed.text).call_1).toMatchObject({ type: 'json', value: { status: 'executed', result: { refund_id: 're_1' } } });
      expect(ai.refundExecute).toHaveBeenCalledTimes(1);
      expect(waitForDecision).not.toHaveBeenCalled();
      expect(ai.bcAuthorizeCalls).toBe(1);
    });
  });
});
