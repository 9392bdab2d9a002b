import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Every package.json git tracks, relative to the root. */
function trackedManifests(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', 'package.json', '*/package.json'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
}

/**
 * What a newcomer reads before the code: the licence the manifests name must be the
 * one the repository carries, and `.gitignore` must not name files git tracks anyway (a pattern
 * that matches a tracked file hides that file's siblings and misleads whoever edits it).
 */
describe('the repository', () => {
  it('carries the full Apache License 2.0 text that every package.json names', () => {
    const path = resolve(ROOT, 'LICENSE');
    expect(existsSync(path), 'no LICENSE at the root').toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    expect(text).toContain('   Copyright 2026 The Countersign authors\n');
    // The sections 1 to 9 and the appendix: a truncated copy would still say "Apache License".
    for (let section = 1; section <= 9; section += 1) expect(text).toMatch(new RegExp(`^   ${section}\\. [A-Z]`, 'm'));
    const manifests = trackedManifests();
    expect(manifests).toContain('package.json');
    const licences = Object.fromEntries(manifests.map((file) => [file, (JSON.parse(readFileSync(resolve(ROOT, file), 'utf8')) as { license?: string; private?: boolean }).license ?? null]));
    const named = Object.entries(licences).filter(([, licence]) => licence !== null);
    expect(named.length).toBeGreaterThanOrEqual(5);
    expect(named.filter(([, licence]) => licence !== 'Apache-2.0')).toEqual([]);
  });

  it('ignores no file that git tracks', () => {
    const ignoredButTracked = execFileSync('git', ['ls-files', '-ci', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(ignoredButTracked).toEqual([]);
  });
});
