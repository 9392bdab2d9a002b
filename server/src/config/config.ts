import type { PersistenceSetting } from './persistence-setting.ts';
import { envSchema } from './env.ts';
import { settleRpId } from './rp-id.ts';
import { parseTrustedProxies } from './trusted-proxies.ts';
import { vapidSubjectProblem } from './vapid-subject.ts';

/** A rate limit: at most `count` calls per `seconds` (a burst of `count`, or one every `seconds / count`). */
export interface Rate {
  count: number;
  seconds: number;
}

/** The rate limits (`RATE_LIMIT_*`): what each counts, and per what. */
export interface RateLimits {
  /** Per client: `POST /bc-authorize`; `POST /token` and `GET`/`POST /requests/{auth_req_id}` together; `POST /redeem`; `POST /redemptions/{id}/outcome`. */
  bcAuthorize: Rate;
  token: Rate;
  redeem: Rate;
  outcome: Rate;
  /** Per source address: failed client authentications, failed admin tokens. */
  clientAuthFailures: Rate;
  adminAuthFailures: Rate;
  /** Per device session: `GET /api/device/requests` and `GET /api/device/requests/{id}` together; event streams opened. */
  deviceViews: Rate;
  deviceStreams: Rate;
  /** Per device session: every call behind the session that changes state (`POST`, `PUT`, `PATCH`, `DELETE`). */
  deviceChanges: Rate;
  /** Per source address: wrong enrollment codes (`invalid_enrollment_code`). */
  enrollmentFailures: Rate;
}

/** The server's configuration, derived once from the environment. Times are in seconds. */
export interface Config {
  production: boolean;
  port: number;
  /** `PUBLIC_URL` without a trailing slash: the OpenID `issuer`, the WebAuthn origin. */
  publicUrl: string;
  /** The WebAuthn RP ID: the bare host of `publicUrl`, or `RP_ID`, a parent domain of it. */
  rpId: string;
  rpName: string;
  redisUrl: string | undefined;
  /** `REDIS_CLUSTER_NODES` and its credentials; set instead of `redisUrl`, never with it. */
  redisCluster: { nodes: { host: string; port: number }[]; username?: string; password?: string; tls: boolean } | undefined;
  /** `REDIS_COMMAND_TIMEOUT_MS`: past it a Redis command fails and the request answers 503. */
  redisCommandTimeoutMs: number;
  /** `SHUTDOWN_DRAIN_SECONDS`: how long a stopping server keeps taking requests before it stops listening. */
  shutdownDrainSeconds: number;
  /** `JOB_TAKEOVER_MS`: how long a job taken by an instance waits before another takes it over. */
  jobTakeoverMs: number;
  /** `REDIS_PERSISTENCE`: what start-up demands of the Redis's persistence (see `store/check-persistence.ts`). */
  redisPersistence: PersistenceSetting;
  adminToken: string | undefined;
  signingKey: string | undefined;
  vapid: { publicKey?: string; privateKey?: string; subject?: string };
  pushAllowedHosts: string[] | undefined;
  requestExpiryDefault: number;
  requestExpiryMax: number;
  approvalTokenTtl: number;
  pollInterval: number;
  /** How long an expired or decided request keeps answering (at least 600 s, docs/design.md "The request lifecycle"). */
  graceSeconds: number;
  /** How long a redeemed request and its outcome are kept. */
  retentionSeconds: number;
  /** `POLICY_FILE`: the approval policy's path, or undefined for the shipped default. */
  policyFile: string | undefined;
  /** `OUTCOME_TIMEOUT`: seconds after a redemption without an outcome before it is flagged `outcome_unknown`. */
  outcomeTimeoutSeconds: number;
  rateLimits: RateLimits;
  /** `DEVICE_STREAMS_MAX`: event streams one device session may hold open at once. */
  deviceStreamsMax: number;
  /** `MAX_DEVICES_PER_USER`: devices (passkeys) one user may have. */
  maxDevicesPerUser: number;
  /** `TRUSTED_PROXIES`: the proxies whose `X-Forwarded-For` is read, as CIDR ranges (`10.0.0.0/8`, `::1/128`); empty: none. */
  trustedProxies: string[];
  /** `AUDIT_RETENTION_DAYS` in seconds: audit events older than this are trimmed. */
  auditRetentionSeconds: number;
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
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES) throw new Error('invalid configuration: set REDIS_URL or REDIS_CLUSTER_NODES, not both');
  if (!env.REDIS_CLUSTER_NODES && (env.REDIS_USERNAME || env.REDIS_PASSWORD || env.REDIS_TLS === 'true')) {
    throw new Error('invalid configuration: REDIS_USERNAME, REDIS_PASSWORD and REDIS_TLS go with REDIS_CLUSTER_NODES; a single Redis takes them in REDIS_URL (rediss://user:password@host:port)');
  }
  const url = new URL(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`);
  if (url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error('invalid configuration: PUBLIC_URL must be an origin (scheme, host and port only)');
  }
  if (production && url.protocol !== 'https:') throw new Error('invalid configuration: PUBLIC_URL must be https in production');
  const rpId = settleRpId(url, env.RP_ID);
  // Development keeps its `.invalid` placeholder (push/vapid-keys.ts); production needs a real contact.
  if (production && !env.VAPID_SUBJECT) throw new Error('invalid configuration: VAPID_SUBJECT (a mailto: or https: contact) is required in production');
  const vapidProblem = production && env.VAPID_SUBJECT ? vapidSubjectProblem(env.VAPID_SUBJECT) : null;
  if (vapidProblem) throw new Error(`invalid configuration: VAPID_SUBJECT ${vapidProblem}`);
  return {
    production,
    port: env.PORT,
    publicUrl: url.origin,
    rpId,
    rpName: env.RP_NAME,
    redisUrl: env.REDIS_URL,
    redisCluster: env.REDIS_CLUSTER_NODES
      ? {
          nodes: parseClusterNodes(env.REDIS_CLUSTER_NODES),
          ...(env.REDIS_USERNAME ? { username: env.REDIS_USERNAME } : {}),
          ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
          tls: env.REDIS_TLS === 'true',
        }
      : undefined,
    redisCommandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    jobTakeoverMs: env.JOB_TAKEOVER_MS,
    shutdownDrainSeconds: env.SHUTDOWN_DRAIN_SECONDS,
    redisPersistence: env.REDIS_PERSISTENCE,
    adminToken: env.ADMIN_TOKEN,
    signingKey: env.SIGNING_KEY,
    vapid: { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject: env.VAPID_SUBJECT },
    pushAllowedHosts: env.PUSH_ALLOWED_HOSTS?.split(',')
      .map((host) => host.trim())
      .filter(Boolean),
    requestExpiryDefault: env.REQUEST_EXPIRY_DEFAULT,
    requestExpiryMax: env.REQUEST_EXPIRY_MAX,
    approvalTokenTtl: env.APPROVAL_TOKEN_TTL,
    pollInterval: env.POLL_INTERVAL,
    graceSeconds: 600,
    retentionSeconds: 7 * 86_400,
    policyFile: env.POLICY_FILE,
    outcomeTimeoutSeconds: env.OUTCOME_TIMEOUT,
    rateLimits: {
      bcAuthorize: env.RATE_LIMIT_BC_AUTHORIZE,
      token: env.RATE_LIMIT_TOKEN,
      redeem: env.RATE_LIMIT_REDEEM,
      outcome: env.RATE_LIMIT_OUTCOME,
      clientAuthFailures: env.RATE_LIMIT_CLIENT_AUTH_FAILURES,
      adminAuthFailures: env.RATE_LIMIT_ADMIN_AUTH_FAILURES,
      deviceViews: env.RATE_LIMIT_DEVICE_VIEWS,
      deviceStreams: env.RATE_LIMIT_DEVICE_STREAMS,
      deviceChanges: env.RATE_LIMIT_DEVICE_CHANGES,
      enrollmentFailures: env.RATE_LIMIT_ENROLLMENT_FAILURES,
    },
    deviceStreamsMax: env.DEVICE_STREAMS_MAX,
    maxDevicesPerUser: env.MAX_DEVICES_PER_USER,
    trustedProxies: parseTrustedProxies(env.TRUSTED_PROXIES),
    auditRetentionSeconds: env.AUDIT_RETENTION_DAYS * 86_400,
  };
}

/** `host:port,[::1]:port` (already checked by the schema) → seed nodes; a port out of range is refused. */
function parseClusterNodes(list: string): { host: string; port: number }[] {
  return list.split(',').map((entry) => {
    const trimmed = entry.trim();
    const colon = trimmed.lastIndexOf(':');
    const host = trimmed.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
    const port = Number(trimmed.slice(colon + 1));
    if (port < 1 || port > 65535) throw new Error(`invalid configuration: REDIS_CLUSTER_NODES: port out of range in ${trimmed}`);
    return { host, port };
  });
}
