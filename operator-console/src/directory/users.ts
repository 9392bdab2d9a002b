// The directory's users (docs/operator-tools.md): searched and paged through `GET /users`
// (`next_cursor`); a user's devices, and revoking one.
import type { OperatorDeviceView, Page, UserView } from '../admin-types.ts';
import { api } from '../api.ts';
import { $, el } from '../dom.ts';
import { fail, listQuery, showPage, tenantQuery } from './list.ts';

/** The next page of the list: its `next_cursor`, or null at the end. */
let cursor: string | null = null;

/** Loads the first page of users matching the search box, or (`more`) the next page after those shown. */
export async function loadUsers(more: boolean): Promise<void> {
  $('users-error').textContent = '';
  try {
    const page = await api<Page<'users', UserView>>('GET', `/users?${listQuery('users-q', more ? cursor : null)}`);
    cursor = page.next_cursor;
    showPage('users', page.users.map(userRow), more, page.next_cursor);
  } catch (error) {
    fail('users-error', error);
  }
}

function userRow(user: UserView): HTMLLIElement {
  return el(
    'li',
    { 'data-sub': user.sub },
    el('span', { class: 'pending-summary' }, user.display_name),
    el('span', { class: 'muted' }, [user.sub, ...user.roles].join(' · ')),
    el('button', { type: 'button', class: 'btn btn-quiet', onclick: () => void showDevices(user), 'aria-label': `Devices of ${user.display_name}` }, 'Devices'),
  );
}

async function showDevices(user: UserView): Promise<void> {
  $('devices').hidden = false;
  $('devices-title').textContent = `Devices of ${user.display_name}`;
  $('users-error').textContent = '';
  try {
    const { devices } = await api<{ devices: OperatorDeviceView[] }>('GET', `/users/${encodeURIComponent(user.sub)}/devices?${tenantQuery()}`);
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

async function revokeDevice(user: UserView, device: OperatorDeviceView): Promise<void> {
  if (!window.confirm(`Revoke "${device.name}" of ${user.display_name}? Its passkey stops approving at once; their other devices are told.`)) return;
  try {
    await api('DELETE', `/users/${encodeURIComponent(user.sub)}/devices/${encodeURIComponent(device.device_id)}?${tenantQuery()}`);
    await showDevices(user);
  } catch (error) {
    fail('users-error', error);
  }
}
