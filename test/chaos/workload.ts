import { setTimeout as sleep } from 'node:timers/promises';
import { payment } from '../support/payment.ts';
import { isRetryable, mapLimit, withRetries, type ChaosClient, type ChaosHttp, type ChaosUser, type Reply } from './http-client.ts';
import type { ServerProcess } from './processes.ts';

/** One approval the person gave and the agent holds the token of. */
export interface Approved {
  authReqId: string;
  accessToken: string;
  /** The action as asked and approved: what `/redeem` is presented with. */
  details: unknown;
}

/** Calls made before a fault runs this many at once: enough to be quick, few enough for 2 cores. */
const SETUP_CONCURRENCY = 8;

/** The payment of `payment()`, with a transaction id of its own (the same one would be the same request). */
export function uniquePayment(tag: string, index: number): unknown {
  return payment({ transaction_id: `txn_${tag}_${index}` });
}

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.networkError ?? JSON.stringify(reply.body)}`);
}

/**
 * `count` requests asked, approved by the person with the passkey and polled for their token once,
 * before any fault, spread over the instances (each step on another instance than the one before).
 * @throws when any step fails: nothing is being broken yet.
 */
export async function approvedRequests(http: ChaosHttp, instances: ServerProcess[], client: ChaosClient, user: ChaosUser, count: number, tag: string): Promise<Approved[]> {
  return mapLimit(
    Array.from({ length: count }, (_, i) => i),
    SETUP_CONCURRENCY,
    async (i) => {
      const [first, second] = [instances[i % instances.length]!, instances[(i + 1) % instances.length]!];
      const details = uniquePayment(tag, i);
      const asked = await http.ask(first, client, user, details);
      expectStatus(asked, 200, 'bc-authorize');
      const authReqId = asked.body.auth_req_id as string;
      const view = await http.view(second, user, authReqId);
      expectStatus(view, 200, 'device view');
      const decision = await http.postDecision(second, user, authReqId, await http.signApproval(user, view));
      // One device deciding many requests at once can lose its record's swap (503): the person taps again.
      if (decisionInDoubt(decision)) {
        const again = await approveAgain(http, () => instances, user, authReqId, Date.now() + 10_000);
        if (again.reply.body?.request?.state !== 'approved') throw new Error(`approval: ${again.reply.status} ${JSON.stringify(again.reply.body)}`);
      } else expectStatus(decision, 200, 'approval');
      const token = await http.token(first, client, authReqId);
      expectStatus(token, 200, 'token');
      return { authReqId, accessToken: token.body.access_token as string, details };
    },
  );
}

/** One redeem caller's tries for one token, in order, and on which instance each went. */
export interface RedeemRace {
  authReqId: string;
  tries: { instance: string; reply: Reply }[];
}

/** Options of {@link redeemStorm}. */
export interface StormOptions {
  /** Concurrent callers per token (the executor retrying from several workers, say). */
  racers: number;
  /**
   * The tokens' first tries are spread evenly over this window, ms, but for a burst a quarter
   * into it: a fault started as the burst's first answer comes back finds most of the burst's
   * calls in the server's hands, some of them with their compare-and-swap sent.
   */
  windowMs: number;
  /** The share of tokens in the burst (0 to 1). */
  burstFraction: number;
  /** How long after the window's end a caller keeps retrying a 503 or a network error, ms. */
  retryMs: number;
}

/** A storm under way: its callers' results, and the moment to start a fault. */
export interface Storm {
  races: Promise<RedeemRace[]>;
  /** Resolves when the first call of the burst is answered. */
  burstAnswered: Promise<void>;
}

/**
 * The redeem storm: for each token, `racers` callers start together at the token's slot in the
 * window, each on another instance, and each retries a 503 (`temporarily_unavailable`) or a lost
 * answer with the same token and the same action, moving to the next instance, until it gets any
 * other answer or its retry time is up.
 *
 * @param instances - the instances to spread calls over, read at every try (one may have died).
 */
export function redeemStorm(http: ChaosHttp, instances: () => ServerProcess[], client: ChaosClient, approved: Approved[], options: StormOptions): Storm {
  const started = Date.now();
  const deadline = started + options.windowMs + options.retryMs;
  const count = approved.length;
  const burstCount = Math.round(count * options.burstFraction);
  const burstStart = Math.floor((count - burstCount) / 4);
  const burstEnd = burstStart + burstCount;
  const quarter = options.windowMs / 4;
  const slot = (index: number) => (index < burstStart ? (index / burstStart) * quarter : index < burstEnd ? quarter : quarter + ((index - burstEnd + 1) / (count - burstEnd)) * 3 * quarter);
  let answered: () => void = () => {};
  const burstAnswered = new Promise<void>((resolve) => (answered = resolve));
  const races = approved.flatMap((approval, index) =>
    Array.from({ length: options.racers }, async (_, racer): Promise<RedeemRace> => {
      await sleep(Math.max(0, started + slot(index) - Date.now()));
      const tries: RedeemRace['tries'] = [];
      await withRetries(async (tryNumber) => {
        const alive = instances();
        const instance = alive[(index + racer + tryNumber) % alive.length]!;
        const reply = await http.redeem(instance, client, approval.accessToken, approval.details);
        if (index >= burstStart && index < burstEnd) answered();
        tries.push({ instance: instance.name, reply });
        return reply;
      }, deadline);
      return { authReqId: approval.authReqId, tries };
    }),
  );
  return { races: Promise.all(races).finally(answered), burstAnswered };
}

/**
 * The person approves `authReqId` on a surviving instance after a decision whose answer was lost
 * or was 503: the phone opens the request again (a fresh prompt where the last was used up) and
 * signs again, until the request is no longer pending or `deadline` passes.
 *
 * @returns the last reply (a view of a decided request, or the decision's answer), and whether this
 *   retry's own decision was the one answered 200 (false when the lost one had already landed).
 */
export async function approveAgain(http: ChaosHttp, instances: () => ServerProcess[], user: ChaosUser, authReqId: string, deadline: number): Promise<{ reply: Reply; decidedHere: boolean }> {
  let decidedHere = false;
  const replies = await withRetries(async (tryNumber) => {
    const alive = instances();
    const instance = alive[tryNumber % alive.length]!;
    const view = await http.view(instance, user, authReqId);
    if (view.status !== 200 || view.body.request.state !== 'pending' || !view.body.options) return view;
    const decision = await http.postDecision(instance, user, authReqId, await http.signApproval(user, view));
    decidedHere = decision.status === 200;
    return decision;
  }, deadline);
  return { reply: replies.at(-1)!, decidedHere };
}

/** Whether a decision's reply leaves the approval in doubt (to be checked on another instance). */
export function decisionInDoubt(reply: Reply): boolean {
  return isRetryable(reply) || reply.status >= 500;
}
