import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packed-project.ts';
import { trackedFiles } from './support/tracked-files.ts';

/** The steering document kept outside the repository; its contract here is docs/design.md. */
const OUTSIDE_DESIGN = /DESIGN\.md/;
/** "issue 4", "Issues 10", "issue #16": a tracker the reader cannot see. Not "tissue 4" nor "an issue that says so". */
const ISSUE_NUMBER = /\bissues?\s+#?\d+\b/i;

/** A line that cites something outside the repository: `path:line: text`. */
function citationsIn(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) => (OUTSIDE_DESIGN.test(line) || ISSUE_NUMBER.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : []));
}

/** Whether a file's bytes are text: git's own test, no NUL in the first 8,000 bytes. */
function isText(bytes: Buffer): boolean {
  return !bytes.subarray(0, 8000).includes(0);
}

/**
 * A reader of the repository sees only the repository. A comment that says why by pointing at an
 * issue tracker or a document kept elsewhere says nothing to them, so every tracked text file must
 * cite docs/ (docs/design.md for the contract) instead.
 */
describe('citations', () => {
  it('finds both kinds of outside citation and no look-alike', () => {
    expect(citationsIn('a.ts', '// DESIGN.md guarantee 4')).toEqual(['a.ts:1: // DESIGN.md guarantee 4']);
    expect(citationsIn('a.ts', 'ok\n * (issue 4, "Reviewers")')).toEqual(['a.ts:2: * (issue 4, "Reviewers")']);
    expect(citationsIn('a.ts', '// Issues 10 and 11\n// issue #16')).toHaveLength(2);
    expect(citationsIn('a.ts', '// soft tissue 4 cm; an issue that says so; docs/design.md guarantee 4; reissue 3')).toEqual([]);
  });

  it('holds no citation of a document or an issue outside the repository', () => {
    const files = trackedFiles().filter((path) => !path.endsWith('test/no-outside-citations.test.ts'));
    expect(files.length).toBeGreaterThan(500);
    const found = files.flatMap((path) => {
      const bytes = readFileSync(resolve(ROOT, path));
      return isText(bytes) ? citationsIn(path, bytes.toString('utf8')) : [];
    });
    expect(found).toEqual([]);
  });
});
