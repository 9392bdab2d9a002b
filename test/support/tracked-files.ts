import { execFileSync } from 'node:child_process';
import { ROOT } from './packed-project.ts';

/**
 * Every file git tracks, as paths relative to the repository's root with `/` separators, in git's
 * order. Read from the index, so a file on disk that git ignores is not in it.
 *
 * @throws when `git` is missing or the root is not a repository.
 */
export function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
}
