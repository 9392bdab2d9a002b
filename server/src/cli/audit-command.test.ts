import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { ManualClock } from '../runtime/index.ts';
import { MemoryStore } from '../store/index.ts';
import { runAuditCommand } from './audit-command.ts';

async function world(events = 3) {
  const clock = new ManualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  const audit = createAuditLog(store, clock, 3600);
  for (let n = 0; n < events; n++) await audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent', detail: { n } });
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string[]>();
  let closed = 0;
  const run = (...argv: string[]) =>
    runAuditCommand(argv, {
      openAudit: async () => ({ audit, close: async () => void (closed += 1) }),
      readLines: async function* (path) {
        yield* files.get(path) ?? [];
      },
      out: (line) => void out.push(line),
      err: (line) => void err.push(line),
    });
  return { run, out, err, files, closed: () => closed };
}

describe('runAuditCommand', () => {
  it('exports JSON lines and verifies them, in the store and as a file, and closes the store', async () => {
    const w = await world();
    expect(await w.run('export', '--tenant', 'default')).toBe(0);
    const lines = w.out.splice(0);
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([0, 1, 2]);
    expect(await w.run('verify', '--tenant', 'default')).toBe(0);
    expect(w.out.pop()).toMatch(/^ok: tenant default, 3 events, the chain holds; head 2:[A-Za-z0-9_-]{43} \(stream id \d+-\d+\)$/);
    w.files.set('cut.jsonl', [lines[0]!, lines[2]!]);
    expect(await w.run('verify', '--tenant', 'default', '--file', 'cut.jsonl', '--json')).toBe(1);
    expect(JSON.parse(w.out.pop()!)).toMatchObject({ ok: false, broken: { reason: 'seq_mismatch', position: 1 } });
    expect(w.closed()).toBe(2);
    // A tenant with no chain (a typo) is not silently 'ok, 0 events'.
    expect(await w.run('verify', '--tenant', 'nosuch')).toBe(0);
    expect(w.out.pop()).toBe('ok: tenant nosuch has no events (a new tenant, or a mistyped name?)');
  });

  it('holds the chain to an anchor', async () => {
    const w = await world();
    await w.run('verify', '--tenant', 'default', '--json');
    const { head } = JSON.parse(w.out.pop()!);
    expect(await w.run('verify', '--tenant', 'default', '--anchor', `${head.seq}:${head.hash}`)).toBe(0);
    expect(await w.run('verify', '--tenant', 'default', '--anchor', `5:${head.hash}`)).toBe(1);
    expect(w.out.pop()).toMatch(/anchor_mismatch: the chain ends before the recorded head \(seq 5\)/);
  });

  it.each([[[]], [['verify']], [['verify', '--tenant', 'NOPE']], [['delete', '--tenant', 'default']], [['verify', '--tenant', 'default', '--anchor', 'x']], [['export', '--tenant', 'default', '--json']], [['verify', '--bogus']]])('answers 2 with the usage to %j', async (argv) => {
    const w = await world(0);
    expect(await w.run(...argv)).toBe(2);
    expect(w.err.join('\n')).toContain('usage:');
    expect(w.closed()).toBe(0);
  });
});
