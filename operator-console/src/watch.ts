// The watch panel: one request followed through its states (the admin request view) and its audit
// trail, every second while it can still change and every five once it has settled.
import type { AdminRequestView, AuditEvent, TestRequestCreated } from './admin-types.ts';
import { api, describeError } from './api.ts';
import { $, el } from './dom.ts';
import { handleAuthError } from './session.ts';

const WATCH_MS = 1000;
const SETTLED_WATCH_MS = 5000;

/** The request being watched; `seen` is how many audit events are already on the timeline. */
interface Watching {
  id: string;
  tenant: string;
  timer: ReturnType<typeof setTimeout> | undefined;
  seen: number;
  /** The answer of sending it, when the console sent it: its binding code is not in the stored view. */
  created: Partial<TestRequestCreated>;
}

let watching: Watching | null = null;

/** Stops following the watched request, if any. */
export function stopWatching(): void {
  if (watching) clearTimeout(watching.timer);
  watching = null;
}

/** Follows one request of `tenant`: its state and audit trail, every second while it can still change. */
export function watch(id: string, tenant: string, created: Partial<TestRequestCreated> = {}): void {
  stopWatching();
  const current: Watching = { id, tenant, timer: undefined, seen: 0, created };
  watching = current;
  $('watch').hidden = false;
  $('watch').dataset.authReqId = id;
  $('watch-id').textContent = id;
  $('watch-state').textContent = '…';
  $('watch-state').dataset.state = '';
  $('watch-facts').replaceChildren();
  $('timeline').replaceChildren();
  $('watch-error').textContent = '';
  void poll(current);
}

async function poll(current: Watching): Promise<void> {
  if (watching !== current) return;
  const query = `tenant=${encodeURIComponent(current.tenant)}`;
  let settled = false;
  try {
    // The request first, then its trail: reading a request past its deadline settles it (and
    // audits `expired`), so a trail read alongside could miss the event the state already shows.
    const view = await api<AdminRequestView>('GET', `/requests/${encodeURIComponent(current.id)}?${query}`);
    const audit = await api<{ events: AuditEvent[] }>('GET', `/audit?auth_req_id=${encodeURIComponent(current.id)}&${query}`);
    if (watching !== current) return;
    settled = renderRequest(view, current);
    renderTimeline(audit.events, current);
    $('watch-error').textContent = '';
  } catch (error) {
    if (handleAuthError(error)) return;
    if (watching === current) $('watch-error').textContent = describeError(error);
  }
  if (watching === current) current.timer = setTimeout(() => void poll(current), settled ? SETTLED_WATCH_MS : WATCH_MS);
}

/** Shows the request; answers whether nothing more will happen to it. */
function renderRequest({ request, display }: AdminRequestView, current: Watching): boolean {
  const state = display?.state ?? request.state;
  const outcome = request.outcome;
  const label = state === 'redeemed' && outcome && outcome.status !== 'unknown' ? `redeemed, ${outcome.status}` : state;
  $('watch-state').textContent = label;
  $('watch-state').dataset.state = state;
  const summary = (display?.actions ?? []).map((action) => action.summary).join('; ');
  const warnings = (display?.actions ?? []).flatMap((action) => action.warnings ?? []).join('; ');
  const facts: Array<[string, string | number | null | undefined]> = [
    ['User', request.sub],
    ['Tenant', request.tenant],
    ['Client', request.client_name],
    ['Action', summary],
    ['Warning', warnings],
    ['Binding message', request.binding_message],
    ['Code to show the person', current.created.binding_code ?? request.binding_code],
    ['Tier', request.tier],
    [state === 'approved' ? 'Time left to redeem' : 'Time left to decide', state === 'pending' || state === 'approved' ? `${display?.seconds_left ?? '?'} s` : null],
  ];
  $('watch-facts').replaceChildren(...facts.filter(([, value]) => value !== undefined && value !== null && value !== '').flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, String(value))]));
  return state === 'denied' || state === 'expired' || (state === 'redeemed' && outcome !== null && outcome.status !== 'unknown');
}

/** Appends the events the timeline does not show yet. */
function renderTimeline(events: AuditEvent[], current: Watching): void {
  for (const event of events.slice(current.seen)) {
    const time = new Date(event.at);
    const extra = [event.channel, event.reason, event.device_id ? `device ${event.device_id}` : null].filter(Boolean).join(' · ');
    $('timeline').append(el('li', { 'data-type': event.type }, el('time', { datetime: event.at }, Number.isNaN(time.getTime()) ? event.at : time.toLocaleTimeString()), ' ', el('strong', {}, event.type), extra ? el('span', { class: 'muted' }, ` ${extra}`) : null));
  }
  current.seen = Math.max(current.seen, events.length);
}
