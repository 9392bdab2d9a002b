import { z } from 'zod';
import { PERSISTENCE_SETTINGS } from './persistence-setting.ts';

const seconds = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

/**
 * A rate limit, `<count>/<seconds>`: at most `count` calls per `seconds`, as a burst of `count` at
 * once or one every `seconds / count` (GCRA, see `rate-limits/`).
 */
const rate = (fallback: `${number}/${number}`) =>
  z
    .string()
    .regex(/^\s*[1-9]\d{0,8}\s*\/\s*[1-9]\d{0,6}\s*$/, 'must be <count>/<seconds> with both at least 1, e.g. 300/60')
    .default(fallback)
    .transform((value) => {
      const [count, perSeconds] = value.split('/').map((part) => Number(part.trim()));
      return { count: count!, seconds: perSeconds! };
    });

/** The accepted `NODE_ENV` values, spelled exactly; unset is `development`. */
export const NODE_ENVS = ['production', 'development', 'test'] as const;

/**
 * The environment, validated at start. Unless `NODE_ENV=production` the server is in development mode
 * (docs/design.md "Configuration and start-up"): missing keys are generated and kept in the store.
 */
export const envSchema = z.object({
  /**
   * `production`, `development` or `test`, exactly. Any other spelling (`Production`, `prod`,
   * ` production`) stops the server: read as "not production", it would start a deployment with
   * production settings in development mode, seeding a demo client and printing its secret and a
   * live enrollment link.
   */
  NODE_ENV: z.enum(NODE_ENVS, { error: (issue) => `must be exactly one of ${NODE_ENVS.join(', ')} (or unset, which is development), not ${JSON.stringify(issue.input)}` }).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** The exact origin the PWA is served from; its host is the WebAuthn RP ID. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The WebAuthn RP ID when it is not PUBLIC_URL's host: a bare parent domain of it (see `rp-id.ts`). */
  RP_ID: z.string().optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /**
   * A Redis Cluster instead of `REDIS_URL`: comma-separated seed nodes, `host:port` or `[ipv6]:port`;
   * the client discovers the other nodes from them.
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^\s*(\[[0-9A-Fa-f:.]+\]|[^\s,:[\]]+):\d{1,5}\s*(,\s*(\[[0-9A-Fa-f:.]+\]|[^\s,:[\]]+):\d{1,5}\s*)*$/, 'must be host:port[,host:port…]')
    .optional(),
  /** ACL user and password of the cluster's nodes (a single server takes them in `REDIS_URL`). */
  REDIS_USERNAME: z.string().min(1).optional(),
  REDIS_PASSWORD: z.string().min(1).optional(),
  /** `true`: TLS to the cluster's nodes (a single server: `rediss://`). */
  REDIS_TLS: z.enum(['true', 'false']).default('false'),
  /** Milliseconds a Redis command may take before the request answers 503. */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(2000),
  /**
   * Milliseconds a background job may stay taken by an instance without being finished before
   * another instance takes it over (its instance died). Longer than any job runs: a notification
   * attempt is bounded by its 5 s timeout.
   */
  JOB_TAKEOVER_MS: z.coerce.number().int().min(6000).max(3_600_000).default(30_000),
  /**
   * Whether the Redis must keep its data across a restart (docs/security.md "Redis persistence"):
   * `required` (checked with `CONFIG GET` on every master; production refuses a Redis without AOF
   * or RDB, or one that cannot be asked), `managed` (the provider keeps it; a Redis that refuses
   * `CONFIG` is trusted), `none-accepted` (losing everything on a restart is accepted: a warning).
   */
  REDIS_PERSISTENCE: z.enum(PERSISTENCE_SETTINGS, { error: (issue) => `must be one of ${PERSISTENCE_SETTINGS.join(', ')}, not ${JSON.stringify(issue.input)}` }).default('required'),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /** ES256 private key as a JWK (JSON). */
  SIGNING_KEY: z.string().optional(),
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  /** The VAPID contact (RFC 8292 §2.1): `mailto:` or `https:`; at a public domain in production (see `vapid-subject.ts`). */
  VAPID_SUBJECT: z.string().optional(),
  /** Comma-separated push service hosts accepted in production (`*.` prefix for subdomains). */
  PUSH_ALLOWED_HOSTS: z.string().optional(),
  /** Default and maximum request lifetime (`expires_in`), seconds. */
  REQUEST_EXPIRY_DEFAULT: seconds(300, 86_400),
  REQUEST_EXPIRY_MAX: seconds(600, 86_400),
  /** Approval token lifetime, seconds. */
  APPROVAL_TOKEN_TTL: seconds(600, 86_400),
  /** The polling `interval` returned by `/bc-authorize`, seconds. */
  POLL_INTERVAL: seconds(5, 60),
  /**
   * Seconds a stopping server keeps taking requests (answering each with `Connection: close`, and
   * `/readyz` with 503) before it stops listening: the time a load balancer takes to see it leave.
   */
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(300).default(0),
  /** Seconds after a redemption without an outcome report before the audit flags `outcome_unknown`. */
  OUTCOME_TIMEOUT: seconds(3600, 7 * 86_400),
  /** Days an audit event is kept: older ones are trimmed from the tenant's chain, oldest first (docs/audit.md "Retention"). */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  /** The name shown on passkey prompts. */
  RP_NAME: z.string().min(1).max(64).default('Countersign'),
  /** The approval policy (JSON, see `policy/policy-schema.ts`); unset: the shipped `policy/default-policy.json`. */
  POLICY_FILE: z.string().min(1).optional(),
  /**
   * Per client (tenant and `client_id`, after authentication): calls of `/bc-authorize`; of `/token`
   * and the client's view of a request (`GET`/`POST /requests/{id}`) together; of `/redeem`; of
   * `/redemptions/{id}/outcome` (see `clients/limit-client.ts`).
   */
  RATE_LIMIT_BC_AUTHORIZE: rate('300/60'),
  RATE_LIMIT_TOKEN: rate('1200/60'),
  RATE_LIMIT_REDEEM: rate('300/60'),
  RATE_LIMIT_OUTCOME: rate('300/60'),
  /** Per source address: failed client authentications (every endpoint that authenticates a client), failed admin tokens. */
  RATE_LIMIT_CLIENT_AUTH_FAILURES: rate('30/60'),
  RATE_LIMIT_ADMIN_AUTH_FAILURES: rate('10/300'),
  /** Per device session: request views (the inbox and one request), event streams opened. */
  RATE_LIMIT_DEVICE_VIEWS: rate('120/60'),
  RATE_LIMIT_DEVICE_STREAMS: rate('10/60'),
  /**
   * Per device session: calls that change state (decisions, reports, add-device prompts and links,
   * renames, removals, push subscriptions). A person decides a handful of requests a minute.
   */
  RATE_LIMIT_DEVICE_CHANGES: rate('30/60'),
  /** Per source address: wrong enrollment codes at `/api/device/enroll/options` and `/enroll/verify`. */
  RATE_LIMIT_ENROLLMENT_FAILURES: rate('30/60'),
  /** Devices (passkeys) one user may have; enrollment and add-device links past it are refused. */
  MAX_DEVICES_PER_USER: z.coerce.number().int().min(1).max(100).default(10),
  /** Event streams one device session may hold open at once. */
  DEVICE_STREAMS_MAX: z.coerce.number().int().min(1).max(100).default(3),
  /**
   * Comma-separated addresses and CIDR ranges of the reverse proxies in front of the server. Only a
   * connection from one of them has its `X-Forwarded-For` read (see `http/source-address.ts`).
   */
  TRUSTED_PROXIES: z.string().optional(),
});

/** The validated environment. */
export type Env = z.infer<typeof envSchema>;
