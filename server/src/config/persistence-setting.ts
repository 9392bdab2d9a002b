/**
 * What the operator said about the Redis's persistence (`REDIS_PERSISTENCE`):
 * - `required` (the default): the server checks `CONFIG GET appendonly` and `CONFIG GET save` on
 *   every master and, in production, refuses to start when one of them keeps nothing on disk, or
 *   when it cannot tell (a managed Redis that refuses `CONFIG`).
 * - `managed`: the provider keeps the data (a managed Redis whose `CONFIG` is disabled). A master
 *   that does answer `CONFIG` and says it keeps nothing still stops the start.
 * - `none-accepted`: losing everything on a Redis restart is accepted (a demo, a throw-away
 *   staging deployment); the server starts with a warning.
 */
export type PersistenceSetting = 'required' | 'managed' | 'none-accepted';

/** The accepted values of `REDIS_PERSISTENCE`, in the order the documentation lists them. */
export const PERSISTENCE_SETTINGS = ['required', 'managed', 'none-accepted'] as const satisfies readonly PersistenceSetting[];
