import { envSchema } from './env.ts';

/** The server's configuration, derived once from the environment. Times are in seconds. */
export interface Config {
  production: boolean;
  port: number;
  /** `PUBLIC_URL` without a trailing slash: the OpenID `issuer`, the WebAuthn origin. */
  publicUrl: string;
  /** The WebAuthn RP ID: the bare host of `publicUrl`. */
  rpId: string;
  rpName: string;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  signingKey: string | undefined;
  vapid: { publicKey?: string; privateKey?: string; subject?: string };
  pushAllowedHosts: string[] | undefined;
  requestExpiryDefault: number;
  requestExpiryMax: number;
  approvalTokenTtl: number;
  pollInterval: number;
  /** How long an expired or decided request keeps answering (at least 600 s, DESIGN.md). */
  graceSeconds: number;
  /** How long a redeemed request and its outcome are kept. */
  retentionSeconds: number;
}

/**
 * Validates the environment and derives the configuration.
 * @throws Error listing every invalid variable, so a bad deployment fails at start, not at the first request.
 */
export function loadConfig(environment: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  if (production && !env.PUBLIC_URL) throw new Error('invalid configuration: PUBLIC_URL is required in production');
  if (production && !env.ADMIN_TOKEN) throw new Error('invalid configuration: ADMIN_TOKEN is required in production');
  if (env.REQUEST_EXPIRY_DEFAULT > env.REQUEST_EXPIRY_MAX) {
    throw new Error('invalid configuration: REQUEST_EXPIRY_DEFAULT exceeds REQUEST_EXPIRY_MAX');
  }
  const url = new URL(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`);
  if (url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error('invalid configuration: PUBLIC_URL must be an origin (scheme, host and port only)');
  }
  if (production && url.protocol !== 'https:') throw new Error('invalid configuration: PUBLIC_URL must be https in production');
  return {
    production,
    port: env.PORT,
    publicUrl: url.origin,
    rpId: url.hostname,
    rpName: env.RP_NAME,
    redisUrl: env.REDIS_URL,
    adminToken: env.ADMIN_TOKEN,
    signingKey: env.SIGNING_KEY,
    vapid: { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject: env.VAPID_SUBJECT },
    pushAllowedHosts: env.PUSH_ALLOWED_HOSTS?.split(',').map((host) => host.trim()).filter(Boolean),
    requestExpiryDefault: env.REQUEST_EXPIRY_DEFAULT,
    requestExpiryMax: env.REQUEST_EXPIRY_MAX,
    approvalTokenTtl: env.APPROVAL_TOKEN_TTL,
    pollInterval: env.POLL_INTERVAL,
    graceSeconds: 600,
    retentionSeconds: 7 * 86_400,
  };
}
