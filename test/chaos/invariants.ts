import { isForbidden5xx, type Answer } from './http-client.ts';
import { add, type Problems } from './problems.ts';
import type { RedeemRace } from './workload.ts';

export { auditVerifyCli, auditVerifyOn } from './audit-verify.ts';
export { SERVER_PREFIX, summarize, TENANT, type Problems } from './problems.ts';
export { checkPings, checkRedemptionsSettled, settle, type SettledContext } from './settled-checks.ts';

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
  return `[chaos] ${scenario}: ${Object.entries(figures)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ')}`;
}
