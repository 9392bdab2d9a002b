import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packed-project.ts';
import { trackedFiles } from './support/tracked-files.ts';

/** A line git writes around a conflict it could not resolve (`<<<<<<< HEAD`, `=======`, `>>>>>>> branch`). */
const MARKER = /^(<{7} |={7}$|>{7} )/m;
const TEXT = /\.(ts|js|mjs|json|md|css|html|yaml|yml)$/;

/** Every text file git tracks, relative to the root. */
function trackedTextFiles(): string[] {
  return trackedFiles().filter((path) => TEXT.test(path));
}

/**
 * A merge that left git's conflict markers in a file still builds when the file is Markdown or a
 * comment, and nobody sees both sides were kept until a reader trips on them.
 */
describe('the repository', () => {
  it('holds no unresolved merge conflict markers', () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const marked = files.filter((path) => MARKER.test(readFileSync(resolve(ROOT, path), 'utf8')));
    expect(marked).toEqual([]);
  });
});
