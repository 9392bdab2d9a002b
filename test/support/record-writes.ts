import type { Store } from '@countersign/server';
import type { Target } from './key-state.ts';
import { WATCH } from './store-watch-table.ts';

/**
 * Records, until `stop()`, every write {@link WATCH} says a call makes, as `"<operation> <key>"` in
 * call order: for a test that asserts which writes a call made at all, not what they changed
 * (a peek at a rate limit, which writes nothing, is not recorded).
 */
export function recordWrites(store: Store): { writes: string[]; stop(): void } {
  const writes: string[] = [];
  const target = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const restore: (() => void)[] = [];
  for (const [name, how] of Object.entries(WATCH)) {
    if (typeof how === 'string') continue;
    const spec = how as { writes: (...args: unknown[]) => Target[] };
    const own = Object.hasOwn(store, name) ? target[name] : undefined;
    const original = target[name]!;
    target[name] = (...args: unknown[]) => {
      for (const t of spec.writes(...args)) writes.push(`${name} ${t.key}`);
      return original.apply(store, args);
    };
    restore.push(() => {
      if (own === undefined) delete target[name];
      else target[name] = own;
    });
  }
  return {
    writes,
    stop() {
      for (const undo of restore) undo();
    },
  };
}
