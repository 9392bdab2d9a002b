import type { ClientRecord } from '../clients/index.ts';
import { consoleClientKey, createClient, findClient } from '../clients/index.ts';
import type { Deps } from '../deps.ts';

/** The name people see on a test request: they know at once it came from the operator's console. */
export const CONSOLE_CLIENT_NAME = 'Countersign console (test)';

/**
 * The tenant's built-in console client: a poll client named {@link CONSOLE_CLIENT_NAME} that
 * only the console's test requests use. It is created on first use and its id kept in the store
 * (`config:{console-client:<tenant>}`); its secret is thrown away, so nobody can poll, redeem or
 * ask as it from outside: test requests can be decided and watched, never executed.
 *
 * Two first uses at once both create a client; the first id written wins (SET NX) and the other
 * record stays unused.
 */
export async function consoleClient(deps: Pick<Deps, 'store' | 'clock'>, tenant: string): Promise<ClientRecord> {
  const key = consoleClientKey(tenant);
  const knownId = await deps.store.get(key);
  const known = knownId ? await findClient(deps.store, knownId) : null;
  if (known) return known;
  const { record } = await createClient(deps.store, { name: CONSOLE_CLIENT_NAME, tenant, token_delivery_mode: 'poll' }, deps.clock.now());
  if (knownId === null && !(await deps.store.set(key, record.client_id, { onlyIfAbsent: true }))) {
    const winner = await findClient(deps.store, (await deps.store.get(key)) ?? '');
    if (winner) return winner;
  }
  // Either this call wrote the id, or the stored id pointed at a client that no longer exists.
  await deps.store.set(key, record.client_id);
  return record;
}
