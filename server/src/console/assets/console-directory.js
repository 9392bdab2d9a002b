// The operator console's directory (docs/operator-tools.md): the tenant's clients and users, searched and paged
// through the admin API (`GET /clients`, `GET /users`, `next_cursor`); disabling, enabling a client
// and giving it a new secret; a user's devices and revoking one. Values from the server go into
// the page as text only (see console-dom.js).

import { $, el } from './console-dom.js';

/** What the directory is given by console.js: the admin API call, the auth-error handler, the tenant field. */
let ctx = null;
/** The next page of each list: its `next_cursor`, or null at the end. */
const cursors = { clients: null, users: null };

/** Wires the directory's forms and buttons (once) and loads both lists. */
export function startDirectory(context) {
  if (!ctx) {
    $('clients-search').addEventListener('submit', (event) => {
      event.preventDefault();
      void loadClients(false);
    });
    $('users-search').addEventListener('submit', (event) => {
      event.preventDefault();
      void loadUsers(false);
    });
    $('clients-more').addEventListener('click', () => void loadClients(true));
    $('users-more').addEventListener('click', () => void loadUsers(true));
  }
  ctx = context;
  void loadClients(false);
  void loadUsers(false);
}

/** `?tenant=…&q=…&cursor=…` of one list. */
function listQuery(field, cursor) {
  const query = new URLSearchParams({ tenant: ctx.tenant() });
  const q = $(field).value.trim();
  if (q) query.set('q', q);
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}

/** Shows a refusal in a list's error line, unless it sent the operator back to sign in. */
function fail(errorId, error) {
  if (!ctx.handleAuthError(error)) $(errorId).textContent = `${error.code}: ${error.message}`;
}

// --- Clients ----------------------------------------------------------------------------------

async function loadClients(more) {
  $('clients-error').textContent = '';
  try {
    const page = await ctx.api('GET', `/clients?${listQuery('clients-q', more ? cursors.clients : null)}`);
    cursors.clients = page.next_cursor;
    const rows = page.clients.map(clientRow);
    if (more) $('clients').append(...rows);
    else $('clients').replaceChildren(...rows);
    $('clients-more').hidden = !page.next_cursor;
    $('clients-empty').hidden = $('clients').children.length > 0;
  } catch (error) {
    fail('clients-error', error);
  }
}

function clientRow(client) {
  const row = el(
    'li',
    { 'data-client-id': client.client_id, 'data-status': client.disabled ? 'disabled' : 'active' },
    el('span', { class: 'pending-summary' }, client.name),
    el('span', { class: 'muted' }, `${client.client_id} · ${client.token_delivery_mode} · ${client.disabled ? 'disabled' : 'active'}`),
    el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => void toggleClient(client, row), 'aria-label': `${client.disabled ? 'Enable' : 'Disable'} ${client.name}` }, client.disabled ? 'Enable' : 'Disable'),
    client.token_endpoint_auth_method === 'private_key_jwt' ? null : el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => void rotateSecret(client), 'aria-label': `New secret for ${client.name}` }, 'New secret'),
  );
  return row;
}

async function toggleClient(client, row) {
  const action = client.disabled ? 'enable' : 'disable';
  if (action === 'disable' && !window.confirm(`Disable ${client.name}? Its calls are refused until it is enabled again.`)) return;
  try {
    const updated = await ctx.api('POST', `/clients/${encodeURIComponent(client.client_id)}/${action}?tenant=${encodeURIComponent(ctx.tenant())}`);
    row.replaceWith(clientRow(updated));
  } catch (error) {
    fail('clients-error', error);
  }
}

async function rotateSecret(client) {
  if (!window.confirm(`Give ${client.name} a new secret? The old one stops working at once.`)) return;
  try {
    const rotated = await ctx.api('POST', `/clients/${encodeURIComponent(client.client_id)}/secret?tenant=${encodeURIComponent(ctx.tenant())}`);
    $('client-secret').hidden = false;
    $('client-secret').replaceChildren(`New secret for ${rotated.name}, shown only this once: `, el('code', { 'data-testid': 'client-secret-value' }, rotated.client_secret));
  } catch (error) {
    fail('clients-error', error);
  }
}

// --- Users and their devices ------------------------------------------------------------------

async function loadUsers(more) {
  $('users-error').textContent = '';
  try {
    const page = await ctx.api('GET', `/users?${listQuery('users-q', more ? cursors.users : null)}`);
    cursors.users = page.next_cursor;
    const rows = page.users.map(userRow);
    if (more) $('users').append(...rows);
    else $('users').replaceChildren(...rows);
    $('users-more').hidden = !page.next_cursor;
    $('users-empty').hidden = $('users').children.length > 0;
  } catch (error) {
    fail('users-error', error);
  }
}

function userRow(user) {
  return el(
    'li',
    { 'data-sub': user.sub },
    el('span', { class: 'pending-summary' }, user.display_name),
    el('span', { class: 'muted' }, [user.sub, ...user.roles].join(' · ')),
    el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => void showDevices(user), 'aria-label': `Devices of ${user.display_name}` }, 'Devices'),
  );
}

async function showDevices(user) {
  $('devices').hidden = false;
  $('devices-title').textContent = `Devices of ${user.display_name}`;
  $('users-error').textContent = '';
  try {
    const { devices } = await ctx.api('GET', `/users/${encodeURIComponent(user.sub)}/devices?tenant=${encodeURIComponent(ctx.tenant())}`);
    $('device-list').replaceChildren(
      ...devices.map((device) =>
        el(
          'li',
          { 'data-device-id': device.device_id },
          el('span', { class: 'pending-summary' }, device.name),
          el('span', { class: 'muted' }, `added ${new Date(device.created_at).toLocaleString()} · last used ${device.last_used_at ? new Date(device.last_used_at).toLocaleString() : 'never'}`),
          el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => void revokeDevice(user, device), 'aria-label': `Revoke ${device.name}` }, 'Revoke'),
        ),
      ),
    );
    $('devices-empty').hidden = devices.length > 0;
  } catch (error) {
    fail('users-error', error);
  }
}

async function revokeDevice(user, device) {
  if (!window.confirm(`Revoke "${device.name}" of ${user.display_name}? Its passkey stops approving at once; their other devices are told.`)) return;
  try {
    await ctx.api('DELETE', `/users/${encodeURIComponent(user.sub)}/devices/${encodeURIComponent(device.device_id)}?tenant=${encodeURIComponent(ctx.tenant())}`);
    await showDevices(user);
  } catch (error) {
    fail('users-error', error);
  }
}
