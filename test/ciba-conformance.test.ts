import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const table = readFileSync(`${here}ciba-conformance.md`, 'utf8');

/** Every `file` › `name` reference in the table's test column (`file` relative to test/, e.g. `guarantees/…`). */
const references = [...table.matchAll(/`([\w.-]+(?:\/[\w.-]+)*\.test\.ts)` › `([^`]+)`/g)].map(([, file, name]) => ({ file: file!, name: name! }));

/**
 * The conformance table (`ciba-conformance.md`) names, for each CIBA Core requirement, the test
 * that checks it. This keeps it honest: a renamed or deleted test fails here.
 */
describe('the CIBA conformance table', () => {
  it('names tests for every section it covers', () => {
    expect(references.length).toBeGreaterThan(50);
    for (const section of ['## §7', '## §10', '## §11', '## §13']) expect(table).toContain(section);
  });

  it.each(references.map((reference) => [`${reference.file} › ${reference.name}`, reference] as const))('%s exists', (_label, { file, name }) => {
    const path = `${here}${file}`;
    expect(existsSync(path), `${file} is missing`).toBe(true);
    const source = readFileSync(path, 'utf8');
    const quoted = [`'${name}'`, `"${name}"`, `\`${name}\``].some((form) => source.includes(form));
    expect(quoted, `no test or case named "${name}" in ${file}`).toBe(true);
  });
});
