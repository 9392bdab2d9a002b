import { ManualClock } from '../runtime/index.ts';
import { MemoryStore, type Store } from '../store/index.ts';
import { createAuditLog } from './audit-log.ts';

// What the audit-log-*.test.ts files share: an audit log on a memory store and a manual clock,
// a store that counts its calls and can fail one, and an export read to its end. Test code only.

/** The request the events of these tests are about. */
export const ID = 'req_0123456789abcdef';

/** An audit log on a memory store and a manual clock, retention 3600 s. */
export function world() {
  const clock = new ManualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  return { clock, store, audit: createAuditLog(store, clock, 3600) };
}

/** The store, with every call counted by method, batch sizes of `streamAppendManyAfter`, and a way to fail a method's next call. */
export function counting(store: Store) {
  const calls: Record<string, number> = {};
  const sizes: number[] = [];
  const failing = new Set<string>();
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        if (name === 'streamAppendManyAfter') sizes.push((args[2] as unknown[]).length);
        if (failing.delete(name)) return Promise.reject(new Error(`${name} failed`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { counted, calls, sizes, failNext: (name: string) => void failing.add(name) };
}

/** Every line of `iterable`, read to its end. */
export async function lines(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of iterable) out.push(line);
  return out;
}
