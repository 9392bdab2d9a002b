import { parseOptions } from '../parse-options.ts';
import { AdminApiError } from '../admin-api.ts';
import { printJson, UsageError, type Command, type CommandContext } from '../command.ts';

/** One audit event as the admin API answers it (more fields may come; `--json` prints them all). */
interface AuditEvent {
  type: string;
  at: string;
  reason?: string;
  channel?: string;
  client_id?: string;
  sub?: string;
  device_id?: string;
  detail?: Record<string, unknown>;
}

/** The admin view of a request, as far as following needs it. */
interface AdminRequestView {
  request: { state: string; outcome: { status: string } | null };
}

const DEFAULT_INTERVAL_SECONDS = 2;

/**
 * `audit follow --auth-req-id <id> [--tenant <t>] [--interval <s>] [--until-settled]`: prints the
 * request's audit trail, then every new event as it is appended, until Ctrl-C; with
 * `--until-settled`, until the request is settled: denied, expired, or redeemed with its outcome
 * reported. One event per line: `<at>  <type>  key=value…`, or one JSON object per line (`--json`).
 *
 * It polls `GET /api/admin/audit` every `--interval` seconds (2 by default); the trail is
 * append-only, so what is new is what lies past the events already printed.
 */
export const auditFollow: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions(
    {
      args,
      options: { 'auth-req-id': { type: 'string' }, tenant: { type: 'string' }, interval: { type: 'string' }, 'until-settled': { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    },
    // `audit follow <id>`: an auth_req_id may start with '-'.
    { idPositionals: true },
  );
  const authReqId = values['auth-req-id'] ?? positionals[0];
  if (!authReqId || positionals.length > (values['auth-req-id'] ? 0 : 1)) throw new UsageError('audit follow needs --auth-req-id <id>');
  const interval = Number(values.interval ?? DEFAULT_INTERVAL_SECONDS);
  if (!(interval >= 0.1 && interval <= 3600)) throw new UsageError('--interval must be a number of seconds from 0.1 to 3600');
  const tenant = values.tenant ? `tenant=${encodeURIComponent(values.tenant)}` : '';
  const requestPath = `/requests/${encodeURIComponent(authReqId)}${tenant ? `?${tenant}` : ''}`;
  const auditPath = `/audit?auth_req_id=${encodeURIComponent(authReqId)}${tenant ? `&${tenant}` : ''}`;

  // A mistyped id would otherwise be followed, silently, forever.
  await ctx.api.call('GET', requestPath);
  let printed = 0;
  while (!ctx.signal.aborted) {
    const { body } = await ctx.api.call<{ events: AuditEvent[] }>('GET', auditPath);
    for (const event of body.events.slice(printed)) printEvent(ctx, event);
    printed = Math.max(printed, body.events.length);
    if (values['until-settled'] && (await isSettled(ctx, requestPath))) {
      // The settling event may have been appended after the read above: print it too.
      const last = await ctx.api.call<{ events: AuditEvent[] }>('GET', auditPath);
      for (const event of last.body.events.slice(printed)) printEvent(ctx, event);
      return 0;
    }
    await ctx.sleep(interval * 1000);
  }
  return 0;
};

/** Nothing more will happen to it: denied, expired, or redeemed and its outcome reported. */
async function isSettled(ctx: CommandContext, requestPath: string): Promise<boolean> {
  try {
    const { body } = await ctx.api.call<AdminRequestView>('GET', requestPath);
    const { state, outcome } = body.request;
    return state === 'denied' || state === 'expired' || (state === 'redeemed' && outcome !== null && outcome.status !== 'unknown');
  } catch (error) {
    // Gone from the store (past its retention): nothing more can happen to it either.
    if (error instanceof AdminApiError && error.code === 'not_found') return true;
    throw error;
  }
}

function printEvent(ctx: CommandContext, event: AuditEvent): void {
  if (ctx.json) {
    printJson(ctx, event);
    return;
  }
  const fields: Array<[string, unknown]> = [['reason', event.reason], ['channel', event.channel], ['client', event.client_id], ['sub', event.sub], ['device', event.device_id], ...Object.entries(event.detail ?? {})];
  const pairs = fields.filter(([, value]) => value !== undefined && value !== null && value !== '').map(([key, value]) => `${key}=${oneWord(value)}`);
  ctx.output.out([event.at, event.type, ...pairs].join(ctx.output.tty ? '  ' : '\t'));
}

/** A value as one shell-friendly word: JSON-quoted when it holds spaces or controls. */
function oneWord(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w.:@/+-]*$/.test(text) ? text : JSON.stringify(text);
}
