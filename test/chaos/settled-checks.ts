import type { Cluster, Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosHttp } from './http-client.ts';
import { add, SERVER_PREFIX, TENANT, type Problems } from './problems.ts';
import type { ServerProcess } from './processes.ts';

// The invariants that may take time to hold after a fault (a reconciler may deliver them), and the
// loop that gives them that time.

/** What the settled checks read: an instance to ask (the first that answers) and the deployment's Redis. */
export interface SettledContext {
  http: ChaosHttp;
  instances: () => ServerProcess[];
  redis: Redis | Cluster;
}

/** The body of a 200 to an admin `GET path` from the first instance that gives one, or null when none does. */
async function adminGet(context: SettledContext, path: string): Promise<any | null> {
  for (const instance of context.instances()) {
    const reply = await context.http.admin(instance, 'GET', path);
    if (reply.status === 200) return reply.body;
  }
  return null;
}

/**
 * The consequences of each redemption, which may come later than its answer (from a reconciler):
 * the request is `redeemed` with the redemption id its callers were told; its trail
 * (`GET /api/admin/audit?auth_req_id=…`) has exactly one `redeemed` event; and it is in the outcome
 * deadline index (`deadlines:{outcome}`, member `<tenant>:<auth_req_id>`, see
 * `requests/outcome-deadlines.ts`): no outcome is reported here, so it must stay there.
 */
export async function checkRedemptionsSettled(context: SettledContext, authReqIds: string[], redemptionIds: Map<string, string>): Promise<Problems> {
  const problems: Problems = {};
  await Promise.all(
    authReqIds.map(async (authReqId) => {
      const [view, audit, deadline] = await Promise.all([adminGet(context, `/requests/${authReqId}`), adminGet(context, `/audit?auth_req_id=${authReqId}`), context.redis.zscore(`${SERVER_PREFIX}deadlines:{outcome}`, `${TENANT}:${authReqId}`).catch(() => 'unreadable')]);
      if (!view || !audit) return add(problems, 'admin API unreachable', authReqId);
      const told = redemptionIds.get(authReqId);
      if (view.request.state !== 'redeemed') add(problems, 'approved request not redeemed in the end', `${authReqId}: ${view.request.state}`);
      else if (told && view.request.redemption_id !== told) add(problems, 'stored redemption_id differs from the one answered', authReqId);
      const redeemedEvents = (audit.events as { type: string }[]).filter((event) => event.type === 'redeemed').length;
      if (view.request.state === 'redeemed' && redeemedEvents !== 1) add(problems, 'redeemed request without exactly one `redeemed` audit event', `${authReqId}: ${redeemedEvents}`);
      if (view.request.state === 'redeemed' && deadline === null) add(problems, 'redeemed request without its outcome deadline', authReqId);
      if (deadline === 'unreadable') add(problems, 'outcome deadline index unreadable', authReqId);
    }),
  );
  return problems;
}

/** Every approved request of a ping client was pinged at least once: the receiver saw its auth_req_id. */
export async function checkPings(context: SettledContext, authReqIds: string[], pinged: () => Set<string>): Promise<Problems> {
  const problems: Problems = {};
  const seen = pinged();
  await Promise.all(
    authReqIds.map(async (authReqId) => {
      const view = await adminGet(context, `/requests/${authReqId}`);
      if (!view) return add(problems, 'admin API unreachable', authReqId);
      if (view.request.state === 'pending') add(problems, 'request still pending after its approval was retried', authReqId);
      else if (view.request.state !== 'approved' && view.request.state !== 'redeemed') add(problems, 'request neither approved nor redeemed', `${authReqId}: ${view.request.state}`);
      else if (!seen.has(authReqId)) add(problems, 'approved ping request never pinged', authReqId);
    }),
  );
  return problems;
}

/**
 * Evaluates `check` until it finds no problem or `timeoutMs` passes, every 250 ms: the system is
 * given that long after the fault to deliver what a transition owes (a reconciler may do it).
 *
 * @returns the last problems and how long it took (the whole timeout when they never cleared).
 */
export async function settle(check: () => Promise<Problems>, timeoutMs: number): Promise<{ problems: Problems; settleMs: number }> {
  const started = Date.now();
  for (;;) {
    const problems = await check();
    const settleMs = Date.now() - started;
    if (Object.keys(problems).length === 0 || settleMs > timeoutMs) return { problems, settleMs };
    await sleep(250);
  }
}
