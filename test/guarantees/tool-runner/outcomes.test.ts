import { CountersignError } from '@countersign/shared';
import { createPingInbox, type AgentClient } from '@countersign/agent';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { servePingInbox, type PingEndpoint } from '../../support/ping-endpoint.ts';
import { runModel, SCENARIOS, useGate } from './support.ts';

// A call that expires, malformed arguments, waiting for a ping, and a server failure that is not a refusal.

describe('the tool runner, gated by Countersign', () => {
  const gate = useGate();

  it('returns expired without executing when nobody decides before the request expires', async () => {
    const run = await runModel(gate.runnerWith('poll'), [{ name: 'refund_order', args: SCENARIOS.refund_order!.args }]);
    expect(run.transcript[0]!.result).toMatchObject({ status: 'expired', tool: 'refund_order' });
    expect(gate.executes.refund_order).toHaveBeenCalledTimes(0);
  });

  it('refuses malformed arguments before asking anyone', async () => {
    const requestApproval = vi.spyOn(gate.agent, 'requestApproval');
    const run = await runModel(gate.runnerWith('poll'), [{ name: 'refund_order', args: { ...SCENARIOS.refund_order!.args, amount_minor: '490.00' } }]);
    expect(run.transcript[0]!.result).toMatchObject({ status: 'refused', error: 'invalid_request', error_description: /amount_minor/ });
    expect(requestApproval).not.toHaveBeenCalled();
    expect(gate.executes.refund_order).toHaveBeenCalledTimes(0);
  });

  describe('waiting for a ping (CIBA Core §10.2)', () => {
    let endpoint: PingEndpoint;
    afterEach(async () => {
      await endpoint.close();
    });

    it('waits for the ping, then executes once with the approved arguments', async () => {
      const inbox = createPingInbox();
      endpoint = await servePingInbox(inbox);
      const created = await gate.harness.admin('POST', '/clients', {
        name: 'Ping agent',
        token_delivery_mode: 'ping',
        backchannel_client_notification_endpoint: endpoint.url,
      });
      expect(created.status).toBe(201);
      const pingClient = gate.clientFor(created.body.client_id, created.body.client_secret);
      const waitForDecision = vi.spyOn(pingClient, 'waitForDecision');

      gate.onAsk = 'approve';
      const run = await runModel(gate.runnerWith({ ping: inbox }, pingClient), [{ name: 'refund_order', args: SCENARIOS.refund_order!.args }]);
      expect(run.transcript[0]!.result).toMatchObject({ status: 'executed', outcome: { status: 'succeeded', reference: gate.world.payments.refunds[0]?.refund_id } });
      expect(gate.executes.refund_order).toHaveBeenCalledTimes(1);
      expect(waitForDecision).not.toHaveBeenCalled();
    });
  });

  it('does not treat a server failure as a refusal: it propagates, and nothing runs', async () => {
    const failing: AgentClient = { ...gate.agent, redeem: async () => Promise.reject(new CountersignError('server_error', 'redeem is down')) };
    gate.onAsk = 'approve';
    await expect(runModel(gate.runnerWith('poll', failing), [{ name: 'pay_invoice', args: SCENARIOS.pay_invoice!.args }])).rejects.toMatchObject({ code: 'server_error' });
    expect(gate.executes.pay_invoice).toHaveBeenCalledTimes(0);
  });
});
