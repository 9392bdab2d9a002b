import { keys, type Store } from '../store/index.ts';

/**
 * Where the id of a tenant's built-in console client is kept (`config:{console-client:<tenant>}`):
 * the client the console's test requests are made by (`console/console-client.ts` creates it).
 */
export function consoleClientKey(tenant: string): string {
  return keys.config(`console-client:${tenant}`);
}

/**
 * The id of the tenant's console client, or null before the console has sent a test request.
 * Compared with a request's `client_id` to mark it as a test on the phone; the id, not the
 * client's name, so a client an operator happens to name alike is never taken for it.
 */
export function consoleClientId(store: Pick<Store, 'get'>, tenant: string): Promise<string | null> {
  return store.get(consoleClientKey(tenant));
}
