import { createECDH, generateKeyPairSync } from 'node:crypto';

/** The public origin of a production-mode test server: https on a domain name, as production requires. */
export const PRODUCTION_URL = 'https://approve.acme-payments.com';

/**
 * The environment of a server in production mode (`NODE_ENV=production`): everything production
 * refuses to start without (`ADMIN_TOKEN`, `SIGNING_KEY`, VAPID keys and a public contact), freshly
 * generated. Give it to `createHarness` as `env`, with `publicUrl: PRODUCTION_URL`.
 */
export function productionEnv(): Record<string, string> {
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  // A VAPID key pair (RFC 8292 §3.2): P-256, the public key uncompressed, both base64url.
  const vapid = createECDH('prime256v1');
  vapid.generateKeys();
  return {
    NODE_ENV: 'production',
    ADMIN_TOKEN: 'production-admin-token-0123456789abcdef',
    SIGNING_KEY: JSON.stringify(signingKey),
    VAPID_PUBLIC_KEY: vapid.getPublicKey('base64url'),
    // Left-padded to 32 bytes: a private key with a leading zero byte would otherwise come out short.
    VAPID_PRIVATE_KEY: Buffer.concat([Buffer.alloc(32), vapid.getPrivateKey()])
      .subarray(-32)
      .toString('base64url'),
    VAPID_SUBJECT: 'mailto:ops@acme-payments.com',
  };
}
