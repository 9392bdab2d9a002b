import { z } from 'zod';

const seconds = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

/**
 * The environment, validated at start. Unless `NODE_ENV=production` the server is in development
 * mode (DESIGN.md "Start-up"): missing keys are generated and kept in the store.
 */
export const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** The exact origin the PWA is served from; its host is the WebAuthn RP ID. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /** ES256 private key as a JWK (JSON). */
  SIGNING_KEY: z.string().optional(),
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
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
  /** The name shown on passkey prompts. */
  RP_NAME: z.string().min(1).max(64).default('Countersign'),
});

/** The validated environment. */
export type Env = z.infer<typeof envSchema>;
