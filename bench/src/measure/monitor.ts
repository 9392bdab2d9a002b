import { Redis } from 'ioredis';

/**
 * A key with its ids taken out, so that the commands of one code path group together: each part
 * between separators that holds a digit or is longer than 16 characters (an id, a subject, a time) becomes `*`.
 */
export function keyShape(key: string, prefix: string): string {
  const bare = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  return bare.replace(/[^:{}|/]+/g, (part) => (/\d/.test(part) || part.length > 16 ? '*' : part));
}

/**
 * Runs `work` under MONITOR on a connection of its own, and answers each command it caused as
 * `COMMAND key-shape`, a script's own commands as `COMMAND key-shape in <sha>` (the script that
 * ran them), with how many times it came, most frequent first. MONITOR shows the commands a Lua
 * script runs with a `lua` source, right after the EVALSHA that ran them.
 */
export async function monitorRequests(port: number, prefix: string, work: () => Promise<void>): Promise<[string, number][]> {
  const admin = new Redis({ port, host: '127.0.0.1' });
  const monitor = await admin.monitor();
  const counts = new Map<string, number>();
  let script = '';
  const ignored = new Set(['info', 'monitor', 'ping']);
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const command = (args[0] ?? '').toLowerCase();
    if (ignored.has(command)) return;
    const fromLua = source === 'lua';
    if (command === 'evalsha' || command === 'eval') script = command === 'evalsha' ? args[1]!.slice(0, 8) : 'eval';
    const keyAt = command === 'evalsha' || command === 'eval' ? 3 : 1;
    const key = args[keyAt] ? keyShape(args[keyAt], prefix) : '';
    const line = `${command.toUpperCase()} ${key}${fromLua ? ` in ${script}` : command === 'evalsha' ? ` (${script})` : ''}`;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  });
  try {
    await work();
    // MONITOR lines arrive after the replies: a round trip on the monitored Redis lets them in.
    await admin.ping();
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    monitor.disconnect();
    admin.disconnect();
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
