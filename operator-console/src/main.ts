// The operator console: a small page behind the admin token. It sends a test approval request to
// a user and follows it through its states (send-form.ts, watch.ts), lists the pending requests
// (pending.ts) and the tenant's clients and users (directory/).
//
// Served from the same origin as the admin API, under the server's CSP (script-src 'self': the
// built script, no inline script; style-src 'self': no style attributes). Every value from the
// server is put into the page as text (textContent), never as markup. This file is the sign-in
// screen and the start.
import './console.css';
import { api, ApiError, currentToken, useToken } from './api.ts';
import { startDirectory } from './directory/index.ts';
import { $, $value } from './dom.ts';
import { refreshPending, startPending, stopPending } from './pending.ts';
import { mountRequestForm } from './request-form.ts';
import { loadSamples, samplesLoaded } from './samples.ts';
import { startSendForm } from './send-form.ts';
import { whenTokenRefused } from './session.ts';
import { currentTenant } from './tenant.ts';
import { stopWatching } from './watch.ts';

// The request form first: everything after may look up its fields.
mountRequestForm();

function showSignIn(message = ''): void {
  stopWatching();
  stopPending();
  $('console').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message;
  $('token').focus();
}

async function showConsole(): Promise<void> {
  $('sign-in').hidden = true;
  $('console').hidden = false;
  $('sign-out').hidden = false;
  const bindingMessage = $value('binding-message');
  if (!bindingMessage.value) bindingMessage.value = `Test ${String(Math.floor(Math.random() * 10000)).padStart(4, '0')}`;
  if (!samplesLoaded()) await loadSamples();
  await refreshPending(currentTenant());
  startDirectory();
  startPending(currentTenant);
}

$('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const candidate = $value('token').value.trim();
  if (!candidate) return showSignIn('Enter the admin token.');
  useToken(candidate);
  try {
    // Any admin call tells whether the token is good; this one is read-only.
    await api('GET', `/requests?state=pending&tenant=${encodeURIComponent(currentTenant())}`);
  } catch (error) {
    useToken(null);
    return showSignIn(error instanceof ApiError && error.code === 'invalid_token' ? 'That is not the admin token.' : error instanceof Error ? error.message : String(error));
  }
  useToken(candidate, true);
  $value('token').value = '';
  await showConsole();
  $('send-title').focus();
});

$('sign-out').addEventListener('click', () => {
  useToken(null);
  showSignIn();
});

whenTokenRefused(showSignIn);
$('refresh').addEventListener('click', () => void refreshPending(currentTenant()));
startSendForm();

if (currentToken()) {
  showConsole().catch(() => showSignIn());
} else {
  showSignIn();
}
