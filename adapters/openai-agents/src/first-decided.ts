/** A wait that ended with `approval_pending` (timed out, or the strategy `'none'`) did not decide anything. */
type Undecided = { status: 'approval_pending' };

/**
 * The first of `waits` to settle with a decision, skipping those that end undecided; undefined
 * when every one ends undecided. Rejects as soon as one rejects.
 *
 * Why not `Promise.race`: with two calls waiting, one timing out must not hide the other's
 * approval that comes a moment later.
 */
export function firstDecided<T extends { authorization: { status: string } }>(waits: readonly Promise<T>[]): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    let undecided = 0;
    if (waits.length === 0) resolve(undefined);
    for (const wait of waits) {
      wait.then((settled) => {
        if ((settled.authorization as Undecided | { status: string }).status !== 'approval_pending') resolve(settled);
        else if (++undecided === waits.length) resolve(undefined);
      }, reject);
    }
  });
}
