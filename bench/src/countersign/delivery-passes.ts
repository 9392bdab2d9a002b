import { topicFor } from '@countersign/server';
import { benchConfig } from '../config.ts';
import type { BenchContext, Measured } from '../context.ts';
import { measure } from '../context.ts';
import type { PingReceiver } from '../infra/ping-receiver.ts';
import type { PushReceiver } from '../infra/push-receiver.ts';
import type { LoadItem, LoadResult } from '../load/spec.ts';
import { deliveryOf, describeDelivery, type Delivery } from '../measure/delivery.ts';
import { backchannelBodies, parseCaptures } from './actions.ts';
import type { Actors, CountersignServer } from './server.ts';
import { backchannel, prepareDecisions, type PendingRequest } from './steps.ts';

/** Longest wait, after a paced run, for the last of the messages its requests set off. */
const SETTLE_MS = 60_000;

/** Requests a paced run at `rate` sends over its warm-up and measured window, and a few more. */
function pacedPool(rate: number): number {
  return Math.ceil(rate * (benchConfig.warmupSeconds + benchConfig.durationSeconds)) + 50;
}

/**
 * Waits until the message of every key has arrived at `receiver` (or {@link SETTLE_MS} passed).
 * Keys mostly arrive in order, so the check moves a cursor instead of looking at them all each time.
 */
async function settle(receiver: Pick<PushReceiver, 'arrivals' | 'waitUntil'>, keys: string[]): Promise<number> {
  let next = 0;
  return receiver.waitUntil(() => {
    while (next < keys.length && receiver.arrivals.has(keys[next]!)) next++;
    return next === keys.length;
  }, SETTLE_MS);
}

/** The timed answers of a run, with the key their message arrives under. */
function keyed(result: LoadResult, keyOf: (index: number) => string): { key: string; answeredAt: number }[] {
  return (result.answers ?? []).map(({ index, answeredAt }) => ({ key: keyOf(index), answeredAt }));
}

/**
 * `POST /bc-authorize` for the push users, paced at `rate` (open loop, as the paced `/redeem`), and
 * the time from each answer at the load process to its Web Push at the local receiver. The receiver
 * knows a request's message by its `Topic` (`topicFor(auth_req_id)`, what the server sends), so
 * nothing is decrypted. Answers the row, its `delivery`, and the requests it made.
 */
export async function requestToPush(ctx: BenchContext, server: CountersignServer, actors: Actors, receiver: PushReceiver, rate: number, share: 'half' | 'quarter' = 'half'): Promise<{ measured: Measured; pending: PendingRequest[] }> {
  const tag = `pushpaced${Date.now().toString(36)}`;
  const { items, planned } = backchannelBodies(
    actors.push.map((user) => user.sub),
    pacedPool(rate),
    tag,
  );
  let delivery: Delivery | undefined;
  const spec = { name: `cs-${tag}`, mode: 'paced' as const, rate, target: server.target, method: 'POST' as const, path: '/bc-authorize', headers: { authorization: actors.client.authorization, 'content-type': 'application/x-www-form-urlencoded' }, items, expect: { status: 200 }, capture: 'auth_req_id', stamp: true };
  const run = await measure(ctx, server.child, 'countersign', `POST /bc-authorize (push, paced at ${share === 'half' ? 'half' : 'a quarter of'} the peak, ${rate}/s)`, spec, async (result) => {
    const ids = new Map(parseCaptures(result.captured).map(({ index, value }) => [index, value]));
    const waited = await settle(
      receiver,
      [...ids.values()].map((id) => topicFor(id)),
    );
    delivery = {
      ...deliveryOf(
        'push',
        "/bc-authorize's answer at the load process",
        'its push at the receiver',
        keyed(result, (index) => topicFor(ids.get(index) ?? '')),
        receiver.arrivals,
      ),
      share,
    };
    return `${describeDelivery(delivery)}; the last push of the run ${(waited / 1000).toFixed(1)} s after the load stopped (${receiver.stats.malformed} malformed in all)`;
  });
  const pending = parseCaptures(run.captured).map(({ index, value }) => ({ id: value, sub: planned[index]!.sub, details: planned[index]!.details }));
  return { measured: { ...run.measured, ...(delivery ? { delivery } : {}) }, pending };
}

/**
 * Makes requests of the ping client for the plain users and opens each on its user's device, ready
 * to approve: the pool of {@link approvalToPing} at `rate`.
 */
export async function preparePings(ctx: BenchContext, server: CountersignServer, actors: Actors, rate: number): Promise<{ pending: PendingRequest[]; items: LoadItem[] }> {
  const { pending } = await backchannel(ctx, server, { ...actors, client: actors.pingClient }, actors.plain, pacedPool(rate));
  return { pending, items: await prepareDecisions(server, actors, pending) };
}

/**
 * `POST /api/device/requests/{id}/decision` approving the ping client's requests, paced at `rate`,
 * and the time from each answer at the load process to the ping (`{auth_req_id}`, CIBA Core §10.2)
 * at the client's notification endpoint, the benchmark's ping receiver. Answers the row with its `delivery`.
 */
export async function approvalToPing(ctx: BenchContext, server: CountersignServer, receiver: PingReceiver, pool: { pending: PendingRequest[]; items: LoadItem[] }, rate: number, share: 'half' | 'quarter' = 'half'): Promise<Measured> {
  let delivery: Delivery | undefined;
  const spec = {
    name: `cs-decision-ping-${Date.now().toString(36)}`,
    mode: 'paced' as const,
    rate,
    target: server.target,
    method: 'POST' as const,
    path: '/api/device/requests/x/decision',
    headers: { 'content-type': 'application/json', origin: server.publicUrl },
    items: pool.items,
    expect: { status: 200 },
    stamp: true,
  };
  const run = await measure(ctx, server.child, 'countersign', `POST /api/device/requests/{id}/decision (ping client, paced at ${share === 'half' ? 'half' : 'a quarter of'} the peak, ${rate}/s)`, spec, async (result) => {
    const approved = keyed(result, (index) => pool.pending[index]!.id);
    const waited = await settle(
      receiver,
      approved.map(({ key }) => key),
    );
    delivery = { ...deliveryOf('ping', "the decision's answer at the load process", 'its ping at the notification endpoint', approved, receiver.arrivals), share };
    return `${describeDelivery(delivery)}; the last ping of the window ${(waited / 1000).toFixed(1)} s after the load stopped (${receiver.stats.malformed} malformed in all)`;
  });
  return { ...run.measured, ...(delivery ? { delivery } : {}) };
}
