import * as oidc from 'openid-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { startNotificationReceiver } from './support/notification-receiver.ts';
import { payment } from './support/payment.ts';

/**
 * An agent written against openid-client (v6), a certified OpenID Relying Party library, works
 * with Countersign unchanged: discovery, the backchannel authentication request and polling of
 * the CIBA grant. The person approves through the device API with a software passkey.
 */
describe('interop with openid-client', () => {
  let harness: Harness;
  let issuer: string;
  let customer: EnrolledUser;

  beforeEach(async () => {
    const port = await freePort();
    issuer = `http://localhost:${port}`;
    harness = await createHarness({ store: 'redis', publicUrl: issuer, env: { POLL_INTERVAL: '1' } });
    await harness.listen(port);
    customer = await harness.enrollUser('alice');
  });
  afterEach(() => harness.close());

  async function discover(clientId: string, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
    return oidc.discovery(new URL(issuer), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
  }

  it('discovers the CIBA endpoints and grant', async () => {
    const { client_id, client_secret } = await harness.createClient('Interop agent');
    const config = await discover(client_id, oidc.ClientSecretBasic(client_secret));
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.backchannel_authentication_endpoint).toBe(`${issuer}/bc-authorize`);
    expect(metadata.grant_types_supported).toContain('urn:openid:params:grant-type:ciba');
    expect(metadata.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping', 'push']);
  });

  it('runs the CIBA poll flow with client_secret_basic and returns the approved action', async () => {
    const { client_id, client_secret } = await harness.createClient('Interop agent');
    const config = await discover(client_id, oidc.ClientSecretBasic(client_secret));
    const started = await oidc.initiateBackchannelAuthentication(config, {
      scope: 'openid',
      login_hint: customer.sub,
      binding_message: 'Order 1042',
      authorization_details: JSON.stringify(payment()),
    });
    expect(started.interval).toBe(1);
    const approval = harness.decide(customer, started.auth_req_id, 'approve');
    const tokens = await oidc.pollBackchannelAuthenticationGrant(config, started);
    expect((await approval).status).toBe(200);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.authorization_details).toEqual(payment());
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: issuer, sub: 'alice', aud: client_id, 'urn:openid:params:jwt:claim:auth_req_id': started.auth_req_id });
  });

  it('surfaces a denial as access_denied', async () => {
    const { client_id, client_secret } = await harness.createClient('Interop agent');
    const config = await discover(client_id, oidc.ClientSecretBasic(client_secret));
    const started = await oidc.initiateBackchannelAuthentication(config, { scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()) });
    await harness.decide(customer, started.auth_req_id, 'deny');
    await expect(oidc.pollBackchannelAuthenticationGrant(config, started)).rejects.toMatchObject({ error: 'access_denied' });
  });

  it('runs the CIBA ping flow: the ping names the request, then the grant is fetched', async () => {
    const receiver = await startNotificationReceiver();
    try {
      const created = await harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
      const config = await discover(created.body.client_id, oidc.ClientSecretBasic(created.body.client_secret));
      const notificationToken = 'ping-bearer-8f2d1c';
      const started = await oidc.initiateBackchannelAuthentication(config, {
        scope: 'openid',
        login_hint: customer.sub,
        client_notification_token: notificationToken,
        authorization_details: JSON.stringify(payment()),
      });
      expect((await harness.decide(customer, started.auth_req_id, 'approve')).status).toBe(200);
      await harness.deps.background.drain();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.headers.authorization).toBe(`Bearer ${notificationToken}`);
      expect(receiver.received[0]!.json).toEqual({ auth_req_id: started.auth_req_id });
      // A ping client fetches the result with the same grant once told.
      const tokens = await oidc.pollBackchannelAuthenticationGrant(config, { ...started, interval: 0 });
      expect(tokens.authorization_details).toEqual(payment());
      expect(tokens.claims()?.['urn:openid:params:jwt:claim:auth_req_id']).toBe(started.auth_req_id);
    } finally {
      await receiver.close();
    }
  });
});
