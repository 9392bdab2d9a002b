import { pushRequest } from './ciba/index.ts';
import type { ConsequenceDeps } from './consequences.ts';
import { rolesOf } from './devices/index.ts';
import { roleOf } from './policy/index.ts';
import { trackEscalation, type Consequence, type TransitionEvent } from './requests/index.ts';
import { keys } from './store/index.ts';
import { usersWithRole } from './users/index.ts';

/** The roles that held the request before an `escalate` transition; none for any other. */
function rolesBefore({ transition: t }: TransitionEvent): string[] {
  return t.op === 'escalate' ? t.from.map(roleOf).filter((role): role is string => role !== null) : [];
}

/**
 * What follows a hand-over to the next role of a request's chain (docs/escalation.md): out of
 * the earlier roles' queues and into the new one's, the next window tracked, and everyone who saw
 * it or sees it now told (`record`); then the new role's holders pushed, a push of its own per
 * step, never held back by the first's mark (`then`).
 *
 * @param indexTtl - how long a queue or deadline entry may outlive its request, seconds.
 * @param audienceOf - who sees the request now (its person and the holders of the roles it needs).
 */
export function escalationConsequences(deps: ConsequenceDeps, indexTtl: number, audienceOf: (event: TransitionEvent) => Promise<string[]>): { record: Consequence[]; then: Consequence[] } {
  const moveQueues: Consequence = (event) => {
    const { tenant, auth_req_id } = event.request;
    return Promise.all([...rolesBefore(event).map((role) => deps.store.setRemove(keys.roleRequests(tenant, role), auth_req_id)), ...rolesOf(event.request).map((role) => deps.store.setAdd(keys.roleRequests(tenant, role), auth_req_id, indexTtl))]);
  };
  const tellEveryone: Consequence = async (event) => {
    const { tenant, auth_req_id, state } = event.request;
    const earlier = await Promise.all(rolesBefore(event).map((role) => usersWithRole(deps.store, tenant, role)));
    for (const sub of new Set([...(await audienceOf(event)), ...earlier.flat()])) deps.events.publish(tenant, sub, { auth_req_id, state });
  };
  const pushNextHolders: Consequence = async ({ request, transition: t }) => {
    if (t.op !== 'escalate') return;
    // Never the person the request is for: nobody reviews their own request.
    const holders = (await Promise.all(rolesOf(request).map((role) => usersWithRole(deps.store, request.tenant, role)))).flat();
    await pushRequest(
      deps,
      request,
      [...new Set(holders)].filter((sub) => sub !== request.sub),
      t.step,
    );
  };
  return { record: [moveQueues, ({ request }) => trackEscalation(deps.store, request, indexTtl), tellEveryone], then: [pushNextHolders] };
}
