import type { Report } from './report.ts';

/** Numbers as a reader scans them: thousands separated, small ones as measured. */
const fmt = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en-US') : String(value));
/** Milliseconds with two decimals below 10, one above. */
const ms = (value: number) => (value >= 10 ? value.toFixed(1) : value.toFixed(2));

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The Markdown the benchmark writes into docs/performance.md, between its markers. */
export function markdown(report: Report): string {
  const { meta } = report;
  const lines: string[] = [];
  lines.push(
    `Run ${meta.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${meta.machine.cores} × ${meta.machine.cpu}, ${meta.machine.memoryGiB} GiB, ${meta.machine.os}; Node ${meta.node}, Redis ${meta.redis}; commit ${meta.commit}.`,
    ...(meta.codeChangedDuringRun ? ['The server or shared code changed on disk during this run; the server ran the code of the commit above, as it was when it started.'] : []),
    `Every step: ${meta.connections} connections (closed loop, autocannon in its own process) for ${meta.durationSeconds} s after ${meta.warmupSeconds} s of warm-up; server, peer, Redis and load share the ${meta.machine.cores} cores.`,
    '',
    '| step | Countersign req/s | p50 ms | p99 ms | × floor | peer req/s | peer p50 / p99 ms | × peer | peer on Redis req/s | × peer on Redis | server CPU µs/req | Redis CPU µs/req | Redis reads/req |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const row of report.rows.filter((candidate) => candidate.system === 'countersign')) {
    const peer = row.peerKey ? report.rows.find((candidate) => candidate.key === `peer.${row.peerKey}`) : undefined;
    const peerRedis = row.peerKey ? report.rows.find((candidate) => candidate.key === `peerRedis.${row.peerKey}`) : undefined;
    lines.push(
      `| ${row.label} | ${fmt(row.rps)} | ${ms(row.latency.p50)} | ${ms(row.latency.p99)} | ${row.mode === 'paced' ? '(paced)' : row.ratioToFloor} | ${peer ? fmt(peer.rps) : '—'} | ${peer ? `${ms(peer.latency.p50)} / ${ms(peer.latency.p99)}` : '—'} | ${row.ratioToPeer ?? '—'} | ${peerRedis ? fmt(peerRedis.rps) : '—'} | ${row.ratioToPeerRedis ?? '—'} | ${fmt(row.serverCpuMicrosPerRequest)} | ${row.redisCpuMicrosPerRequest ?? '—'} | ${row.redisRoundTripsPerRequest ?? '—'} |`,
    );
  }
  const onRedis = report.rows.filter((row) => row.system === 'peer-redis');
  if (onRedis.length) {
    lines.push(
      '',
      `The peer on Redis (node-oidc-provider with a Redis adapter shaped like its example one, on a Redis of its own), per step: ${onRedis
        .map((row) => `${row.label} ${ms(row.latency.p50)} / ${ms(row.latency.p99)} ms p50 / p99, ${fmt(row.serverCpuMicrosPerRequest)} µs server CPU and ${row.redisCpuMicrosPerRequest ?? '—'} µs Redis CPU per request, ${row.redisRoundTripsPerRequest ?? '—'} Redis reads per request`)
        .join('; ')}.`,
    );
  }
  const peerFloor = report.rows.find((row) => row.key === 'peer.healthz');
  if (peerFloor) lines.push('', `The peer's own floor (\`GET /healthz\` through Koa and the provider's middleware): ${fmt(peerFloor.rps)} req/s, ${peerFloor.ratioToFloor} × Countersign's.`);
  const notes = report.rows.filter((row) => row.notes.length);
  if (notes.length) {
    lines.push('', 'Notes from the run:', '');
    for (const row of notes) lines.push(`- ${row.system === 'peer' ? 'peer ' : row.system === 'peer-redis' ? 'peer on Redis ' : ''}${row.label}: ${row.notes.join('; ')}.`);
  }

  for (const row of report.rows.filter((candidate) => candidate.delivery)) {
    const { delivery } = row;
    const latency = delivery!.latency;
    lines.push('', `**From ${delivery!.from} to ${delivery!.to}** (${row.label}, the same monotonic clock at both ends): p50 ${ms(latency.p50)} ms, p90 ${ms(latency.p90)} ms, p99 ${ms(latency.p99)} ms, max ${ms(latency.max)} ms; ${fmt(delivery!.arrived)} of ${fmt(delivery!.expected)} arrived.`);
  }

  lines.push('', '**Targets**', '', '| target | goal | measured | |', '|---|---|---|---|');
  for (const target of report.targets) lines.push(`| ${target.name} | ${target.goal} | ${target.value} | ${target.met ? 'met' : '**missed**'} |`);

  const { memory } = report;
  lines.push(
    '',
    `**Redis memory per pending request**: ${memory.bytesPerPendingRequest} B (used_memory ${fmt(memory.usedMemoryBefore)} → ${fmt(memory.usedMemoryAfter)} B for ${fmt(memory.requests)} requests; ${memory.setup}). By kind of key (MEMORY USAGE, bytes per request):`,
    '',
    '| key | keys added | B per request |',
    '|---|--:|--:|',
    ...memory.byKind.slice(0, 10).map((kind) => `| \`${kind.kind}\` | ${fmt(kind.keys)} | ${kind.bytesPerRequest} |`),
  );
  if (memory.requestHash) {
    const hash = memory.requestHash;
    lines.push('', `One request's hash: ${hash.fields} fields, ${fmt(hash.payloadBytes)} B of names and values (the longest value ${hash.longestValue} B), stored as a ${hash.encoding} in ${fmt(hash.bytes)} B; the same fields as a listpack take ${fmt(hash.listpackBytes)} B.`);
  }

  lines.push('', '**Expiry sweep** (one `sweep()`, median of 3), against live requests in the deadline index:', '', '| live requests | due | sweep ms | sweep ms, nothing due |', '|--:|--:|--:|--:|');
  for (const point of report.sweep) lines.push(`| ${fmt(point.live)} | ${point.due} | ${ms(point.sweepMs)} | ${ms(point.emptySweepMs)} |`);

  if (report.windows) {
    lines.push('', "**Velocity window growth**: one `/bc-authorize` (in-process, one after another) against the size of its client's velocity window (the shipped policy keeps an hour of requests):", '', '| entries in the window | ms per request | Redis CPU µs per request |', '|--:|--:|--:|');
    for (const point of report.windows) lines.push(`| ${fmt(point.entries)} | ${ms(point.meanMs)} | ${fmt(point.redisMicrosPerRequest)} |`);
  }

  const chain = report.auditChain;
  lines.push(
    '',
    `**Audit trail under concurrency** (${fmt(chain.events)} events, ${chain.concurrency} at a time, in-process): ${fmt(chain.oneTenantPerSecond)} events/s into one tenant's chain, ${fmt(chain.eightTenantsPerSecond)}/s spread over 8 tenants; plain Redis stream appends (XADD) of the same lines: ${fmt(chain.plainAppendsPerSecond)}/s.`,
    `The same ${fmt(report.tenantSpread.requests)} \`/bc-authorize\` requests, ${report.tenantSpread.concurrency} at a time, in-process: ${fmt(report.tenantSpread.oneTenantPerSecond)}/s in one tenant, ${fmt(report.tenantSpread.eightTenantsPerSecond)}/s spread over 8 tenants (${round2(report.tenantSpread.eightTenantsPerSecond / report.tenantSpread.oneTenantPerSecond)} ×).`,
  );

  const push = report.pushSend;
  lines.push('', `**One Web Push send** with the server's sender to the local HTTPS receiver, one after another: ${ms(push.meanMs)} ms mean, ${ms(push.p99Ms)} ms p99, ${fmt(push.cpuMicrosPerSend)} µs CPU per send (sender and receiver, one process; ${push.ok}/${push.sends} accepted).`);

  if (report.profiles.length) {
    lines.push('', '**Profiles** (V8 CPU profiler on the server, each scenario alone; share of busy samples):', '');
    for (const profile of report.profiles) {
      lines.push(
        `- ${profile.scenario} (${fmt(profile.busySamples)} busy samples, idle ${profile.idlePercent}%): by area ${profile.byArea
          .slice(0, 8)
          .map((line) => `${line.name} ${line.percent}%`)
          .join(', ')}.`,
        `  Own code, inclusive: ${profile.topInclusive
          .slice(0, 8)
          .map((line) => `\`${line.name.replace(/ .*/, '')}\` ${line.percent}%`)
          .join(', ')}.`,
        `  Top self: ${profile.topSelf
          .slice(0, 6)
          .map((line) => `\`${line.name}\` ${line.percent}%`)
          .join(', ')}.`,
      );
    }
  }
  return lines.join('\n');
}
