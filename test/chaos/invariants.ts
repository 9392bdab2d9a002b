import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Cluster, Redis } from 'ioredis';
import { createAuditLog } from '../../server/src/audit/index.ts';
import { runAuditCommand } from '../../server/src/cli/audit-command.ts';
import { systemClock } from '../../server/src/runtime/index.ts';
import { RedisStore } from '../../server/src/store/index.ts';
import { isForbidden5xx, type Answer, type ChaosHttp } from './http-client.ts';
import { REPO_ROOT, type ServerProcess } from './processes.ts';
import type { RedeemRace } from './workload.ts';

/** The key prefix `main.ts` gives the Redis store (`REDIS_PREFIX`), and the tenant every client and user here is in. */
export const SERVER_PREFIX = 'cs:';
export const TENANT = 'default';

/** Invariant → the auth_req_ids (or answers) that break it. Empty when everything holds. */
export type Problems = Record<string, string[]>;

function add(problems: Problems, invariant: string, example: string): void {
  (problems[invariant] ??= []).push(example);
}

/** Problems as counts with a few examples each, for the failure message and the report. */
export function summarize(problems: Problems): Record<string, { count: number; examples: string[] }> {
  return Object.fromEntries(Object.entries(problems).map(([invariant, examples]) => [invariant, { count: examples.length, examples: examples.slice(0, 3) }]));
}

/**
 * What the answers to the redeem callers prove on their own, with no settle time: each token was
 * redeemed at most once (at most one 200 `redeemed` over all its callers, instances and retries);
 * every caller of a token that was redeemed is told the same `redemption_id` (in the 200, or in the
 * 409 `already_redeemed` body); and every caller got a final answer, 200 or 409 `already_redeemed`,
 * once the fault was over (none left at a 503 or a lost answer, none refused otherwise).
 *
 * @returns the problems, and per auth_req_id the redemption id its callers were told (if any).
 */
export function checkRedeemAnswers(races: RedeemRace[]): { problems: Problems; redemptionIds: Map<string, string> } {
  const problems: Problems = {};
  const byRequest = new Map<string, RedeemRace[]>();
  for (const race of races) byRequest.set(race.authReqId, [...(byRequest.get(race.authReqId) ?? []), race]);
  const redemptionIds = new Map<string, string>();
  for (const [authReqId, callers] of byRequest) {
    const replies = callers.flatMap((caller) => caller.tries.map((attempt) => attempt.reply));
    const wins = replies.filter((reply) => reply.status === 200 && reply.body?.status === 'redeemed');
    if (wins.length > 1) add(problems, 'token redeemed more than once (200 redeemed twice)', `${authReqId} ×${wins.length}`);
    const told = new Set<string>();
    for (const reply of wins) told.add(String(reply.body.redemption_id));
    for (const reply of replies) {
      if (reply.status !== 409 || reply.body?.error !== 'already_redeemed') continue;
      const id = reply.body.redemption?.redemption_id;
      if (typeof id !== 'string') add(problems, '409 already_redeemed without the redemption record', authReqId);
      else told.add(id);
    }
    if (told.size > 1) add(problems, 'callers of one token told different redemption_ids', `${authReqId}: ${[...told].join(' ')}`);
    if (told.size === 1) redemptionIds.set(authReqId, [...told][0]!);
    for (const caller of callers) {
      const last = caller.tries.at(-1)!.reply;
      const final = (last.status === 200 && last.body?.status === 'redeemed') || (last.status === 409 && last.body?.error === 'already_redeemed');
      if (!final) add(problems, 'redeem caller left without a final answer (200 or 409 already_redeemed)', `${authReqId}: ${last.status} ${last.networkError ?? last.body?.error ?? ''}`);
    }
  }
  return { problems, redemptionIds };
}

/** Every answer that is a 5xx other than 503 `temporarily_unavailable` (a network error is not an answer). */
export function forbidden5xx(answers: Answer[]): Problems {
  const problems: Problems = {};
  for (const answer of answers) if (isForbidden5xx(answer)) add(problems, 'a 5xx other than 503 temporarily_unavailable', `${answer.status} ${answer.code ?? ''} on ${answer.instance} ${answer.route}`);
  return problems;
}

/** What the settled checks read: an instance to ask (the first that answers) and the deployment's Redis. */
export interface SettledContext {
  http: ChaosHttp;
  instances: () => ServerProcess[];
  redis: Redis | Cluster;
}

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
      const [view, audit, deadline] = await Promise.all([
        adminGet(context, `/requests/${authReqId}`),
        adminGet(context, `/audit?auth_req_id=${authReqId}`),
        context.redis.zscore(`${SERVER_PREFIX}deadlines:{outcome}`, `${TENANT}:${authReqId}`).catch(() => 'unreadable'),
      ]);
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

const execFileAsync = promisify(execFile);

/**
 * `audit verify --tenant default` as an operator runs it: `tsx server/src/cli/audit.ts` with the
 * deployment's `REDIS_URL`. Exit 0 means the chain holds.
 */
export async function auditVerifyCli(redisUrl: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', 'server/src/cli/audit.ts', 'verify', '--tenant', TENANT], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', REDIS_URL: redisUrl },
      timeout: 30_000,
    });
    return { code: 0, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}`.trim() };
  }
}

/**
 * `audit verify --tenant default` on a Redis Cluster: the command the CLI runs
 * (`runAuditCommand`), given the audit log of the server's store on the cluster, since
 * `server/src/cli/audit.ts` reads only `REDIS_URL`.
 */
export async function auditVerifyOn(redis: Redis | Cluster): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const store = new RedisStore({ redis, prefix: SERVER_PREFIX });
  const code = await runAuditCommand(['verify', '--tenant', TENANT], {
    openAudit: async () => ({ audit: createAuditLog(store, systemClock, 1), close: async () => {} }),
    readLines: () => {
      throw new Error('no file here');
    },
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
  });
  return { code, output: lines.join('\n') };
}

/** The figures of one scenario, on one line, for docs/reliability.md. */
export function figureLine(scenario: string, answers: Answer[], extra: Record<string, number | string>): string {
  const redeems = answers.filter((answer) => answer.route === 'POST /redeem');
  const latencies = redeems.map((answer) => answer.ms).sort((x, y) => x - y);
  const count = (predicate: (answer: Answer) => boolean) => redeems.filter(predicate).length;
  const figures = {
    redeem_attempts: redeems.length,
    '200': count((answer) => answer.status === 200),
    '409': count((answer) => answer.status === 409),
    '503': count((answer) => answer.status === 503 && !isForbidden5xx(answer)),
    other_5xx_all_routes: answers.filter(isForbidden5xx).length,
    no_answer: count((answer) => answer.status === 0),
    p99_latency_ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    max_latency_ms: Math.round(latencies.at(-1) ?? 0),
    ...extra,
  };
  return `[chaos] ${scenario}: ${Object.entries(figures).map(([key, value]) => `${key}=${value}`).join(' ')}`;
}
