import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { measure, type BenchContext, type Measured } from '../context.ts';
import type { BenchRedis } from '../infra/redis.ts';
import { startNodeChild, waitForHttp, type NodeChild } from '../infra/child.ts';
import { freePort } from '../infra/free-port.ts';
import { backchannelBodies, parseCaptures, tokenBody } from '../countersign/actions.ts';

const FORM = 'application/x-www-form-urlencoded';

/** node-oidc-provider, the peer, as a child process (see `peer/server.ts`). */
export interface PeerServer {
  /** `peer-redis` when its state is in Redis. */
  system: 'peer' | 'peer-redis';
  child: NodeChild;
  target: string;
  authorization: string;
  logFile: string;
}

/** Starts the peer; with `redis`, it keeps its state there (its own Redis, so Countersign's figures stay its own). */
export async function startPeer(ctx: BenchContext, redis?: BenchRedis): Promise<PeerServer> {
  const port = await freePort();
  const system = redis ? 'peer-redis' : 'peer';
  const logFile = join(ctx.workDir, `${system}.log`);
  const client = { client_id: 'bench-agent', client_secret: randomBytes(32).toString('base64url') };
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const child = startNodeChild('bench/src/peer/server.ts', { PORT: String(port), PEER_CLIENTS: JSON.stringify([client]), PEER_SIGNING_KEY: JSON.stringify(signingKey), NODE_ENV: 'production', ...(redis ? { PEER_REDIS_URL: redis.url } : {}) }, logFile);
  const target = `http://127.0.0.1:${port}`;
  await waitForHttp(`${target}/healthz`, child, logFile).catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });
  return { system, child, target, logFile, authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` };
}

/**
 * The peer's steps, each measured like Countersign's and run right after Countersign's same step
 * (so both see the same machine): floor, bc-authorize, pending poll, token issuance.
 */
export interface PeerSteps {
  floor(): Promise<Measured>;
  /** Answers the row; keeps the created requests for the next steps. */
  bcAuthorize(subs: string[]): Promise<Measured>;
  pollPending(): Promise<Measured>;
  /** Approves every request made so far through the provider's model, then measures issuing their tokens. */
  issueTokens(): Promise<Measured>;
}

export function peerSteps(ctx: BenchContext, peer: PeerServer): PeerSteps {
  let ids: string[] = [];
  const post = { method: 'POST' as const, target: peer.target, headers: { authorization: peer.authorization, 'content-type': FORM } };
  return {
    async floor() {
      return (await measure(ctx, peer.child, peer.system, 'GET /healthz', { name: `${peer.system}-healthz`, mode: 'closed', target: peer.target, method: 'GET', path: '/healthz', headers: {}, expect: { status: 200 } })).measured;
    },
    async bcAuthorize(subs) {
      const { items } = backchannelBodies(subs, 60_000, `peer${Date.now().toString(36)}`);
      const created = await measure(ctx, peer.child, peer.system, 'POST /bc-authorize', { ...post, name: `${peer.system}-bc-authorize`, mode: 'closed', path: '/bc-authorize', items, expect: { status: 200 }, capture: 'auth_req_id' });
      ids = parseCaptures(created.captured).map(({ value }) => value);
      return created.measured;
    },
    async pollPending() {
      return (
        await measure(ctx, peer.child, peer.system, 'POST /token (pending)', {
          ...post,
          name: `${peer.system}-token-pending`,
          mode: 'closed',
          path: '/token',
          items: ids.map((id) => ({ body: tokenBody(id) })),
          cycle: true,
          expect: { status: 400, error: 'authorization_pending' },
        })
      ).measured;
    },
    async issueTokens() {
      // Approve through the provider's own model (a Grant, then backchannelResult), in its process.
      const response = await fetch(`${peer.target}/bench/approve`, { method: 'POST', body: JSON.stringify(ids) });
      const { approved } = (await response.json()) as { approved: number };
      ctx.log(`    peer: ${approved} requests approved through BackchannelAuthenticationRequest`);
      return (
        await measure(ctx, peer.child, peer.system, 'POST /token (approved → tokens)', {
          ...post,
          name: `${peer.system}-token-issue`,
          mode: 'closed',
          path: '/token',
          items: ids.map((id) => ({ body: tokenBody(id) })),
          expect: { status: 200 },
        })
      ).measured;
    },
  };
}
