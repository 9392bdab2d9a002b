import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import type { ClientAuthentication } from '@countersign/agent';

const name = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 letters, digits or ._:-');

const stdioUpstream = z.strictObject({
  name,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  /** The upstream's working directory; the gateway's by default. */
  cwd: z.string().min(1).optional(),
});

type PrivateKey = Extract<ClientAuthentication, { method: 'private_key_jwt' }>['privateKey'];

/** The authentication methods the gateway's client may be registered with (RFC 7591 §2). */
export const GATEWAY_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;

/**
 * The gateway's own client registration. `issuer`, `client_id` and `client_secret` are fixed;
 * `token_endpoint_auth_method` (default `client_secret_basic`) picks the method the client was
 * registered with. `private_key_jwt` takes the private JWK inline (`private_key_jwk`) or from a JSON
 * file (`private_key_file`, relative to the config file), and no secret.
 * @see RFC 6749 §2.3.1, RFC 7523 §2.2
 */
function countersignClient() {
  return z
    .strictObject({
      issuer: z.url({ protocol: /^https?$/ }),
      client_id: z.string().min(1),
      client_secret: z.string().min(1).optional(),
      token_endpoint_auth_method: z.enum(GATEWAY_AUTH_METHODS).default('client_secret_basic'),
      private_key_jwk: z.record(z.string(), z.unknown()).optional(),
      private_key_file: z.string().min(1).optional(),
    })
    .superRefine(
      (client, context) => {
        const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
        const method = client.token_endpoint_auth_method ?? 'client_secret_basic';
        if (method !== 'private_key_jwt') {
          if (client.client_secret === undefined) problem('client_secret', `${method} needs client_secret`);
          for (const key of ['private_key_jwk', 'private_key_file'] as const) if (client[key] !== undefined) problem(key, 'only for token_endpoint_auth_method private_key_jwt');
          return;
        }
        if (client.client_secret !== undefined) problem('client_secret', 'private_key_jwt signs with a key: leave the secret out');
        if ((client.private_key_jwk === undefined) === (client.private_key_file === undefined)) problem('private_key_jwk', 'private_key_jwt needs the private key: private_key_jwk or private_key_file, one of them');
        // Also run when another member is wrong, so every problem is named at once.
      },
      { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
    );
}

const httpUpstream = z.strictObject({
  name,
  url: z.url({ protocol: /^https?$/ }),
});

/**
 * The gateway's config file (docs/mcp-gateway.md). `countersign`, `login_hint`, `upstream` and
 * `gate` are fixed by docs/design.md "The MCP gateway"; `allow` and the rest are the gateway's own,
 * each with a default. Unknown keys are refused: a misspelt `gaet` must not leave a tool ungated.
 */
export const gatewayConfigSchema = z.strictObject({
  countersign: countersignClient(),
  /** The `sub` of the person who approves. */
  login_hint: z.string().min(1),
  upstream: z.union([stdioUpstream, httpUpstream]),
  /** Tools gated whatever their annotations say. */
  gate: z.array(z.string().min(1)).default([]),
  /** Tools annotated `destructiveHint: true` that pass through all the same. */
  allow: z.array(z.string().min(1)).default([]),
  /**
   * Seconds one `tools/call` waits for the decision before it answers `approval_pending`: below the
   * 60 s request timeout most MCP clients (the SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`) give a call.
   */
  wait_seconds: z.number().min(0).max(3600).default(45),
  /** `requested_expiry` of each approval request, seconds; the server's default when absent. */
  request_expiry_seconds: z.number().int().min(1).max(86_400).optional(),
  /**
   * Seconds the result of an executed call is kept: the same call (tool and arguments) within that
   * time is answered with it and never runs again.
   */
  result_ttl_seconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(86_400),
  /** The prefix of the gateway's Redis keys, so several gateways share one Redis. */
  redis_prefix: z.string().min(1).max(64).default('cs-mcp:'),
  /** The approver app's link to one request; `{issuer}` and `{auth_req_id}` are filled in. */
  approval_url: z.string().min(1).default('{issuer}/#/requests/{auth_req_id}'),
});

/** A validated gateway config. */
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** The upstream part of a {@link GatewayConfig}. */
export type UpstreamConfig = GatewayConfig['upstream'];

/** A config that cannot be used, with every problem in it, one line each (`gate.0: …`). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid gateway config:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

/**
 * Validates a parsed config object.
 *
 * @returns the config with its defaults filled in.
 * @throws ConfigError naming every problem (path and message), not just the first.
 */
export function parseConfig(value: unknown): GatewayConfig {
  const result = gatewayConfigSchema.safeParse(value);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issueMessage(issue)}`));
  }
  const both = result.data.gate.filter((tool) => result.data.allow.includes(tool));
  if (both.length) throw new ConfigError(both.map((tool) => `allow: ${tool} is also in gate; a tool is either gated or allowed`));
  return result.data;
}

/**
 * Reads and validates the config file at `path` (JSON).
 *
 * @throws ConfigError when the file cannot be read, is not JSON, or is not a valid config.
 */
export async function loadConfig(path: string): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read ${path}: ${(error as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${path} is not JSON: ${(error as Error).message}`]);
  }
  const config = parseConfig(json);
  const keyFile = config.countersign.private_key_file;
  if (keyFile === undefined) return config;
  return { ...config, countersign: { ...config.countersign, private_key_jwk: await readKeyFile(resolve(dirname(path), keyFile)) } };
}

/** A private JWK from a JSON file; the error names the file, never its content. */
async function readKeyFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`countersign.private_key_file: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`]);
  }
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    throw new ConfigError([`countersign.private_key_file: ${path} is not a JSON Web Key (not JSON)`]);
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key) || typeof (key as { d?: unknown }).d !== 'string') {
    throw new ConfigError([`countersign.private_key_file: ${path} is not a private JSON Web Key (an object with "d")`]);
  }
  return key as Record<string, unknown>;
}

/**
 * The agent client's authentication for the gateway's registration (see `createAgentClient`).
 *
 * @throws TypeError when `private_key_jwt` has no key (a config {@link loadConfig} did not fill in).
 */
export function clientAuthentication(client: GatewayConfig['countersign']): ClientAuthentication {
  if (client.token_endpoint_auth_method !== 'private_key_jwt') return { method: client.token_endpoint_auth_method, clientSecret: client.client_secret! };
  if (!client.private_key_jwk) throw new TypeError('private_key_jwt needs private_key_jwk (private_key_file is read by loadConfig)');
  return { method: 'private_key_jwt', privateKey: client.private_key_jwk as PrivateKey };
}

function issueMessage(issue: z.core.$ZodIssue): string {
  // A union's message alone ("Invalid input") says nothing: name what each branch missed.
  if (issue.code === 'invalid_union' && issue.errors.length) {
    const branches = issue.errors.map((branch) => branch.map((inner) => `${inner.path.join('.') || '(root)'} ${inner.message}`).join(', '));
    return `must be {name, command, args?, env?} or {name, url}: ${branches.join('; or ')}`;
  }
  return issue.message;
}
