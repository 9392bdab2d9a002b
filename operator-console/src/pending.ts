// The pending-requests panel: the tenant's requests still waiting for a decision, each one a
// button away from the watch panel; refreshed every five seconds while signed in.
import type { PendingList } from './admin-types.ts';
import { api, currentToken } from './api.ts';
import { $, el } from './dom.ts';
import { handleAuthError } from './session.ts';
import { watch } from './watch.ts';

const PENDING_MS = 5000;
let timer: ReturnType<typeof setInterval> | undefined;

/** Lists the pending requests of `tenant` (nothing while signed out). */
export async function refreshPending(tenant: string): Promise<void> {
  if (!currentToken()) return;
  try {
    const { requests } = await api<PendingList>('GET', `/requests?state=pending&tenant=${encodeURIComponent(tenant)}`);
    $('pending-empty').hidden = requests.length > 0;
    $('pending').replaceChildren(
      ...requests.map((request) =>
        el(
          'li',
          { 'data-auth-req-id': request.auth_req_id },
          el('span', { class: 'pending-summary' }, `${request.summary} for ${request.sub}`),
          el('span', { class: 'muted' }, `${request.test ? 'Test request · ' : ''}${request.client_name} · ${request.seconds_left} s left`),
          el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => watch(request.auth_req_id, request.tenant), 'aria-label': `Watch ${request.summary} for ${request.sub}` }, 'Watch'),
        ),
      ),
    );
  } catch (error) {
    handleAuthError(error);
  }
}

/** Refreshes the list now and every five seconds, reading the tenant field each time. */
export function startPending(tenant: () => string): void {
  stopPending();
  timer = setInterval(() => void refreshPending(tenant()), PENDING_MS);
}

/** Stops the periodic refresh. */
export function stopPending(): void {
  clearInterval(timer);
  timer = undefined;
}
