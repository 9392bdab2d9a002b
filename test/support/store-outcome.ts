import { StoreUnavailableError } from '../../server/src/store/index.ts';

// What test/redis-failures-slot-map.test.ts and test/redis-failures-server.test.ts share: a store
// call's outcome, where the store's 503 is a value and any other error fails the test.

/** A value, or the store's 503, or (the failure these tests catch) anything else. */
export async function outcome<T>(promise: Promise<T>): Promise<T | 'unavailable'> {
  return promise.then(
    (value) => value,
    (error: unknown) => {
      if (error instanceof StoreUnavailableError) return 'unavailable';
      throw error;
    },
  );
}
