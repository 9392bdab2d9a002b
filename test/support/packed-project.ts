import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the tests of the packed packages share: packing a workspace package as a user gets it, and
 * running commands in a project outside the workspace as that user's machine would.
 */

/** The repository's root folder. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The machine's Node when it has one (Node 20 here), else the one running the tests. */
export const MACHINE_NODE = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;

/**
 * The environment of everything that stands for the user's machine: ours without NODE_OPTIONS
 * (pnpm sets `--conditions=countersign-source` there, which would point an installed package at a
 * `src/` it does not ship), and with `node`'s folder first on PATH so npm runs on it too.
 */
export function userEnv(extra: Record<string, string> = {}, node = MACHINE_NODE): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  return { ...env, PATH: `${dirname(node)}:${env.PATH ?? ''}`, ...extra };
}

/** Runs a command to its end; answers its stdout, or rejects with its output. */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}\n${out}\n${err}`))));
  });
}

/**
 * Packs the workspace package in `folder` (relative to {@link ROOT}) into `destination` with pnpm,
 * which writes `workspace:*` as the version and applies `publishConfig`; answers the tarball's path.
 *
 * @throws Error when packing fails or does not add exactly one tarball.
 */
export async function pack(folder: string, destination: string): Promise<string> {
  const before = new Set(await readdir(destination));
  await run('pnpm', ['pack', '--pack-destination', destination], { cwd: join(ROOT, folder) });
  const added = (await readdir(destination)).filter((name) => name.endsWith('.tgz') && !before.has(name));
  if (added.length !== 1) throw new Error(`packing ${folder} added ${added.length} tarballs`);
  return join(destination, added[0]!);
}

/** The packages (not `node:` builtins, not relative files) the built `.js` files under `folder` import. */
export async function importedPackages(folder: string): Promise<string[]> {
  const names = new Set<string>();
  for (const entry of await readdir(folder, { recursive: true })) {
    if (!entry.endsWith('.js')) continue;
    const code = await readFile(join(folder, entry), 'utf8');
    for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
      if (specifier!.startsWith('.') || specifier!.startsWith('node:') || specifier!.startsWith('#')) continue;
      const parts = specifier!.split('/');
      names.add(specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  return [...names].sort();
}
