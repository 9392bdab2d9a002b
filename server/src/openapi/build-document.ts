import { OpenAPIHono } from '@hono/zod-openapi';
import { z, type ZodType } from 'zod';
import { ADMIN_OPERATIONS } from './admin-operations.ts';
import { AGENT_OPERATIONS } from './agent-operations.ts';
import { DEVICE_OPERATIONS } from './device-operations.ts';
import { errorsByStatus, oauthError } from './errors.ts';
import { OPERATOR_OPERATIONS } from './operator-operations.ts';
import { openApiPath, pathParams, type Caller, type Operation } from './operation.ts';

/** Every documented operation: the registry `GET /openapi.json` is generated from. Add a route's here. */
export const OPERATIONS: readonly Operation[] = [...AGENT_OPERATIONS, ...DEVICE_OPERATIONS, ...ADMIN_OPERATIONS, ...OPERATOR_OPERATIONS];

/** An OpenAPI 3.1 document, as @hono/zod-openapi types it. */
export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiOptions {
  /** `PUBLIC_URL`: the document's one server. */
  issuer: string;
  /** The session cookie's name (`__Host-cs_device` on https, `cs_device` otherwise). */
  sessionCookie?: string;
}

const SECURITY: Record<Caller, Record<string, string[]>[]> = {
  public: [],
  // client_secret_post and private_key_jwt travel in the body (form members, or JSON members at
  // /redeem and the outcome): OpenAPI has no scheme for those, so they are body fields here.
  client: [{ clientBasic: [] }],
  'client-basic': [{ clientBasic: [] }],
  session: [{ deviceSession: [] }],
  admin: [{ adminToken: [] }],
};

/** The OpenAPI 3.1 response object of each documented status and refusal of `operation`. */
function responsesOf(operation: Operation) {
  const responses: Record<string, { description: string; headers?: Record<string, { description: string; schema: { type: 'string' } }>; content?: Record<string, { schema: ZodType }> }> = {};
  for (const [status, answer] of Object.entries(operation.responses)) {
    const headers = answer.headers ? Object.fromEntries(Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: 'string' as const } }])) : undefined;
    responses[status] = {
      description: answer.description,
      ...(headers ? { headers } : {}),
      ...(answer.schema ? { content: { [answer.contentType ?? 'application/json']: { schema: answer.schema } } } : {}),
    };
  }
  for (const [status, codes] of errorsByStatus(operation.errors)) {
    if (responses[status]) throw new Error(`${operation.method} ${operation.path}: ${status} is both an answer and a refusal`);
    const retry = status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' as const } } } } : {};
    responses[status] = {
      description: `Refused: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
      ...retry,
      content: { 'application/json': { schema: oauthError(codes as [(typeof codes)[0], ...typeof codes]) } },
    };
  }
  return responses;
}

/**
 * The OpenAPI 3.1 document of the whole HTTP surface, generated from {@link OPERATIONS} by
 * @hono/zod-openapi's registry (`openAPIRegistry.registerPath`, `getOpenAPI31Document`) without
 * mounting anything: the routes stay plain hono, and each operation names the zod schema its route
 * validates with. See docs/api.md.
 * @throws Error when an operation is malformed (a status both answered and refused): a bug, found by the tests.
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'clientBasic', {
    type: 'http',
    scheme: 'basic',
    description: 'client_secret_basic (RFC 6749 §2.3.1). client_secret_post and private_key_jwt send their members in the body instead.',
  });
  registry.registerComponent('securitySchemes', 'deviceSession', { type: 'apiKey', in: 'cookie', name: options.sessionCookie ?? 'cs_device', description: 'The device session, set by enrollment.' });
  registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer', description: '`ADMIN_TOKEN`.' });

  for (const operation of OPERATIONS) {
    const params = pathParams(operation.path);
    const body = operation.body;
    const content = {
      ...(body?.json ? { 'application/json': { schema: body.json } } : {}),
      ...(body?.form ? { 'application/x-www-form-urlencoded': { schema: body.form } } : {}),
    };
    registry.registerPath({
      method: operation.method,
      path: openApiPath(operation.path),
      operationId: `${operation.method}${operation.path.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())}`,
      summary: operation.summary,
      tags: [operation.tag],
      security: SECURITY[operation.caller],
      request: {
        ...(params.length ? { params: z.object(Object.fromEntries(params.map((name) => [name, z.string()]))) } : {}),
        ...(operation.query ? { query: operation.query } : {}),
        ...(operation.headers ? { headers: operation.headers } : {}),
        ...(body ? { body: { required: !body.optional, content } } : {}),
      },
      responses: responsesOf(operation),
    });
  }
  return generator.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Countersign',
      version: '0.1.0',
      description: 'Out-of-band approval server for AI agents (OpenID Connect CIBA, WebAuthn, Web Push). The contract is docs/design.md; bad input gets an OAuth error body `{error, error_description}`.',
    },
    servers: [{ url: options.issuer }],
    tags: [
      { name: 'agent', description: 'Agents and executors (fixed).' },
      { name: 'device', description: 'The approver PWA.' },
      { name: 'admin', description: 'The operator (fixed).' },
      { name: 'service', description: 'Health and metrics.' },
    ],
  });
}
