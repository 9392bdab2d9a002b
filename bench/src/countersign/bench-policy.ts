import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the server keeps the policy it ships (`POLICY_FILE` unset), if this version has one. */
function shippedPolicyFile(): string | null {
  const entry = fileURLToPath(import.meta.resolve('@countersign/server'));
  const file = join(entry, '..', 'policy', 'default-policy.json');
  return existsSync(file) ? file : null;
}

/** Sets `path` in `target` when the parent exists (a limit this version of the policy does not have is left alone). */
function setIfPresent(target: Record<string, any>, path: string[], value: unknown): void {
  let node: Record<string, any> | undefined = target;
  for (const key of path.slice(0, -1)) node = node?.[key];
  const last = path.at(-1)!;
  if (node && typeof node === 'object' && last in node) node[last] = value;
}

/**
 * Writes the policy the benchmarked server runs with, and answers its path (or null for a server
 * without policies). It is the shipped policy with its limits made non-binding, and nothing else
 * changed (tiers, floors and amount thresholds stay; the bench's payment is in the standard tier):
 * a benchmark asks thousands of times a second for a few hundred users, which every limit of a
 * real deployment is there to refuse.
 *
 * - pending requests per user, and one client's share of them: the schema's maximum (1000); the
 *   load is spread over enough users;
 * - velocity and push windows: 1 s long with the schema's maximal counts and no amount caps, so
 *   they admit everything and stay small.
 *
 * The velocity windows' length changes what each request costs (see "velocity window growth" in
 * the results): that is measured separately, with windows of the shipped length.
 *
 * @param windows - `short` (1 s, for the load runs) or `shipped` (the shipped lengths, for the
 *   memory and window growth measurements, where what a window holds is the point).
 */
export function writeBenchPolicy(workDir: string, windows: 'short' | 'shipped' = 'short'): string | null {
  const shipped = shippedPolicyFile();
  if (!shipped) return null;
  const policy = JSON.parse(readFileSync(shipped, 'utf8')) as Record<string, any>;
  const length = (current: unknown) => (windows === 'short' ? 1 : Number((current as { window_seconds?: number } | undefined)?.window_seconds ?? 3600));
  setIfPresent(policy, ['limits', 'max_pending_per_user'], 1000);
  setIfPresent(policy, ['limits', 'max_pending_per_client_user'], 1000);
  setIfPresent(policy, ['limits', 'pushes_per_user'], { window_seconds: length(policy.limits?.pushes_per_user), max_count: 10_000 });
  for (const who of ['per_user', 'per_client']) {
    setIfPresent(policy, ['limits', 'velocity', who], { window_seconds: length(policy.limits?.velocity?.[who]), max_count: 1_000_000, max_amount_minor: {} });
  }
  const file = join(workDir, `bench-policy-${windows}.json`);
  writeFileSync(file, JSON.stringify(policy, null, 2));
  return file;
}
