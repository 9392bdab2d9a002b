import { MemoryStore } from './memory-store.ts';
import { describeStoreContract } from './store.case.ts';

// An injected clock: TTL tests move it instead of waiting.
let now = Date.UTC(2026, 0, 1);

describeStoreContract('MemoryStore', async () => new MemoryStore({ now: () => now }), {
  elapse: async (ms) => {
    now += ms;
  },
});
