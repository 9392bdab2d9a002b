import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { PRODUCTION_URL, productionEnv } from './support/production.ts';
import { recordWrites } from './support/store-watch.ts';

/**
 * Server-side request forgery through the URLs clients name, in production mode
 * (`NODE_ENV=production`), refused where the URL comes in: a notification endpoint that names an
 * internal address or name is refused at registration with `invalid_client_metadata`, and a push
 * subscription endpoint must be an allowed push service on port 443. What happens when the server
 * is about to call an endpoint is in `ssrf-send-time.test.ts`.
 */

describe.each(['memory', 'redis'] as const)('SSRF through client endpoints, in production (%s store)', (storeKind) => {
  describe('at registration', () => {
    let harness: Harness;
    beforeEach(async () => {
      harness = await createHarness({ store: storeKind, publicUrl: PRODUCTION_URL, env: productionEnv() });
    });
    afterEach(async () => {
      await harness.close();
    });

    it.each([
      ['https://169.254.169.254/latest/meta-data/', 'its host 169.254.169.254 is a link-local address'],
      ['https://2852039166/latest/meta-data/', 'its host 169.254.169.254 is a link-local address'],
      ['https://0251.0376.0251.0376/latest/meta-data/', 'its host 169.254.169.254 is a link-local address'],
      ['https://[::ffff:169.254.169.254]/latest/meta-data/', 'its host [::ffff:a9fe:a9fe] is an IPv4-mapped address embedding 169.254.169.254, a link-local address'],
      ['https://[64:ff9b::a9fe:a9fe]/', 'its host [64:ff9b::a9fe:a9fe] is a NAT64 address embedding 169.254.169.254, a link-local address'],
      ['https://127.0.0.1:8443/cb', 'its host 127.0.0.1 is a loopback address'],
      ['https://[::1]/cb', 'its host [::1] is a loopback address'],
      ['https://0.0.0.0/cb', 'its host 0.0.0.0 is an unspecified address'],
      ['https://[::]/cb', 'its host [::] is an unspecified address'],
      ['https://10.1.2.3/cb', 'its host 10.1.2.3 is a private address (RFC 1918)'],
      ['https://192.168.0.10/cb', 'its host 192.168.0.10 is a private address (RFC 1918)'],
      ['https://100.64.1.1/cb', 'its host 100.64.1.1 is a carrier-grade NAT address (100.64.0.0/10)'],
      ['https://[fd00:ec2::254]/cb', 'its host [fd00:ec2::254] is a unique-local address (fc00::/7)'],
      ['https://[fe80::1]/cb', 'its host [fe80::1] is a link-local address'],
      ['https://224.0.0.251/cb', 'its host 224.0.0.251 is a multicast address'],
      ['https://255.255.255.255/cb', 'its host 255.255.255.255 is the broadcast address'],
      ['https://240.0.0.1/cb', 'its host 240.0.0.1 is a reserved address'],
      ['https://localhost/cb', 'its host localhost names this machine (localhost)'],
      ['https://localhost./cb', 'its host localhost. names this machine (localhost)'],
      ['https://admin.localhost/cb', 'its host admin.localhost names this machine (localhost)'],
      ['https://vault.internal/cb', 'its host vault.internal is under .internal, which is reserved and never reachable'],
      ['https://nas.local./cb', 'its host nas.local. is under .local, which is reserved and never reachable'],
      ['https://metadata.google.internal/computeMetadata/v1/', 'its host metadata.google.internal names a cloud metadata service'],
      ['https://metadata.tencentyun.com/latest/meta-data/', 'its host metadata.tencentyun.com names a cloud metadata service'],
      ['https://intranet/cb', 'its host intranet is a single-label name, not a public domain'],
      ['https://agent:s3cret@callback.acme-payments.com/cb', 'it carries user:pass@ credentials'],
      ['http://callback.acme-payments.com/cb', 'it must be https'],
      ['http://localhost:9000/cb', 'it must be https'],
    ])('refuses %s with invalid_client_metadata, storing nothing', async (endpoint, reason) => {
      const watch = recordWrites(harness.store);
      let response: { status: number; body: any };
      try {
        response = await harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: endpoint });
      } finally {
        watch.stop();
      }
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_client_metadata', error_description: `backchannel_client_notification_endpoint is refused: ${reason}.` });
      expect(watch.writes).toEqual([]);
    });

    it('registers a client whose endpoint is https on a public name (the control)', async () => {
      const { status, body } = await harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://callback.acme-payments.com:8443/ciba' });
      expect(status).toBe(201);
      expect(body.backchannel_client_notification_endpoint).toBe('https://callback.acme-payments.com:8443/ciba');
    });
  });

  describe('push subscription endpoints', () => {
    let harness: Harness;
    let customer: EnrolledUser;
    beforeEach(async () => {
      harness = await createHarness({ store: storeKind, publicUrl: PRODUCTION_URL, env: productionEnv() });
      customer = await harness.enrollUser('customer_1');
    });
    afterEach(async () => {
      await harness.close();
    });

    const subscribe = (endpoint: string) =>
      harness.call('PUT', '/api/device/push-subscription', {
        body: { endpoint, expirationTime: null, keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) } },
        headers: { cookie: customer.cookie, origin: harness.issuer },
      });

    it.each(['https://fcm.googleapis.com:8443/fcm/send/abc', 'https://web.push.apple.com:80/QGuQyavXutnMH', 'https://10.0.0.5;.push.apple.com/x', 'https://fcm.googleapis.com.attacker.example/fcm/send/abc', 'https://169.254.169.254/latest/meta-data/'])(
      'refuses %s, storing nothing but the session’s rate counter',
      async (endpoint) => {
        const watch = recordWrites(harness.store);
        let response: Awaited<ReturnType<typeof subscribe>>;
        try {
          response = await subscribe(endpoint);
        } finally {
          watch.stop();
        }
        expect([response.status, response.body.error]).toEqual([400, 'invalid_request']);
        // A change from the device counts against its session's allowance (RATE_LIMIT_DEVICE_CHANGES), refused or not.
        expect(watch.writes).toEqual([expect.stringMatching(/^rateLimit rate:\{deviceChanges:default:customer_1:dev_[A-Za-z0-9_-]+\}$/)]);
      },
    );

    it.each(['https://fcm.googleapis.com/fcm/send/abc', 'https://fcm.googleapis.com:443/fcm/send/abc'])('accepts an allowed push service on port 443: %s', async (endpoint) => {
      expect((await subscribe(endpoint)).status).toBe(204);
    });
  });
});
