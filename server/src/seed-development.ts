import { createClient } from './clients/index.ts';
import type { Deps } from './deps.ts';
import { createEnrollment } from './devices/index.ts';
import { keys } from './store/index.ts';
import { ensureUser } from './users/index.ts';

/**
 * Development only: makes sure a demo client and a demo user exist and prints what a newcomer
 * needs to try the whole flow at once: the admin token, the client's id and secret, and a fresh
 * enrollment link. The demo client's secret is kept in the store in clear so it can be printed
 * again after a restart; that is why this never runs in production.
 */
export async function seedDevelopment(deps: Deps, options: { adminToken: string; adminTokenGenerated: boolean }): Promise<void> {
  const now = deps.clock.now();
  let demo = await deps.store.get(keys.config('demo-client'));
  if (!demo) {
    const { record, client_secret } = await createClient(deps.store, { name: 'Demo agent', tenant: 'default', token_delivery_mode: 'poll' }, now);
    demo = JSON.stringify({ client_id: record.client_id, client_secret });
    await deps.store.set(keys.config('demo-client'), demo);
  }
  const { client_id, client_secret } = JSON.parse(demo) as { client_id: string; client_secret: string };
  const { user } = await ensureUser(deps.store, { tenant: 'default', sub: 'demo', display_name: 'Demo User' }, now);
  const enrollment = await createEnrollment(deps, user);
  const url = deps.config.publicUrl;
  const lines = [
    '',
    'Countersign is running in development mode.',
    `  Approver app:      ${url}/`,
    `  Enroll demo user:  ${enrollment.enrollment_url}   (one-time, ${enrollment.expires_in / 60} min)`,
    // A token the operator set is theirs: it is never echoed; a generated one must be, or nobody could use it.
    `  Admin token:       ${options.adminTokenGenerated ? `${options.adminToken}   (generated: set ADMIN_TOKEN to keep one)` : '(the ADMIN_TOKEN you set)'}`,
    `  Demo client:       client_id=${client_id}`,
    `                     client_secret=${client_secret}`,
    '',
    'Ask for an approval (after enrolling a passkey with the link above):',
    `  curl -s -u '${client_id}:${client_secret}' ${url}/bc-authorize \\`,
    `    -d scope=openid -d login_hint=demo -d binding_message='Order 1042' \\`,
    `    --data-urlencode 'authorization_details=[{"type":"payment","transaction_id":"txn_1042","amount_minor":49000,"currency":"EUR","payee":{"id":"acct_77","name":"ACME Ltd"},"purpose":"Refund for order 1042"}]'`,
    '',
  ];
  console.log(lines.join('\n'));
}
