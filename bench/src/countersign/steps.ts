import { connectRedisStore, keys, type Store } from '@countersign/server';
import type { BenchContext, Measured } from '../context.ts';
import { measure } from '../context.ts';
import { runLoad } from '../load/run-load.ts';
import type { LoadItem, LoadResult, LoadSpec } from '../load/spec.ts';
import { backchannelBodies, parseCaptures, tokenBody } from './actions.ts';
import { mapLimit, type BenchUser } from './api.ts';
import type { Actors, CountersignServer } from './server.ts';
import type { PushReceiver } from '../infra/push-receiver.ts';

/** A request Countersign answered with an `auth_req_id`, and what it was for. */
export interface PendingRequest {
  id: string;
  sub: string;
  /** The `authorization_details` JSON it was made with. */
  details: string;
}

/** An approval token and the action it approves. */
export interface ApprovalToken {
  token: string;
  details: string;
}

const FORM = 'application/x-www-form-urlencoded';
let tagCounter = 0;

/** A closed-loop run the benchmark needs but does not report (making pools), as fast as it goes. */
async function unmeasured(ctx: BenchContext, spec: Omit<LoadSpec, 'resultFile' | 'warmupSeconds' | 'durationSeconds' | 'connections' | 'mode'>) {
  const result = await runLoad({ ...spec, mode: 'closed', connections: 32, warmupSeconds: 0, durationSeconds: 600 }, ctx.workDir);
  const wrong = Object.entries(result.unexpected);
  if (wrong.length) ctx.log(`    (${spec.name}: ${wrong.map(([label, n]) => `${n}× ${label}`).join(', ')})`);
  return result;
}

/**
 * `POST /bc-authorize` for `users`, round-robin, with distinct transaction ids. Measured when a
 * label is given (at most `count` requests: the run ends early if they run out), otherwise all
 * `count` are sent as fast as they go. Answers the requests that were created.
 */
export async function backchannel(ctx: BenchContext, server: CountersignServer, actors: Actors, users: BenchUser[], count: number, label?: string, settle?: (result: LoadResult) => Promise<string | void>): Promise<{ measured?: Measured; pending: PendingRequest[] }> {
  const tag = `${Date.now().toString(36)}${tagCounter++}`;
  const { items, planned } = backchannelBodies(
    users.map((user) => user.sub),
    count,
    tag,
    actors.client.notification_token,
  );
  const spec = {
    name: `cs-bc-authorize-${tag}`,
    target: server.target,
    method: 'POST' as const,
    path: '/bc-authorize',
    headers: { authorization: actors.client.authorization, 'content-type': FORM },
    items,
    expect: { status: 200 },
    capture: 'auth_req_id',
  };
  const run = label ? await measure(ctx, server.child, 'countersign', label, { ...spec, mode: 'closed' }, settle) : { measured: undefined, captured: (await unmeasured(ctx, spec)).captured };
  const pending = parseCaptures(run.captured).map(({ index, value }) => ({ id: value, sub: planned[index]!.sub, details: planned[index]!.details }));
  return { measured: run.measured, pending };
}

/**
 * Waits, after a load, for the pushes of the requests it created to reach the receiver (they are
 * sent in the background, after each answer), so that their CPU is charged to the run. Answers a
 * note for the report.
 */
export function pushSettler(receiver: PushReceiver): (result: LoadResult) => Promise<string> {
  const before = receiver.stats.received;
  return async (result) => {
    const created = result.captured.length;
    const waited = await receiver.waitFor(before + created, 120_000);
    const delivered = receiver.stats.received - before;
    return `${delivered} of ${created} pushes reached the receiver (${receiver.stats.malformed} malformed), the last ${(waited / 1000).toFixed(1)} s after the load stopped; their CPU is included`;
  };
}

/** `POST /token` polls of pending requests, round-robin over `pending` (`authorization_pending` is the expected answer). */
export async function pollPending(ctx: BenchContext, server: CountersignServer, actors: Actors, pending: PendingRequest[], label: string) {
  return measure(ctx, server.child, 'countersign', label, {
    name: 'cs-token-pending',
    mode: 'closed',
    target: server.target,
    method: 'POST',
    path: '/token',
    headers: { authorization: actors.client.authorization, 'content-type': FORM },
    items: pending.map((request) => ({ body: tokenBody(request.id) })),
    cycle: true,
    expect: { status: 400, error: 'authorization_pending' },
  });
}

/**
 * Opens each request on its user's device (`GET /api/device/requests/{id}`, which issues the
 * decision challenges) and signs the approval with the user's software passkey: one ready
 * decision per request, to be sent later in any order.
 */
export async function prepareDecisions(server: CountersignServer, actors: Actors, pending: PendingRequest[]): Promise<LoadItem[]> {
  const bySub = new Map([...actors.plain, ...actors.push].map((user) => [user.sub, user]));
  const items = await mapLimit(pending, 24, async (request) => {
    const user = bySub.get(request.sub)!;
    const view = await server.api.call('GET', `/api/device/requests/${request.id}`, { headers: { cookie: user.cookie } });
    const options = view.body?.options?.approve;
    if (view.status !== 200 || !options) throw new Error(`device view of ${request.id}: ${view.status} ${JSON.stringify(view.body)}`);
    const response = await user.authenticator.authenticate(options);
    return { path: `/api/device/requests/${request.id}/decision`, body: JSON.stringify({ decision: 'approve', response }), headers: { cookie: user.cookie } };
  });
  return items;
}

/** `POST /api/device/requests/{id}/decision` with the prepared assertions, each used once. */
export async function decide(ctx: BenchContext, server: CountersignServer, items: LoadItem[], label: string, durationSeconds?: number) {
  return measure(ctx, server.child, 'countersign', label, {
    name: `cs-decision-${tagCounter++}`,
    mode: 'closed',
    target: server.target,
    method: 'POST',
    path: '/api/device/requests/x/decision',
    headers: { 'content-type': 'application/json', origin: server.publicUrl },
    items,
    expect: { status: 200 },
    ...(durationSeconds ? { durationSeconds } : {}),
  });
}

/**
 * Approves pending requests directly in the store, with the compare-and-swap a verified decision
 * ends in (`pending → approved`, the approval's deadline), so that tens of thousands of approved
 * requests can be made in seconds; the device's verification itself is measured on its own.
 * Answers how many were approved.
 */
export async function approveInStore(store: Store, pending: PendingRequest[], tokenLifetimeSeconds = 600): Promise<number> {
  const now = Date.now();
  const results = await mapLimit(pending, 256, (request) =>
    store.compareAndSet(keys.request('default', request.id), [{ field: 'state', op: 'eq', value: 'pending' }], { state: 'approved', decided_at: String(now), decided_by: 'bench', approval_expires_at: String(now + tokenLifetimeSeconds * 1000) }, { ttlSeconds: tokenLifetimeSeconds + 600 }),
  );
  return results.filter((result) => result.ok).length;
}

/** A connection to the server's own keys (prefix `cs:`), for {@link approveInStore}. */
export function serverStore(ctx: BenchContext): Promise<Store> {
  return connectRedisStore(ctx.redis.url);
}

/**
 * `POST /token` for approved requests: each one once, answered with the token response. Measured
 * when a label is given. Answers the approval tokens.
 */
export async function issueTokens(ctx: BenchContext, server: CountersignServer, actors: Actors, approved: PendingRequest[], label?: string): Promise<{ measured?: Measured; tokens: ApprovalToken[] }> {
  const spec = {
    name: `cs-token-issue-${tagCounter++}`,
    target: server.target,
    method: 'POST' as const,
    path: '/token',
    headers: { authorization: actors.client.authorization, 'content-type': FORM },
    items: approved.map((request) => ({ body: tokenBody(request.id) })),
    expect: { status: 200 },
    capture: 'access_token',
  };
  const run = label ? await measure(ctx, server.child, 'countersign', label, { ...spec, mode: 'closed' }) : { measured: undefined, captured: (await unmeasured(ctx, spec)).captured };
  const tokens = parseCaptures(run.captured).map(({ index, value }) => ({ token: value, details: approved[index]!.details }));
  return { measured: run.measured, tokens };
}

/** The `/redeem` body of a token: the exact action it approves (docs/design.md guarantee 3). */
export function redeemItems(tokens: ApprovalToken[]): LoadItem[] {
  return tokens.map(({ token, details }) => ({ body: `{"token":"${token}","authorization_details":${details}}` }));
}

/** `POST /redeem` of distinct approved tokens: closed loop, or paced at `rate`. */
export async function redeem(ctx: BenchContext, server: CountersignServer, actors: Actors, items: LoadItem[], label: string, options: { rate?: number; durationSeconds?: number } = {}) {
  return measure(ctx, server.child, 'countersign', label, {
    name: `cs-redeem-${tagCounter++}`,
    mode: options.rate ? 'paced' : 'closed',
    ...(options.rate ? { rate: options.rate } : {}),
    ...(options.durationSeconds ? { durationSeconds: options.durationSeconds } : {}),
    target: server.target,
    method: 'POST',
    path: '/redeem',
    headers: { authorization: actors.client.authorization, 'content-type': 'application/json' },
    items,
    expect: { status: 200 },
  });
}

/**
 * Makes `count` approval tokens without measuring: requests for the plain users, approved in the
 * store, their tokens fetched from `/token`.
 */
export async function makeTokens(ctx: BenchContext, server: CountersignServer, actors: Actors, store: Store, count: number): Promise<ApprovalToken[]> {
  const { pending } = await backchannel(ctx, server, actors, actors.plain, count);
  await approveInStore(store, pending);
  const { tokens } = await issueTokens(ctx, server, actors, pending);
  return tokens;
}
