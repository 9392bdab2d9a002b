/**
 * The load process: `node --import tsx bench/src/load/worker.ts <spec.json>`. It runs apart from
 * the servers and from the orchestrator, so its CPU is not theirs. Closed-loop runs use
 * autocannon; fixed-rate runs use a paced open-loop sender (see `LoadSpec.mode`). Latency is
 * recorded here per request with sub-millisecond resolution (autocannon's own histogram keeps
 * whole milliseconds).
 */
import autocannon from 'autocannon';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { monotonicMs } from '../infra/clock.ts';
import { summarise } from './latency.ts';
import type { AnswerStamp, LoadItem, LoadResult, LoadSpec } from './spec.ts';

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadSpec;

/** What one answer was: expected or not, and its `status error` label when not. */
interface Outcome {
  ok: boolean;
  label: string;
  /** The item's position in `spec.items` (-1 without items). */
  index: number;
}

const times: number[] = [];
const latencies: number[] = [];
const oks: boolean[] = [];
const unexpectedLabels: string[] = [];
const captured: string[] = [];
/** With `spec.stamp`: each expected answer's item, its time in the schedule (`at`), and when it arrived. */
const stamps: (AnswerStamp & { at: number })[] = [];
let socketErrors = 0;

/** `index` is the item's position in `spec.items` (-1 without items); captures are `index<TAB>value`. */
function classify(status: number, body: string, index: number): Outcome {
  let parsed: Record<string, unknown> | null = null;
  const json = () => {
    if (parsed) return parsed;
    try {
      parsed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      parsed = {};
    }
    return parsed;
  };
  const error = status >= 400 ? String(json().error ?? '') : '';
  const ok = status === spec.expect.status && (spec.expect.error === undefined || error === spec.expect.error);
  if (ok && spec.capture) {
    const value = json()[spec.capture];
    if (typeof value === 'string') captured.push(`${index}\t${value}`);
  }
  return { ok, label: `${status}${error ? ` ${error}` : ''}`, index };
}

function record(at: number, latencyMs: number, outcome: Outcome): void {
  times.push(at);
  latencies.push(latencyMs);
  oks.push(outcome.ok);
  unexpectedLabels.push(outcome.ok ? '' : outcome.label);
  if (spec.stamp && outcome.ok) stamps.push({ index: outcome.index, at, answeredAt: monotonicMs() });
}

let itemIndex = 0;
let exhaustedAt: number | null = null;
function nextItem(): { item: LoadItem; index: number } | null {
  const items = spec.items!;
  if (itemIndex >= items.length) {
    if (!spec.cycle || items.length === 0) return null;
    itemIndex = 0;
  }
  const index = itemIndex++;
  return { item: items[index]!, index };
}

function finish(start: number, windowStart: number, windowEnd: number, cpuStart: NodeJS.CpuUsage): void {
  const window: number[] = [];
  const unexpected: Record<string, number> = {};
  let windowResponses = 0;
  for (let i = 0; i < times.length; i++) {
    if (times[i]! < windowStart || times[i]! > windowEnd) continue;
    windowResponses++;
    if (oks[i]) window.push(latencies[i]!);
    else unexpected[unexpectedLabels[i]!] = (unexpected[unexpectedLabels[i]!] ?? 0) + 1;
  }
  const windowSeconds = (windowEnd - windowStart) / 1000;
  const wall = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const result: LoadResult = {
    name: spec.name,
    mode: spec.mode,
    connections: spec.connections,
    ...(spec.rate ? { rate: spec.rate } : {}),
    windowSeconds: Math.round(windowSeconds * 1000) / 1000,
    exhausted: exhaustedAt !== null,
    totalResponses: times.length,
    windowResponses,
    ok: window.length,
    rps: Math.round((window.length / windowSeconds) * 10) / 10,
    latency: summarise(window),
    unexpected,
    socketErrors,
    captured,
    ...(spec.stamp ? { answers: stamps.filter(({ at }) => at >= windowStart && at <= windowEnd).map(({ index, answeredAt }) => ({ index, answeredAt })) } : {}),
    loadCpuShare: Math.round(((cpu.user + cpu.system) / 1e6 / wall) * 100) / 100,
    wallSeconds: Math.round(wall * 100) / 100,
  };
  writeFileSync(spec.resultFile, JSON.stringify(result));
}

/** Closed loop: autocannon with `connections` requests always in flight. */
function runClosed(): void {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const windowStart = start + spec.warmupSeconds * 1000;
  let windowEnd = windowStart + spec.durationSeconds * 1000;
  // Set by onResponse and read by the 'response' event that autocannon emits right after it, in
  // the same synchronous step, for the same answer.
  let lastOutcome: Outcome | null = null;
  let filler = false;

  const base = { method: spec.method, path: spec.path, headers: spec.headers, ...(spec.body === undefined ? {} : { body: spec.body }) };
  const requestSpec: Record<string, unknown> = {
    ...base,
    onResponse(status: number, body: string, context: { filler?: boolean; index?: number }) {
      filler = context.filler === true;
      lastOutcome = classify(status, body, context.index ?? -1);
    },
  };
  // Assigned below; setupRequest already runs while autocannon builds its clients.
  let instance: { stop(): void; on(event: string, listener: (...args: any[]) => void): void } | undefined;
  if (spec.items) {
    requestSpec.setupRequest = (request: Record<string, unknown>, context: { filler?: boolean; index?: number }) => {
      const next = exhaustedAt === null ? nextItem() : null;
      if (!next) {
        if (exhaustedAt === null) {
          exhaustedAt = performance.now();
          windowEnd = Math.min(windowEnd, exhaustedAt);
          setImmediate(() => instance!.stop());
        }
        context.filler = true;
        return { ...request, method: 'GET', path: spec.fillerPath ?? '/healthz', body: undefined, headers: {} };
      }
      context.filler = false;
      context.index = next.index;
      // A fresh object: autocannon writes Content-Length into the headers it is given.
      const headers = { ...spec.headers, ...next.item.headers };
      return { ...request, headers, path: next.item.path ?? spec.path, body: next.item.body ?? spec.body };
    };
  }

  instance = autocannon(
    {
      url: spec.target,
      connections: spec.connections,
      pipelining: 1,
      duration: spec.warmupSeconds + spec.durationSeconds + 5,
      sampleInt: 100,
      timeout: 30,
      requests: [requestSpec],
    },
    () => finish(start, windowStart, windowEnd, cpuStart),
  );
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    const outcome = lastOutcome ?? { ok: status === spec.expect.status, label: String(status), index: -1 };
    lastOutcome = null;
    if (filler) {
      filler = false;
      return;
    }
    record(performance.now(), responseTime, outcome);
  });
  instance.on('reqError', () => {
    socketErrors++;
  });
  setTimeout(() => instance!.stop(), (spec.warmupSeconds + spec.durationSeconds) * 1000).unref();
}

/**
 * Open loop at a fixed rate: request i is due at start + i / rate, whether or not earlier ones
 * have been answered, and its latency counts from when it was due (so a stall shows up in the
 * latency instead of silently lowering the rate: no coordinated omission).
 */
function runPaced(): void {
  const rate = spec.rate!;
  const url = new URL(spec.target);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const windowStart = start + spec.warmupSeconds * 1000;
  let windowEnd = windowStart + spec.durationSeconds * 1000;
  const stopAt = windowEnd;
  let sent = 0;
  let inFlight = 0;
  let stopped = false;

  const fire = (due: number) => {
    const next = spec.items ? nextItem() : { item: {} as LoadItem, index: -1 };
    if (!next) {
      exhaustedAt = due;
      windowEnd = Math.min(windowEnd, due);
      stopped = true;
      return;
    }
    const { item, index } = next;
    const body = item.body ?? spec.body;
    const headers: Record<string, string | number> = { ...spec.headers, ...item.headers };
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    inFlight++;
    const req = httpRequest({ host: url.hostname, port: url.port, method: spec.method, path: item.path ?? spec.path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const now = performance.now();
        // Recorded at the time it was due, so the window is the window of the schedule.
        record(due, now - due, classify(res.statusCode ?? 0, text, index));
        inFlight--;
      });
    });
    req.on('error', () => {
      socketErrors++;
      inFlight--;
    });
    req.end(body);
  };

  const timer = setInterval(() => {
    const now = performance.now();
    while (!stopped) {
      const due = start + (sent * 1000) / rate;
      if (due > now) break;
      if (due >= stopAt) {
        stopped = true;
        break;
      }
      fire(due);
      sent++;
    }
    if (stopped) {
      clearInterval(timer);
      const drain = setInterval(() => {
        if (inFlight > 0 && performance.now() - stopAt < 30_000) return;
        clearInterval(drain);
        agent.destroy();
        finish(start, windowStart, windowEnd, cpuStart);
      }, 5);
    }
  }, 1);
}

if (spec.mode === 'paced') runPaced();
else runClosed();
