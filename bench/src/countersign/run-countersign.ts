import type { Store } from '@countersign/server';
import { benchConfig } from '../config.ts';
import type { BenchContext, Measured } from '../context.ts';
import { measure } from '../context.ts';
import type { PingReceiver } from '../infra/ping-receiver.ts';
import type { PushReceiver } from '../infra/push-receiver.ts';
import { runLoad } from '../load/run-load.ts';
import type { LoadItem } from '../load/spec.ts';
import type { PeerSteps } from '../peer/steps.ts';
import { approvalToPing, preparePings, requestToPush } from './delivery-passes.ts';
import type { Actors, CountersignServer } from './server.ts';
import { approveInStore, backchannel, decide, issueTokens, makeTokens, pollPending, prepareDecisions, pushSettler, redeem, redeemItems, type ApprovalToken, type PendingRequest } from './steps.ts';

/** Countersign's measured rows, the peer's, and what is left over for the profiles. */
export interface CountersignRun {
  rows: Record<string, Measured>;
  peerRows: Record<string, Measured>;
  /** The same steps of the peer with its state in Redis. */
  peerRedisRows: Record<string, Measured>;
  leftover: { decisions: LoadItem[]; tokens: ApprovalToken[]; pending: PendingRequest[] };
}

/** Requests the pool of a closed-loop run should hold, for a guessed rate (the run ends early if they run out). */
function poolFor(rate: number, seconds = benchConfig.warmupSeconds + benchConfig.durationSeconds): number {
  return Math.ceil(rate * seconds * 1.2) + 200;
}

/**
 * Countersign's steps, each measured at `benchConfig.connections` for `benchConfig.durationSeconds`
 * after a warm-up: the HTTP floor, `/bc-authorize` with a push (and without, for the peer, whose
 * device trigger is a no-op), a pending poll, the device's approval, token issuance, and `/redeem`
 * at its peak and at half of it; and, paced at half their peaks, `/bc-authorize` with a push and the
 * approval of a ping client's request, timed to the push and the ping they set off (`pings`, the
 * ping client's notification endpoint). The requests one step makes feed the next. The peer's same step
 * runs right after each of Countersign's, so that both meet the same machine, and then the peer's
 * on Redis (`peerRedis`).
 */
export async function runCountersign(ctx: BenchContext, server: CountersignServer, actors: Actors, receivers: { push: PushReceiver; pings: PingReceiver }, store: Store, peer: PeerSteps, peerRedis: PeerSteps): Promise<CountersignRun> {
  const receiver = receivers.push;
  const rows: Record<string, Measured> = {};
  const peerRows: Record<string, Measured> = {};
  const peerRedisRows: Record<string, Measured> = {};
  const target = server.target;

  rows.healthz = (await measure(ctx, server.child, 'countersign', 'GET /healthz', { name: 'cs-healthz', mode: 'closed', target, method: 'GET', path: '/healthz', headers: {}, expect: { status: 200 } })).measured;
  peerRows.healthz = await peer.floor();
  const floor = rows.healthz.rps;

  const pushed = await backchannel(ctx, server, actors, actors.push, Math.min(poolFor(floor / 4), actors.push.length * 1000), 'POST /bc-authorize (push to 1 device)', pushSettler(receiver));
  rows.bcAuthorizePush = pushed.measured!;
  const pushPaced = await requestToPush(ctx, server, actors, receiver, Math.max(1, Math.round(rows.bcAuthorizePush.rps / 2)));
  rows.bcAuthorizePushHalf = pushPaced.measured;
  // A quarter of the peak too: at half, the pushes may queue behind each other (the closed-loop
  // peak counts answers, and the pushes follow them), and the latency away from saturation is
  // what a person waiting for a phone to buzz sees.
  rows.bcAuthorizePushQuarter = (await requestToPush(ctx, server, actors, receiver, Math.max(1, Math.round(rows.bcAuthorizePush.rps / 4)), 'quarter')).measured;

  const plain = await backchannel(ctx, server, actors, actors.plain, Math.min(poolFor(floor / 2), actors.plain.length * 900), 'POST /bc-authorize (no push)');
  rows.bcAuthorize = plain.measured!;
  peerRows.bcAuthorize = await peer.bcAuthorize(actors.plain.map((user) => user.sub));
  peerRedisRows.bcAuthorize = await peerRedis.bcAuthorize(actors.plain.map((user) => user.sub));
  const bcRate = rows.bcAuthorize.rps;

  // Pools for what follows, guessed from the rates so far (the pool of each run ends it early if
  // it is too small, and the report says so): decisions cost about a bc-authorize, token
  // issuance and redemption about half of one.
  const decisionsWanted = poolFor(bcRate * 1.2, benchConfig.warmupSeconds + benchConfig.durationSeconds + benchConfig.profileSeconds);
  const approvalsWanted = poolFor(bcRate * 2.4);
  const pending = [...plain.pending];
  const missing = decisionsWanted + approvalsWanted - pending.length;
  if (missing > 0) {
    ctx.log(`  making ${missing} more pending requests for the pools`);
    pending.push(...(await backchannel(ctx, server, actors, actors.plain, missing)).pending);
  }

  rows.tokenPending = (await pollPending(ctx, server, actors, [...pending, ...pushed.pending], 'POST /token (pending)')).measured;
  peerRows.tokenPending = await peer.pollPending();
  peerRedisRows.tokenPending = await peerRedis.pollPending();

  ctx.log(`  opening ${decisionsWanted} requests on their devices and signing approvals`);
  const decisionPending = pending.splice(0, decisionsWanted);
  const decisionItems = await prepareDecisions(server, actors, decisionPending);
  const decided = await decide(ctx, server, decisionItems, 'POST /api/device/requests/{id}/decision');
  rows.decision = decided.measured;
  const usedDecisions = decided.measured.totalResponses + benchConfig.connections;
  const leftoverDecisions = decisionItems.slice(usedDecisions);
  const pingRate = Math.max(1, Math.round(decided.measured.rps / 2));
  ctx.log(`  making the ping client's requests for ${pingRate}/s, opening them on their devices and signing approvals`);
  rows.decisionPing = await approvalToPing(ctx, server, receivers.pings, await preparePings(ctx, server, actors, pingRate), pingRate);
  const quarterPingRate = Math.max(1, Math.round(decided.measured.rps / 4));
  rows.decisionPingQuarter = await approvalToPing(ctx, server, receivers.pings, await preparePings(ctx, server, actors, quarterPingRate), quarterPingRate, 'quarter');

  const approved = await approveInStore(store, pending);
  ctx.log(`  ${approved} more requests approved in the store (with the decision's compare-and-swap)`);
  // The requests the measured decisions approved get their tokens too.
  const approvedPool = [...decisionPending.slice(0, Math.max(0, decided.measured.totalResponses - benchConfig.connections)), ...pending];
  const issued = await issueTokens(ctx, server, actors, approvedPool, 'POST /token (approved → tokens)');
  rows.tokenIssue = issued.measured!;
  peerRows.tokenIssue = await peer.issueTokens();
  peerRedisRows.tokenIssue = await peerRedis.issueTokens();
  let tokens = issued.tokens;

  // Tokens for the peak, the paced pass and the profile, made in one go, sized from a short
  // unmeasured run (redemption's speed relative to the other steps changes as the server does).
  const calibration = await runLoad(
    {
      name: 'cs-redeem-calibration',
      mode: 'closed',
      target,
      method: 'POST',
      path: '/redeem',
      headers: { authorization: actors.client.authorization, 'content-type': 'application/json' },
      items: redeemItems(tokens.slice(0, Math.ceil(rows.tokenIssue.rps * 4.5))),
      connections: benchConfig.connections,
      warmupSeconds: 0.5,
      durationSeconds: 1.5,
      expect: { status: 200 },
    },
    ctx.workDir,
  );
  tokens = tokens.slice(calibration.totalResponses + benchConfig.connections);
  const redeemGuess = Math.max(1, calibration.rps);
  const tokensWanted = poolFor(redeemGuess) + poolFor(redeemGuess / 2) + Math.ceil(redeemGuess * benchConfig.profileSeconds * 1.2);
  ctx.log(`  /redeem runs at about ${Math.round(redeemGuess)}/s here; ${tokens.length} approval tokens in hand, ${tokensWanted} wanted`);
  if (tokens.length < tokensWanted) {
    ctx.log(`  making ${tokensWanted - tokens.length} more approval tokens`);
    tokens = tokens.concat(await makeTokens(ctx, server, actors, store, tokensWanted - tokens.length));
  }
  const peak = await redeem(ctx, server, actors, redeemItems(tokens), 'POST /redeem (peak)');
  rows.redeem = peak.measured;
  tokens = tokens.slice(peak.measured.totalResponses + benchConfig.connections);

  const halfRate = Math.max(1, Math.round(rows.redeem.rps / 2));
  const halfWanted = poolFor(halfRate);
  if (tokens.length < halfWanted) {
    ctx.log(`  making ${halfWanted - tokens.length} more approval tokens`);
    tokens = tokens.concat(await makeTokens(ctx, server, actors, store, halfWanted - tokens.length));
  }
  const half = await redeem(ctx, server, actors, redeemItems(tokens), `POST /redeem (paced at half the peak, ${halfRate}/s)`, { rate: halfRate });
  rows.redeemHalf = half.measured;
  tokens = tokens.slice(half.measured.totalResponses);

  // The same at a quarter of the peak: where the p99 stands when the server has room to spare.
  const quarterRate = Math.max(1, Math.round(rows.redeem.rps / 4));
  const quarterWanted = poolFor(quarterRate);
  if (tokens.length < quarterWanted) {
    ctx.log(`  making ${quarterWanted - tokens.length} more approval tokens`);
    tokens = tokens.concat(await makeTokens(ctx, server, actors, store, quarterWanted - tokens.length));
  }
  const quarter = await redeem(ctx, server, actors, redeemItems(tokens), `POST /redeem (paced at a quarter of the peak, ${quarterRate}/s)`, { rate: quarterRate });
  rows.redeemQuarter = quarter.measured;
  tokens = tokens.slice(quarter.measured.totalResponses);

  // The same paced sender against the floor at the same rate: what the machine and the load
  // process alone add to a p99 at this rate.
  rows.healthzPaced = (await measure(ctx, server.child, 'countersign', `GET /healthz (paced at ${halfRate}/s)`, { name: 'cs-healthz-paced', mode: 'paced', rate: halfRate, target, method: 'GET', path: '/healthz', headers: {}, expect: { status: 200 } })).measured;

  return { rows, peerRows, peerRedisRows, leftover: { decisions: leftoverDecisions, tokens, pending: [...pushed.pending, ...pushPaced.pending] } };
}
