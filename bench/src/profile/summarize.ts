import { readFileSync } from 'node:fs';

/** A V8 CPU profile (`.cpuprofile`, the format `node --cpu-prof` writes). */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  name: string;
  /** Share of the busy samples (idle excluded), percent. */
  percent: number;
}

export interface ProfileSummary {
  scenario: string;
  file: string;
  /** Samples taken while the main thread was busy. */
  busySamples: number;
  /** Share of all samples the main thread was idle, percent. */
  idlePercent: number;
  /** Where the time was spent, by library or server folder (self time). */
  byArea: ProfileLine[];
  /** Functions by self time. */
  topSelf: ProfileLine[];
  /** Countersign's own functions by inclusive time (on the stack). */
  topInclusive: ProfileLine[];
}

/** `…/node_modules/.pnpm/jose@6.2.18/node_modules/jose/dist/…` → `jose`; `…/server/src/ciba/x.ts` → `server/ciba`. */
function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const own = /\/(server|shared|bench)\/src\/([^/]+)/.exec(url);
  if (own) return `${own[1]}/${own[2]!.replace(/\.ts$/, '')}`;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url.split('/').slice(-2).join('/');
}

function frameName(frame: { functionName: string; url: string; lineNumber: number }): string {
  const file = frame.url
    ? frame.url
        .replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '')
        .replace(/^.*\/(server|shared)\/src\//, '$1/')
        .replace(/^file:\/\//, '')
    : '';
  return `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
}

/** Reads a profile and answers where its busy time went. */
export function summarizeProfile(scenario: string, file: string, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  let idle = 0;
  let busy = 0;
  const self = new Map<string, number>();
  const area = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const id of profile.samples) {
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    if (name === '(idle)') {
      idle++;
      continue;
    }
    busy++;
    const key = frameName(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + 1);
    const where = areaOf(node.callFrame.url, name);
    area.set(where, (area.get(where) ?? 0) + 1);
    // Each Countersign function once per sample, however deep it recurs.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!/\/(server|shared)\/src\//.test(frame.url)) continue;
      const fn = frameName(frame);
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + 1);
    }
  }
  const lines = (counts: Map<string, number>) =>
    [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, count]) => ({ name, percent: Math.round((count / Math.max(1, busy)) * 1000) / 10 }));
  return {
    scenario,
    file,
    busySamples: busy,
    idlePercent: Math.round((idle / Math.max(1, idle + busy)) * 1000) / 10,
    byArea: lines(area),
    topSelf: lines(self),
    topInclusive: lines(inclusive),
  };
}
