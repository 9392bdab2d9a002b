import { verifyMandateEvidence, type EvidenceReport, type MandateEvidence } from '../mandates/index.ts';

/**
 * `audit verify-evidence --evidence E.json --file chain.jsonl [--json]`: checks a mandate's dispute
 * evidence (the download of `GET /api/admin/mandates/{auth_req_id}/evidence`) offline, against an
 * export of its tenant's chain (`audit export`), with {@link verifyMandateEvidence}. Needs no store.
 *
 * @returns the exit code: 0 when it holds, 1 with findings, 2 when a file is not what it should be.
 */
export async function runEvidenceCheck(input: { evidence: AsyncIterable<string>; chain: AsyncIterable<string>; json: boolean; out(line: string): void; err(line: string): void }): Promise<number> {
  let text = '';
  for await (const line of input.evidence) text += `${line}\n`;
  let evidence: MandateEvidence;
  try {
    evidence = JSON.parse(text) as MandateEvidence;
  } catch {
    input.err('--evidence is not JSON: give the file the evidence download wrote');
    return 2;
  }
  const chain: string[] = [];
  for await (const line of input.chain) if (line.trim() !== '') chain.push(line);
  let report: EvidenceReport;
  try {
    report = await verifyMandateEvidence(evidence, chain);
  } catch {
    input.err('--file is not a chain export: give the JSON lines `audit export` wrote');
    return 2;
  }
  if (input.json) input.out(JSON.stringify(report));
  else if (report.ok)
    input.out(
      `ok: mandate ${evidence.auth_req_id}: ${report.checked.signatures} passkey ${report.checked.signatures === 1 ? 'signature' : 'signatures'} over its exact bounds, ${report.checked.spends} ${report.checked.spends === 1 ? 'spend' : 'spends'} and ${report.checked.events} audit events, all in the tenant's chain`,
    );
  else for (const problem of report.problems) input.out(`${problem.code}: ${problem.message}`);
  return report.ok ? 0 : 1;
}
