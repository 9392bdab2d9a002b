/** Runs `task` after every earlier task of the same key settled; see {@link createKeyedLock}. */
export type KeyedLock = <T>(key: string, task: () => Promise<T>) => Promise<T>;

/**
 * An in-process lock per key. The runner takes it per `auth_req_id` (the MCP gateway per call
 * key), so two resumes of one approval never race for its token, which the token endpoint issues
 * only once.
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<void>>();
  return function exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
    const run = (tails.get(key) ?? Promise.resolve()).then(task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
