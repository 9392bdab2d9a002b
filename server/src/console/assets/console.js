// The operator console: a small page behind the admin token. It sends a test approval request to
// a user and follows it through its states (the admin request view and its audit trail); the
// clients and users of the tenant are in console-directory.js.
//
// Served from the same origin as the admin API, under the server's CSP (script-src 'self': this
// file, no inline script; style-src 'self': no style attributes). Every value from the server is
// put into the page as text (textContent), never as markup.

import { $, el } from './console-dom.js';
import { startDirectory } from './console-directory.js';
import { isSampleType, loadSamples, samplesLoaded, showActionFields } from './console-samples.js';

const TOKEN_KEY = 'countersign.console.admin-token';
const WATCH_MS = 1000;
const SETTLED_WATCH_MS = 5000;

/** A refusal of the admin API, with its stable `error` code. */
class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

let token = sessionStorage.getItem(TOKEN_KEY);
/** The request being watched: `{id, tenant, timer, seen}`. */
let watching = null;
let pendingTimer = null;

/** Calls the admin API with the token as a Bearer token; answers the parsed JSON. */
async function api(method, path, body) {
  let response;
  try {
    response = await fetch(`/api/admin${path}`, {
      method,
      cache: 'no-store',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('network_error', "Can't reach the server.", 0);
  }
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(json?.error ?? `http_${response.status}`, json?.error_description ?? `The server answered ${response.status}.`, response.status);
  }
  return json;
}

// --- Signing in -----------------------------------------------------------------------------

function showSignIn(message = '') {
  stopWatching();
  clearInterval(pendingTimer);
  $('console').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message;
  $('token').focus();
}

async function showConsole() {
  $('sign-in').hidden = true;
  $('console').hidden = false;
  $('sign-out').hidden = false;
  if (!$('binding-message').value) $('binding-message').value = `Test ${String(Math.floor(Math.random() * 10000)).padStart(4, '0')}`;
  if (!samplesLoaded()) await loadSamples(api, handleAuthError);
  await refreshPending();
  startDirectory({ api, handleAuthError, tenant });
  clearInterval(pendingTimer);
  pendingTimer = setInterval(() => void refreshPending(), 5000);
}

$('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const candidate = $('token').value.trim();
  if (!candidate) return showSignIn('Enter the admin token.');
  token = candidate;
  try {
    // Any admin call tells whether the token is good; this one is read-only.
    await api('GET', `/requests?state=pending&tenant=${encodeURIComponent(tenant())}`);
  } catch (error) {
    token = null;
    return showSignIn(error.code === 'invalid_token' ? 'That is not the admin token.' : error.message);
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $('token').value = '';
  await showConsole();
  $('send-title').focus();
});

$('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  token = null;
  showSignIn();
});

/** An answer that says the token is no good (any more) sends the operator back to sign in. */
function handleAuthError(error) {
  if (error instanceof ApiError && (error.code === 'invalid_token' || error.status === 401)) {
    sessionStorage.removeItem(TOKEN_KEY);
    token = null;
    showSignIn('The admin token was refused. Sign in again.');
    return true;
  }
  return false;
}

// --- Sending a test request --------------------------------------------------------------------

function tenant() {
  return $('tenant').value.trim() || 'default';
}

$('action-type').addEventListener('change', showActionFields);
showActionFields();

/** The tool call the form describes, or an error message. */
function toolCallAction(value, form) {
  let args;
  try {
    args = JSON.parse(value('tool_arguments'));
  } catch {
    return 'The arguments must be JSON.';
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'The arguments must be a JSON object.';
  return {
    type: 'tool_call',
    transaction_id: `mcp_console_${crypto.randomUUID()}`,
    server: value('tool_server'),
    tool: value('tool_name'),
    arguments: args,
    annotations: { destructiveHint: form.get('tool_destructive') === 'on' },
  };
}

/** The action the form describes: null for a sample (named, not written out: the server builds it), or an error message. */
function formAction(type, value, form) {
  if (isSampleType(type)) return null;
  if (type === 'tool_call') return toolCallAction(value, form);
  return {
    type: 'payment',
    // A fresh idempotency key each time: a second send is a second request.
    transaction_id: `txn_console_${crypto.randomUUID()}`,
    amount_minor: Number(value('amount_minor')),
    currency: value('currency').toUpperCase(),
    payee: { id: value('payee_id'), name: value('payee_name') },
    purpose: value('purpose'),
  };
}

$('request-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const value = (name) => String(form.get(name) ?? '').trim();
  $('send-error').textContent = '';
  const amount = value('amount_minor');
  const expiry = value('requested_expiry');
  const type = value('action_type');
  const isPayment = type === 'payment';
  const isSample = isSampleType(type);
  if ((isPayment && !/^[0-9]+$/.test(amount)) || !/^[0-9]+$/.test(expiry)) {
    $('send-error').textContent = 'The amount and the expiry must be whole numbers.';
    return;
  }
  const action = formAction(type, value, form);
  if (typeof action === 'string') {
    $('send-error').textContent = action;
    return;
  }
  const body = {
    login_hint: value('login_hint'),
    tenant: tenant(),
    ...(isSample ? { sample: type } : { authorization_details: [action] }),
    requested_expiry: Number(expiry),
    ...(value('binding_message') ? { binding_message: value('binding_message') } : {}),
  };
  const button = event.target.querySelector('button[type=submit]');
  button.disabled = true;
  try {
    const created = await api('POST', '/test-requests', body);
    watch(created.auth_req_id, body.tenant, created);
    void refreshPending();
  } catch (error) {
    if (!handleAuthError(error)) $('send-error').textContent = `${error.code}: ${error.message}`;
  } finally {
    button.disabled = false;
  }
});

// --- Watching one request --------------------------------------------------------------------

function stopWatching() {
  if (watching) clearTimeout(watching.timer);
  watching = null;
}

/** Follows one request: its state and audit trail, every second while it can still change. */
function watch(id, watchedTenant, created = {}) {
  stopWatching();
  watching = { id, tenant: watchedTenant, timer: null, seen: 0, created };
  $('watch').hidden = false;
  $('watch').dataset.authReqId = id;
  $('watch-id').textContent = id;
  $('watch-state').textContent = '…';
  $('watch-state').dataset.state = '';
  $('watch-facts').replaceChildren();
  $('timeline').replaceChildren();
  $('watch-error').textContent = '';
  void poll(watching);
}

async function poll(current) {
  if (watching !== current) return;
  const query = `tenant=${encodeURIComponent(current.tenant)}`;
  let settled = false;
  try {
    // The request first, then its trail: reading a request past its deadline settles it (and
    // audits `expired`), so a trail read alongside could miss the event the state already shows.
    const view = await api('GET', `/requests/${encodeURIComponent(current.id)}?${query}`);
    const audit = await api('GET', `/audit?auth_req_id=${encodeURIComponent(current.id)}&${query}`);
    if (watching !== current) return;
    settled = renderRequest(view, current);
    renderTimeline(audit.events, current);
    $('watch-error').textContent = '';
  } catch (error) {
    if (handleAuthError(error)) return;
    if (watching === current) $('watch-error').textContent = `${error.code}: ${error.message}`;
  }
  if (watching === current) current.timer = setTimeout(() => void poll(current), settled ? SETTLED_WATCH_MS : WATCH_MS);
}

/** Shows the request; answers whether nothing more will happen to it. */
function renderRequest({ request, display }, current) {
  const state = display?.state ?? request.state;
  const outcome = request.outcome;
  const label = state === 'redeemed' && outcome && outcome.status !== 'unknown' ? `redeemed, ${outcome.status}` : state;
  $('watch-state').textContent = label;
  $('watch-state').dataset.state = state;
  const summary = (display?.actions ?? []).map((action) => action.summary).join('; ');
  const warnings = (display?.actions ?? []).flatMap((action) => action.warnings ?? []).join('; ');
  const facts = [
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
  $('watch-facts').replaceChildren(
    ...facts.filter(([, value]) => value !== undefined && value !== null && value !== '').flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, String(value))]),
  );
  return state === 'denied' || state === 'expired' || (state === 'redeemed' && outcome !== null && outcome.status !== 'unknown');
}

function renderTimeline(events, current) {
  for (const event of events.slice(current.seen)) {
    const time = new Date(event.at);
    const extra = [event.channel, event.reason, event.device_id ? `device ${event.device_id}` : null].filter(Boolean).join(' · ');
    $('timeline').append(
      el(
        'li',
        { 'data-type': event.type },
        el('time', { datetime: event.at }, Number.isNaN(time.getTime()) ? event.at : time.toLocaleTimeString()),
        ' ',
        el('strong', {}, event.type),
        extra ? el('span', { class: 'muted' }, ` ${extra}`) : null,
      ),
    );
  }
  current.seen = Math.max(current.seen, events.length);
}

// --- Pending requests -------------------------------------------------------------------------

async function refreshPending() {
  if (!token) return;
  try {
    const { requests } = await api('GET', `/requests?state=pending&tenant=${encodeURIComponent(tenant())}`);
    $('pending-empty').hidden = requests.length > 0;
    $('pending').replaceChildren(
      ...requests.map((request) =>
        el(
          'li',
          { 'data-auth-req-id': request.auth_req_id },
          el('span', { class: 'pending-summary' }, `${request.summary} for ${request.sub}`),
          el('span', { class: 'muted' }, `${request.client_name} · ${request.seconds_left} s left`),
          el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => watch(request.auth_req_id, request.tenant), 'aria-label': `Watch ${request.summary} for ${request.sub}` }, 'Watch'),
        ),
      ),
    );
  } catch (error) {
    handleAuthError(error);
  }
}

$('refresh').addEventListener('click', () => void refreshPending());

// --- Start ----------------------------------------------------------------------------------

if (token) {
  showConsole().catch(() => showSignIn());
} else {
  showSignIn();
}
