import { parseOptions } from '../operator/parse-options.ts';
import { verifyChain, type AuditLog, type ChainHead, type ChainReport } from '../audit/index.ts';
import { runEvidenceCheck } from './evidence-command.ts';

/** What {@link runAuditCommand} works with; `audit.ts` gives it the real ones, tests their own. */
export interface AuditCommandContext {
  /** Opens the audit log of the configured store; called only by subcommands that read the store. */
  openAudit(): Promise<{ audit: AuditLog; close(): Promise<void> }>;
  /** The lines of a file (an export to verify offline). */
  readLines(path: string): AsyncIterable<string>;
  /** Writes one line to standard output. */
  out(line: string): void;
  /** Writes one line to standard error. */
  err(line: string): void;
}

/** Usage text of {@link runAuditCommand}. */
export const AUDIT_USAGE = `usage:
  audit verify --tenant T [--anchor SEQ:HASH] [--file export.jsonl] [--json]
      verify T's hash chain in the store (or in an export file); exit 0 when it holds, 1 at
      the first broken link or when the chain was reset (a store that lost events: "reset:"),
      2 on bad usage, 3 when the store cannot be read.
      --anchor: a head printed by an earlier verify, which must still be there with the same
      hash (catches events cut from the end, or the chain rewritten from some point on); one
      older than the retention anchor cannot be checked any more (anchor_trimmed).
      A chain trimmed by AUDIT_RETENTION_DAYS is verified from its retention anchor, the last
      event trimmed, and the report says so.
  audit export --tenant T
      write T's chain to standard output as JSON lines, oldest first; a trimmed chain starts
      with one {"retention_anchor": …} line, which verify --file reads.
  audit verify-evidence --evidence mandate-evidence.json --file export.jsonl [--json]
      check a mandate's dispute evidence (GET /api/admin/mandates/ID/evidence) offline: the
      passkey signatures over its exact bounds, every spend and outcome, each event in the
      tenant's chain export; exit 0 when it holds, 1 with findings (one line each), 2 on bad usage.`;

const TENANT = /^[a-z0-9][a-z0-9-]{0,39}$/;

function parseAnchor(value: string | undefined): ChainHead | undefined | null {
  if (value === undefined) return undefined;
  const match = /^(\d+):([A-Za-z0-9_-]{43})$/.exec(value);
  return match ? { seq: Number(match[1]), hash: match[2]! } : null;
}

function describe(report: ChainReport): string {
  // A trimmed chain is proved from its retention anchor, not from the genesis hash: say so.
  const from = report.start ? `, from the retention anchor ${report.start.seq}:${report.start.hash} (events 0 to ${report.start.seq} trimmed${report.start.at ? `, the last of ${report.start.at}` : ''})` : '';
  if (report.ok) {
    const head = report.head ? `; head ${report.head.seq}:${report.head.hash}${report.head.id ? ` (stream id ${report.head.id})` : ''}` : '';
    // An empty chain holds trivially: say so, since it is what a mistyped tenant looks like.
    if (report.events === 0 && !report.start) return `ok: tenant ${report.tenant} has no events (a new tenant, or a mistyped name?)`;
    return `ok: tenant ${report.tenant}, ${report.events} ${report.events === 1 ? 'event' : 'events'}, the chain holds${from}${head}`;
  }
  const broken = report.broken!;
  if (broken.reason === 'chain_reset') {
    // Every link that is there holds, but events were lost: never "holds", and not a tampering report either.
    const head = report.head ? `; head ${report.head.seq}:${report.head.hash}` : '';
    const resets = report.resets ?? [];
    return `reset: tenant ${report.tenant}${from}, the chain restarted ${resets.length === 1 ? 'once' : `${resets.length} times`} (the store lost events); first at position ${broken.position}${broken.id ? ` (stream id ${broken.id})` : ''}: ${broken.message}; the links that are there hold${head}`;
  }
  return `broken: tenant ${report.tenant}${from}, first broken link at position ${broken.position}${broken.id ? ` (stream id ${broken.id})` : ''}: ${broken.reason}: ${broken.message}`;
}

/**
 * The operator's audit command (docs/audit.md "Checking and exporting: the audit command"):
 * `verify` checks a tenant's hash chain and reports the first broken link; `export` writes the
 * chain as JSON lines. A module another CLI can mount as its `audit` subcommand (see the example);
 * `server/src/cli/audit.ts` runs it on its own:
 * `tsx server/src/cli/audit.ts verify --tenant default`.
 *
 * @param argv - the arguments after `audit`, e.g. `['verify', '--tenant', 'default']`.
 * @returns the exit code: 0 ok, 1 a broken chain, 2 bad usage.
 * @throws when the store fails (a broken system, not a finding; `audit.ts` exits 3).
 * @example Mount it in another CLI
 * ```ts
 * if (argv[0] === 'audit') process.exitCode = await runAuditCommand(argv.slice(1), context);
 * ```
 */
export async function runAuditCommand(argv: string[], context: AuditCommandContext): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions({ args: argv, allowPositionals: true, options: { tenant: { type: 'string' }, anchor: { type: 'string' }, file: { type: 'string' }, evidence: { type: 'string' }, json: { type: 'boolean' } } });
  } catch (error) {
    context.err(`${(error as Error).message}\n${AUDIT_USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  const { tenant, file, json } = parsed.values;
  const anchor = parseAnchor(parsed.values.anchor);
  const usage = (problem: string) => {
    context.err(`${problem}\n${AUDIT_USAGE}`);
    return 2;
  };
  if (command === 'verify-evidence' && rest.length === 0) {
    if (!parsed.values.evidence || !file || tenant || parsed.values.anchor) return usage('verify-evidence takes --evidence and --file (the chain export), and [--json]');
    return runEvidenceCheck({ evidence: context.readLines(parsed.values.evidence), chain: context.readLines(file), json: json === true, out: context.out, err: context.err });
  }
  if ((command !== 'verify' && command !== 'export') || rest.length > 0) return usage(command ? `unknown command: ${[command, ...rest].join(' ')}` : 'a command is required');
  if (!tenant || !TENANT.test(tenant)) return usage('--tenant is required: lowercase letters, digits and -');
  if (anchor === null) return usage('--anchor must be SEQ:HASH as verify prints it');
  if (command === 'export' && (file || anchor || json)) return usage('export takes only --tenant');
  if (parsed.values.evidence) return usage('--evidence belongs to verify-evidence');

  if (command === 'verify' && file) {
    const report = await verifyChain(tenant, context.readLines(file), anchor);
    context.out(json ? JSON.stringify(report) : describe(report));
    return report.ok ? 0 : 1;
  }
  const { audit, close } = await context.openAudit();
  try {
    if (command === 'export') {
      for await (const line of audit.export(tenant)) context.out(line);
      return 0;
    }
    const report = await audit.verify(tenant, anchor);
    context.out(json ? JSON.stringify(report) : describe(report));
    return report.ok ? 0 : 1;
  } finally {
    await close();
  }
}
