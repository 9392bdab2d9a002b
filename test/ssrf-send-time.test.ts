import { createAgentClient, type AgentClient } from '@countersign/agent';
import { keys, type HostResolver } from '@countersign/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { PRODUCTION_URL, productionEnv } from './support/production.ts';
import { listenCounting, type CountingListener } from '../server/src/outbound/counting-listener.test-support.ts';

/**
 * Server-side request forgery through the URLs clients name, in production mode
 * (`NODE_ENV=production`), at send time: a notification endpoint whose host resolves to an
 * internal address when the server is about to call it gets no connection at all, and one stored
 * before the rules is refused before anything is issued. Refusals at registration are in
 * `ssrf-registration.test.ts`.
 */

const NOTIFICATION_TOKEN = 'cnt_5d41402abc4b2a76b9719d911017c592';

/** A resolver that answers `address` for every name, as a DNS server rebinding the name would. */
function answering(address: string): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    async (hostname: string) => {
      asked.push(hostname);
      return [{ address, family: address.includes(':') ? (6 as const) : (4 as const) }];
    },
    { asked },
  );
}

describe.each(['memory', 'redis'] as const)('SSRF through client endpoints, in production (%s store)', (storeKind) => {
  describe('at send time', () => {
    let harness: Harness;
    // A TCP listener on loopback that counts connections (before any TLS): the internal service an attacker aims at.
    let listener: CountingListener;
    let customer: EnrolledUser;

    afterEach(async () => {
      await harness.close();
      await listener.close();
    });

    async function start(options: Parameters<typeof createHarness>[0]): Promise<void> {
      listener = await listenCounting();
      harness = await createHarness({ store: storeKind, publicUrl: PRODUCTION_URL, env: productionEnv(), ...options });
      customer = await harness.enrollUser('customer_1');
    }

    async function agentFor(mode: 'ping' | 'push', endpoint: string): Promise<{ agent: AgentClient; clientId: string }> {
      const { status, body } = await harness.admin('POST', '/clients', { name: `${mode} agent`, token_delivery_mode: mode, backchannel_client_notification_endpoint: endpoint });
      expect(status).toBe(201);
      return { agent: createAgentClient({ issuer: harness.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: harness.fetch }), clientId: body.client_id };
    }

    async function notifyFailures(authReqId: string) {
      const events: { type: string; reason?: string; detail?: Record<string, unknown> }[] = (await harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events;
      return events.filter((event) => event.type === 'notify_failed' || event.type === 'notified');
    }

    it.each([
      ['ping', '127.0.0.1', 'a loopback address'],
      ['ping', '169.254.169.254', 'a link-local address'],
      ['push', '127.0.0.1', 'a loopback address'],
      ['push', '::ffff:169.254.169.254', 'an IPv4-mapped address embedding 169.254.169.254, a link-local address'],
    ] as const)('%s: a registered name that resolves to %s gets no connection, and the delivery is audited endpoint_forbidden, not retried', async (mode, address, why) => {
      const resolve = answering(address);
      await start({ notifications: { resolve, timeoutMs: 1000 } });
      // A public-looking name passes registration; what it resolves to is only known when the server connects.
      const { agent } = await agentFor(mode, `https://callback.acme-payments.com:${listener.port}/cb`);
      const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN });
      expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
      await harness.drain();

      expect(resolve.asked).toEqual(['callback.acme-payments.com']);
      expect(listener.connections).toBe(0);
      expect(harness.sleeps).toEqual([]);
      expect(await notifyFailures(asked.auth_req_id)).toEqual([expect.objectContaining({ type: 'notify_failed', reason: 'endpoint_forbidden', detail: { mode, attempts: 1, problem: `its host callback.acme-payments.com resolves to ${address}, ${why}` } })]);
    });

    it('refuses an internal endpoint stored before these rules, before issuing anything or calling the transport', async () => {
      const calls: string[] = [];
      await start({
        notifications: {
          fetch: async (url) => {
            calls.push(url);
            return new Response(null, { status: 204 });
          },
        },
      });
      const { agent, clientId } = await agentFor('push', 'https://callback.acme-payments.com/cb');
      // As a record written under older rules, or by hand, would hold it.
      const record = JSON.parse((await harness.store.get(keys.client(clientId)))!);
      await harness.store.set(keys.client(clientId), JSON.stringify({ ...record, backchannel_client_notification_endpoint: `https://169.254.169.254:${listener.port}/latest/meta-data/` }));
      const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN });
      expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
      await harness.drain();

      // The transport was never called: nothing left for the address.
      expect(calls).toEqual([]);
      expect(await notifyFailures(asked.auth_req_id)).toEqual([expect.objectContaining({ type: 'notify_failed', reason: 'endpoint_forbidden', detail: { mode: 'push', attempts: 1, problem: 'its host 169.254.169.254 is a link-local address' } })]);
      // No approval token was issued for an endpoint that could never receive it.
      const fields = await harness.store.hashGet(keys.request('default', asked.auth_req_id));
      expect(fields?.token_jti ?? '').toBe('');
    });
  });
});
