import type { Store } from '@countersign/server';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { benchConfig } from '../config.ts';
import type { BenchContext } from '../context.ts';
import { backchannelBodies, tokenBody } from '../countersign/actions.ts';
import type { Actors, CountersignServer } from '../countersign/server.ts';
import { makeTokens, redeemItems, type ApprovalToken, type PendingRequest } from '../countersign/steps.ts';
import { waitIdle } from '../infra/child.ts';
import { runLoad } from '../load/run-load.ts';
import type { LoadItem, LoadSpec } from '../load/spec.ts';
import type { Report } from '../report/report.ts';
import { summarizeProfile, type ProfileSummary } from './summarize.ts';

const FORM = 'application/x-www-form-urlencoded';

/**
 * Profiles the server under each scenario that misses a target, and under the other main steps
 * for comparison: the V8 CPU profiler (what `node --cpu-prof` runs), started and stopped over IPC
 * around `benchConfig.profileSeconds` of closed-loop load, so each profile holds one endpoint.
 * These runs are not the measured ones (sampling costs a little); their profiles go to
 * `bench/results/profiles/` and their summaries into the report.
 */
export async function runProfiles(ctx: BenchContext, server: CountersignServer, actors: Actors, store: Store, leftover: { decisions: LoadItem[]; tokens: ApprovalToken[]; pending: PendingRequest[] }, report: Report, dir: string): Promise<ProfileSummary[]> {
  mkdirSync(dir, { recursive: true });
  const stamp = report.meta.startedAt.replace(/[:.]/g, '-');
  const summaries: ProfileSummary[] = [];
  const seconds = benchConfig.profileSeconds;
  const rate = (label: string) => report.rows.find((row) => row.system === 'countersign' && row.label.startsWith(label))?.rps ?? 1000;

  const profile = async (scenario: string, spec: Omit<LoadSpec, 'resultFile' | 'connections' | 'warmupSeconds' | 'durationSeconds' | 'mode' | 'target'>) => {
    const file = join(dir, `${stamp}-${scenario.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`);
    ctx.log(`  profiling ${scenario} for ${seconds} s`);
    await server.child.startProfile(1000);
    try {
      await runLoad({ ...spec, mode: 'closed', target: server.target, connections: benchConfig.connections, warmupSeconds: 0, durationSeconds: seconds }, ctx.workDir);
    } finally {
      await server.child.stopProfile(file);
    }
    await waitIdle(server.child);
    const summary = summarizeProfile(scenario, file);
    summaries.push(summary);
    ctx.log(
      `    top: ${summary.byArea
        .slice(0, 5)
        .map((line) => `${line.name} ${line.percent}%`)
        .join(', ')}`,
    );
  };

  // Redemption: distinct approved tokens, as in the measured run.
  let tokens = leftover.tokens;
  const tokensWanted = Math.ceil(rate('POST /redeem (peak)') * seconds * 1.3);
  if (tokens.length < tokensWanted) tokens = tokens.concat(await makeTokens(ctx, server, actors, store, tokensWanted - tokens.length));
  await profile('POST /redeem', {
    name: 'profile-redeem',
    method: 'POST',
    path: '/redeem',
    headers: { authorization: actors.client.authorization, 'content-type': 'application/json' },
    items: redeemItems(tokens),
    expect: { status: 200 },
  });

  // bc-authorize with a push to one device: the request, and the push it starts.
  const { items } = backchannelBodies(
    actors.push.map((user) => user.sub),
    Math.min(Math.ceil(rate('POST /bc-authorize (push') * seconds * 1.5) + 500, actors.push.length * 1000 - leftover.pending.length - 1000),
    `profile${Date.now().toString(36)}`,
  );
  await profile('POST /bc-authorize (push)', {
    name: 'profile-bc-authorize',
    method: 'POST',
    path: '/bc-authorize',
    headers: { authorization: actors.client.authorization, 'content-type': FORM },
    items,
    expect: { status: 200 },
  });

  // Without a push: the step the peer is compared on (its device trigger is a no-op).
  await profile('POST /bc-authorize (no push)', {
    name: 'profile-bc-authorize-plain',
    method: 'POST',
    path: '/bc-authorize',
    headers: { authorization: actors.client.authorization, 'content-type': FORM },
    items: backchannelBodies(
      actors.plain.map((user) => user.sub),
      Math.ceil(rate('POST /bc-authorize (no push') * seconds * 1.5) + 500,
      `profileplain${Date.now().toString(36)}`,
    ).items,
    expect: { status: 200 },
  });

  if (leftover.decisions.length > 0) {
    await profile('POST /api/device/requests/{id}/decision', {
      name: 'profile-decision',
      method: 'POST',
      path: '/api/device/requests/x/decision',
      headers: { 'content-type': 'application/json', origin: server.publicUrl },
      items: leftover.decisions,
      expect: { status: 200 },
    });
  }

  await profile('GET /healthz', { name: 'profile-healthz', method: 'GET', path: '/healthz', headers: {}, expect: { status: 200 } });

  await profile('POST /token (pending)', {
    name: 'profile-token-pending',
    method: 'POST',
    path: '/token',
    headers: { authorization: actors.client.authorization, 'content-type': FORM },
    items: leftover.pending.map((request) => ({ body: tokenBody(request.id) })),
    cycle: true,
    expect: { status: 400, error: 'authorization_pending' },
  });
  return summaries;
}
