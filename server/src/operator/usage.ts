/** The help text of `countersign-admin`. */
export const USAGE = `Usage: countersign-admin <command> [options] [--json]

Commands:
  client create --name <name> [--mode poll|ping|push] [--endpoint <url>] [--tenant <t>]
      Register a client (an agent or backend); prints its id and secret, once.
  user add <sub> [--name <display name>] [--tenant <t>]
      Add a user; <sub> is what agents send as login_hint.
  enroll <sub> [--tenant <t>] [--no-qr]
      Create a one-time enrollment link: the link on stdout, a QR code of it on stderr.
  requests pending [--q <text>] [--cursor <c>] [--limit <n>] [--tenant <t>]
      List pending requests, soonest deadline first.
  clients list [--q <text>] [--cursor <c>] [--limit <n>] [--tenant <t>]
      List (and search) clients; a next page's --cursor is printed on stderr.
  client disable|enable <client_id> [--tenant <t>]
      Refuse every call of a client (invalid_client), or allow it again.
  client rotate-secret <client_id> [--tenant <t>]
      Give a client a new secret, printed once; the old one stops working.
  client delete <client_id> [--tenant <t>]
      Delete a client.
  users list [--q <text>] [--cursor <c>] [--limit <n>] [--tenant <t>]
      List (and search) users.
  user show <sub> [--tenant <t>]
      A user, their roles and the clients they blocked.
  user roles <sub> <role>... | --none [--tenant <t>]
      Set a user's roles (e.g. reviewer:finance); --none takes them all away.
  user unblock <sub> <client_id> [--tenant <t>]
      Clear a block the user set with "this wasn't me".
  user export <sub> [--output <file>] [--tenant <t>]
      Everything the server holds about a user, as JSON.
  devices list <sub> [--tenant <t>]
      A user's devices (passkeys).
  device revoke <sub> <device_id> [--tenant <t>]
      Remove a lost device; the user's other devices are told.
  audit follow --auth-req-id <id> [--tenant <t>] [--interval <s>] [--until-settled]
      Print a request's audit trail and follow it as it grows.

Environment:
  COUNTERSIGN_URL   the server, e.g. https://approve.example.com (default http://localhost:8080)
  ADMIN_TOKEN       the server's admin token

Output: aligned columns on a terminal, tab-separated fields when piped; --json for JSON
(one object per line for audit follow). Exit codes: 0 done, 1 refused or unreachable, 2 usage.
`;
