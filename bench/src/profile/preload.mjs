// Loaded with `node --import` into the Countersign server and the peer, both started by the
// benchmark. It changes nothing in the process it is loaded into; it only answers the benchmark
// over the IPC channel the benchmark opened:
//   {cmd: 'cpu'}                    -> {cpu: process.cpuUsage(), memory: process.memoryUsage().rss}
//   {cmd: 'profile-start', interval} -> starts the V8 CPU profiler (the one `node --cpu-prof` uses)
//   {cmd: 'profile-stop', file}      -> stops it and writes the .cpuprofile to `file`
//   {cmd: 'stalls'}                  -> what held up the event loop since the last 'stalls':
//                                       {loop: {maxMs, p99Ms}, gc: {count, totalMs, maxMs, major}}
//                                       (perf_hooks' event loop delay histogram, 1 ms resolution, and
//                                       the 'gc' performance entries); then starts counting afresh
// The profiler is driven per scenario this way, so each profile holds one endpoint's load only.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

if (process.send) {
  let session = null;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gc = { count: 0, totalMs: 0, maxMs: 0, major: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', async (message) => {
    if (!message || typeof message !== 'object' || typeof message.cmd !== 'string') return;
    const reply = (body) => process.send({ id: message.id, ...body });
    try {
      switch (message.cmd) {
        case 'cpu':
          reply({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
          break;
        case 'stalls': {
          const ms = (ns) => Math.round(ns / 1e4) / 100;
          reply({ loop: { maxMs: ms(loop.max), p99Ms: ms(loop.percentile(99)) }, gc: { ...gc, totalMs: Math.round(gc.totalMs * 100) / 100, maxMs: Math.round(gc.maxMs * 100) / 100 } });
          loop.reset();
          gc = { count: 0, totalMs: 0, maxMs: 0, major: 0 };
          break;
        }
        case 'profile-start':
          session = new Session();
          session.connect();
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: message.interval ?? 1000 });
          await session.post('Profiler.start');
          reply({ ok: true });
          break;
        case 'profile-stop': {
          const { profile } = await session.post('Profiler.stop');
          session.disconnect();
          session = null;
          await writeFile(message.file, JSON.stringify(profile));
          reply({ ok: true });
          break;
        }
        default:
          reply({ error: `unknown command ${message.cmd}` });
      }
    } catch (error) {
      reply({ error: String(error) });
    }
  });
  // The IPC channel must not keep a server alive that is asked to stop.
  process.channel?.unref();
}
