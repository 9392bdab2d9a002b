/**
 * The peer: node-oidc-provider as an OpenID Provider for CIBA in poll mode, set up to do what
 * Countersign does at each step and nothing it does not:
 *
 * - `processLoginHint` answers the `login_hint` as the account id; `validateRequestContext` and
 *   `verifyUserCode` accept; `triggerAuthenticationDevice` does nothing (no push);
 * - `authorization_details` (RFC 9396) of type `payment` are validated with Countersign's own zod
 *   schema, so both servers validate the action alike;
 * - access tokens are JWTs signed ES256 (a resource server with `accessTokenFormat: 'jwt'`), and ID
 *   tokens ES256, as Countersign signs both;
 * - storage: the provider's own `MemoryAdapter` class. Its default storage is an LRU of 1,000
 *   entries, which would evict pending requests during a load run (and polls would then measure
 *   `invalid_grant`); it is given the same LRU class with room for 5,000,000 entries instead.
 *   With `PEER_REDIS_URL`, the Redis adapter of `redis-adapter.ts` instead (the shape of the
 *   provider's example Redis adapter), so the peer can also be measured with its state in Redis.
 *
 * Two extra routes serve the benchmark: `GET /healthz` (the peer's HTTP floor on Koa) and
 * `POST /bench/approve` (JSON list of `auth_req_id`s), which approves requests through the
 * `BackchannelAuthenticationRequest` model with `provider.backchannelResult` and a saved `Grant`,
 * as an application's approval flow would.
 *
 * Environment: `PORT`, `PEER_CLIENTS` (JSON list of `{client_id, client_secret}`), `PEER_SIGNING_KEY`
 * (ES256 private JWK), `PEER_REDIS_URL` (optional: keep the provider's state in that Redis).
 */
import { authorizationDetail } from '@countersign/shared';
import { Redis } from 'ioredis';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';
import { redisAdapter } from './redis-adapter.ts';

const port = Number(process.env.PORT);
const issuer = `http://localhost:${port}`;
const clients = JSON.parse(process.env.PEER_CLIENTS!) as { client_id: string; client_secret: string }[];
const signingKey = JSON.parse(process.env.PEER_SIGNING_KEY!) as Record<string, string>;
const EXECUTOR = 'https://executor.example';

const storage = new LRU({ maxSize: 5_000_000 });
const noop = async () => undefined;
const RedisAdapter = process.env.PEER_REDIS_URL ? redisAdapter(new Redis(process.env.PEER_REDIS_URL)) : null;

const provider = new Provider(issuer, {
  adapter: RedisAdapter ?? ((model: string) => new MemoryAdapter(model, storage)),
  clients: clients.map((client) => ({
    ...client,
    grant_types: ['urn:openid:params:grant-type:ciba'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    backchannel_token_delivery_mode: 'poll',
    id_token_signed_response_alg: 'ES256',
    authorization_details_types: ['payment'],
  })),
  jwks: { keys: [{ ...signingKey, alg: 'ES256', use: 'sig' }] },
  findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  routes: { backchannel_authentication: '/bc-authorize' },
  ttl: { BackchannelAuthenticationRequest: 300, AccessToken: 600, IdToken: 600, Grant: 600 },
  issueRefreshToken: async () => false,
  features: {
    devInteractions: { enabled: false },
    ciba: {
      enabled: true,
      deliveryModes: ['poll'],
      processLoginHint: async (_ctx: unknown, loginHint: string) => loginHint,
      validateRequestContext: noop,
      verifyUserCode: noop,
      triggerAuthenticationDevice: noop,
      // Countersign accepts up to 64 characters; the bench sends a short one both accept.
      validateBindingMessage: noop,
    },
    richAuthorizationRequests: {
      enabled: true,
      types: {
        payment: {
          validate(_ctx: unknown, detail: unknown) {
            const parsed = authorizationDetail.safeParse(detail);
            if (!parsed.success) throw new Error('invalid payment details');
          },
        },
      },
      authorizationDetailsForAccessToken: async (_ctx: unknown, _token: unknown, source: { rar?: unknown[] }) => source.rar ?? [],
      authorizationDetailsForGrantSource: async () => undefined,
      authorizationDetailsForIntrospection: async () => [],
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => EXECUTOR,
      useGrantedResource: async () => true,
      getResourceServerInfo: async () => ({ scope: 'payments', accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg: 'ES256' } } }),
    },
  },
});

/** Approves one request the way an application's approval step would: a Grant, then backchannelResult. */
async function approve(authReqId: string): Promise<boolean> {
  const request = await provider.BackchannelAuthenticationRequest.find(authReqId);
  if (!request) return false;
  const grant = new provider.Grant({ accountId: request.accountId, clientId: request.clientId });
  grant.addOIDCScope('openid');
  grant.addResourceScope(EXECUTOR, 'payments');
  await grant.save();
  const rar = request.params?.authorization_details ? JSON.parse(request.params.authorization_details) : undefined;
  await provider.backchannelResult(request, grant, rar ? { rar } : {});
  return true;
}

// The peer's HTTP floor goes through Koa and the provider's own middleware stack, as /healthz does
// through hono and Countersign's middleware.
provider.use(async (ctx: { path: string; method: string; body: unknown }, next: () => Promise<void>) => {
  if (ctx.path === '/healthz' && ctx.method === 'GET') {
    ctx.body = { status: 'ok' };
    return;
  }
  await next();
});

const app = provider.callback();
const server = createServer(async (req, res) => {
  if (req.url === '/bench/approve' && req.method === 'POST') {
    let text = '';
    for await (const chunk of req) text += chunk;
    const ids = JSON.parse(text) as string[];
    let approved = 0;
    for (const id of ids) if (await approve(id)) approved++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ approved }));
    return;
  }
  app(req, res);
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
