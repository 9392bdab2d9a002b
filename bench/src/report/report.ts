import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { benchConfig, targets } from '../config.ts';
import type { Measured } from '../context.ts';
import { REPO_ROOT } from '../infra/child.ts';
import type { AuditChainResult } from '../measure/audit-chain.ts';
import type { MemoryResult } from '../measure/memory.ts';
import type { TenantSpreadResult } from '../measure/tenant-spread.ts';
import type { PushSendResult } from '../measure/push-send.ts';
import type { SweepPoint } from '../measure/sweep.ts';
import type { WindowPoint } from '../measure/window-growth.ts';
import type { ProfileSummary } from '../profile/summarize.ts';
import { benchTargets } from './targets.ts';
import { markdown } from './markdown.ts';

/** One row of the results: a step of one system, with its ratios. */
export interface Row extends Measured {
  key: string;
  /** Requests/s over Countersign's `GET /healthz` requests/s. */
  ratioToFloor: number;
  /** Requests/s over the peer's same step, when the peer has one. */
  ratioToPeer: number | null;
  peerKey: string | null;
  /** Requests/s over the same step of the peer with its state in Redis, when it has one. */
  ratioToPeerRedis?: number | null;
}

export interface TargetResult {
  name: string;
  goal: string;
  value: string;
  met: boolean;
}

export interface Report {
  meta: {
    startedAt: string;
    finishedAt: string;
    machine: { cpu: string; cores: number; memoryGiB: number; os: string };
    node: string;
    redis: string;
    commit: string;
    /** The server's or shared's code changed on disk while the benchmark ran (the server kept what it loaded). */
    codeChangedDuringRun: boolean;
    connections: number;
    durationSeconds: number;
    warmupSeconds: number;
  };
  rows: Row[];
  memory: MemoryResult;
  sweep: SweepPoint[];
  windows: WindowPoint[] | null;
  auditChain: AuditChainResult;
  tenantSpread: TenantSpreadResult;
  pushSend: PushSendResult;
  targets: TargetResult[];
  profiles: ProfileSummary[];
}

/** Which peer row each Countersign row compares with. */
const PEER_OF: Record<string, string> = {
  healthz: 'healthz',
  bcAuthorizePush: 'bcAuthorize',
  bcAuthorize: 'bcAuthorize',
  tokenPending: 'tokenPending',
  tokenIssue: 'tokenIssue',
};

/**
 * The commit the run measured, and a fingerprint of the uncommitted changes to the server and
 * shared code: the server loads its code when it starts, so the state at the start is what ran.
 */
export function codeState(): { commit: string; fingerprint: string } {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const diff = execFileSync('git', ['diff', 'HEAD', '--', 'server', 'shared'], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const dirty = diff.trim() !== '';
    return { commit: dirty ? `${head} (with uncommitted changes to the server)` : head, fingerprint: `${head}:${createHash('sha256').update(diff).digest('hex')}` };
  } catch {
    return { commit: 'unknown', fingerprint: 'unknown' };
  }
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export function buildReport(input: {
  startedAt: Date;
  countersign: Record<string, Measured>;
  peer: Record<string, Measured>;
  /** The peer's steps with its state in Redis. */
  peerRedis: Record<string, Measured>;
  memory: MemoryResult;
  sweep: SweepPoint[];
  windows: WindowPoint[] | null;
  auditChain: AuditChainResult;
  tenantSpread: TenantSpreadResult;
  pushSend: PushSendResult;
  redisVersion: string;
  /** {@link codeState} when the server started, and now. */
  code: { atStart: { commit: string; fingerprint: string }; atEnd: { commit: string; fingerprint: string } };
}): Report {
  const floor = input.countersign.healthz!.rps;
  const rows: Row[] = [];
  for (const [key, measured] of Object.entries(input.countersign)) {
    const peerKey = PEER_OF[key] ?? null;
    const peer = peerKey ? input.peer[peerKey] : undefined;
    const peerRedis = peerKey ? input.peerRedis[peerKey] : undefined;
    rows.push({
      ...measured,
      key,
      peerKey: peer || peerRedis ? peerKey : null,
      ratioToFloor: round2(measured.rps / floor),
      ratioToPeer: peer ? round2(measured.rps / peer.rps) : null,
      ratioToPeerRedis: peerRedis ? round2(measured.rps / peerRedis.rps) : null,
    });
  }
  for (const [key, measured] of Object.entries(input.peer)) {
    rows.push({ ...measured, key: `peer.${key}`, peerKey: null, ratioToFloor: round2(measured.rps / floor), ratioToPeer: null });
  }
  for (const [key, measured] of Object.entries(input.peerRedis)) {
    rows.push({ ...measured, key: `peerRedis.${key}`, peerKey: null, ratioToFloor: round2(measured.rps / floor), ratioToPeer: null });
  }
  const cpu = cpus();
  return {
    meta: {
      startedAt: input.startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpu: cpu[0]?.model ?? 'unknown', cores: cpu.length, memoryGiB: Math.round(totalmem() / 2 ** 30), os: `${osType()} ${release()}` },
      node: process.version,
      redis: input.redisVersion,
      commit: input.code.atStart.commit,
      codeChangedDuringRun: input.code.atStart.fingerprint !== input.code.atEnd.fingerprint,
      connections: benchConfig.connections,
      durationSeconds: benchConfig.durationSeconds,
      warmupSeconds: benchConfig.warmupSeconds,
    },
    rows,
    memory: input.memory,
    sweep: input.sweep,
    windows: input.windows,
    auditChain: input.auditChain,
    tenantSpread: input.tenantSpread,
    pushSend: input.pushSend,
    targets: benchTargets(rows, input.memory, input.sweep),
    profiles: [],
  };
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/**
 * Writes `bench/results/latest.json` and the table into docs/performance.md. One results file:
 * the runs before it are in git's history of that file, not beside it.
 */
export function writeReport(report: Report, resultsDir: string): { latest: string; docs: string; table: string } {
  const latest = join(resultsDir, 'latest.json');
  writeFileSync(latest, JSON.stringify(report, null, 2));
  const table = markdown(report);
  const docs = join(REPO_ROOT, 'docs', 'performance.md');
  const block = `${START}\n${table}\n${END}`;
  let document = existsSync(docs) ? readFileSync(docs, 'utf8') : '# Performance\n\nWritten by `pnpm bench`.\n\n## Latest results\n\n';
  if (document.includes(START) && document.includes(END)) {
    document = document.slice(0, document.indexOf(START)) + block + document.slice(document.indexOf(END) + END.length);
  } else {
    document = `${document.trimEnd()}\n\n${block}\n`;
  }
  writeFileSync(docs, document);
  return { latest, docs, table };
}
