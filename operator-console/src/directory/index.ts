// The operator console's directory (docs/operator-tools.md): the tenant's clients and users.
import { $ } from '../dom.ts';
import { loadClients } from './clients.ts';
import { loadUsers } from './users.ts';

let wired = false;

/** Wires the directory's forms and buttons (once) and loads both lists. */
export function startDirectory(): void {
  if (!wired) {
    wired = true;
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
  void loadClients(false);
  void loadUsers(false);
}
