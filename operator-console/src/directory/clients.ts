// The directory's clients (docs/operator-tools.md): searched and paged through `GET /clients`
// (`next_cursor`); disabling, enabling a client and giving it a new secret.
import type { ClientView, Page } from '../admin-types.ts';
import { api } from '../api.ts';
import { $, el } from '../dom.ts';
import { fail, listQuery, showPage, tenantQuery } from './list.ts';

/** The next page of the list: its `next_cursor`, or null at the end. */
let cursor: string | null = null;

/** Loads the first page of clients matching the search box, or (`more`) the next page after those shown. */
export async function loadClients(more: boolean): Promise<void> {
  $('clients-error').textContent = '';
  try {
    const page = await api<Page<'clients', ClientView>>('GET', `/clients?${listQuery('clients-q', more ? cursor : null)}`);
    cursor = page.next_cursor;
    showPage('clients', page.clients.map(clientRow), more, page.next_cursor);
  } catch (error) {
    fail('clients-error', error);
  }
}

function clientRow(client: ClientView): HTMLLIElement {
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

async function toggleClient(client: ClientView, row: HTMLLIElement): Promise<void> {
  const action = client.disabled ? 'enable' : 'disable';
  if (action === 'disable' && !window.confirm(`Disable ${client.name}? Its calls are refused until it is enabled again.`)) return;
  try {
    const updated = await api<ClientView>('POST', `/clients/${encodeURIComponent(client.client_id)}/${action}?${tenantQuery()}`);
    row.replaceWith(clientRow(updated));
  } catch (error) {
    fail('clients-error', error);
  }
}

async function rotateSecret(client: ClientView): Promise<void> {
  if (!window.confirm(`Give ${client.name} a new secret? The old one stops working at once.`)) return;
  try {
    const rotated = await api<ClientView & { client_secret: string }>('POST', `/clients/${encodeURIComponent(client.client_id)}/secret?${tenantQuery()}`);
    $('client-secret').hidden = false;
    $('client-secret').replaceChildren(`New secret for ${rotated.name}, shown only this once: `, el('code', { 'data-testid': 'client-secret-value' }, rotated.client_secret));
  } catch (error) {
    fail('clients-error', error);
  }
}
