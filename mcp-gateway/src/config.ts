import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const name = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 letters, digits or ._:-');

const stdioUpstream = z.strictObject({
  name,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  /** The upstream's working directory; the gateway's by default. */
  cwd: z.string().min(1).optional(),
});

const httpUpstream = z.strictObject({
  name,
  url: z.url({ protocol: /^https?$/ }),
});

/**
 * The gateway's config file (docs/mcp-gateway.md). `countersign`, `login_hint`, `upstream`, `gate`
 * and `allow` are fixed by DESIGN.md ("The MCP gateway"); the rest are the gateway's own, each
 * with a default. Unknown keys are refused: a misspelt `gaet` must not leave a tool ungated.
 */
export const gatewayConfigSchema = z.strictObject({
  countersign: z.strictObject({
    issuer: z.url({ protocol: /^https?$/ }),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
  }),
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
  result_ttl_seconds: z.number().int().min(60).max(30 * 86_400).default(86_400),
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
  return parseConfig(json);
}

function issueMessage(issue: z.core.$ZodIssue): string {
  // A union's message alone ("Invalid input") says nothing: name what each branch missed.
  if (issue.code === 'invalid_union' && issue.errors.length) {
    const branches = issue.errors.map((branch) => branch.map((inner) => `${inner.path.join('.') || '(root)'} ${inner.message}`).join(', '));
    return `must be {name, command, args?, env?} or {name, url}: ${branches.join('; or ')}`;
  }
  return issue.message;
}
