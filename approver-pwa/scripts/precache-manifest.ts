import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix, relative, resolve, sep } from 'node:path';
import type { Plugin } from 'vite';

/**
 * The string the service worker holds in place of its precache manifest until the build writes
 * the real one in (see `src/sw/precache.ts`).
 */
export const PRECACHE_PLACEHOLDER = '__COUNTERSIGN_PRECACHE_MANIFEST__';

/** What the build writes into the service worker: the app shell's files and their version. */
export interface PrecacheManifest {
  /** A digest of every precached file's path and bytes: it names the shell's cache. */
  version: string;
  /** Root-relative URLs of the files to precache, sorted. */
  urls: string[];
}

/** Options of {@link precacheManifest}. */
export interface PrecacheManifestOptions {
  /** The service worker's file in the output directory; `sw.js` by default. */
  serviceWorker?: string;
  /** Files never precached, by output-relative path; source maps by default. */
  exclude?: RegExp[];
}

/**
 * A Vite plugin that, once the build has written everything (`closeBundle`, after the public
 * directory was copied), lists the output directory, the app shell (`index.html`, the hashed
 * JS and CSS, the icons, the web app manifest), and writes that list and a content digest into
 * the service worker in place of {@link PRECACHE_PLACEHOLDER}.
 *
 * Why a digest and not a build time: the service worker's bytes change exactly when a shell file
 * changes, so browsers install a new worker (and a new versioned cache) only when there is
 * something new to fetch; an unchanged rebuild leaves phones alone.
 *
 * @throws Error when the placeholder is not found exactly once in the service worker: a build
 *   whose worker would precache nothing must fail, not ship.
 */
export function precacheManifest(options: PrecacheManifestOptions = {}): Plugin {
  const serviceWorker = options.serviceWorker ?? 'sw.js';
  const exclude = options.exclude ?? [/\.map$/];
  let outDir = '';
  return {
    name: 'countersign:precache-manifest',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await listFiles(outDir)).filter((path) => path !== serviceWorker && !exclude.some((pattern) => pattern.test(path)));
      const digest = createHash('sha256');
      for (const path of files) {
        const bytes = await readFile(join(outDir, path));
        digest.update(`${path}\0${createHash('sha256').update(bytes).digest('hex')}\n`);
      }
      const manifest: PrecacheManifest = { version: digest.digest('hex').slice(0, 16), urls: files.map((path) => `/${path}`) };
      const swPath = join(outDir, serviceWorker);
      await writeFile(swPath, injectManifest(await readFile(swPath, 'utf8'), manifest));
    },
  };
}

/**
 * Replaces the quoted placeholder in the worker's code with the manifest as a JSON string literal
 * (the worker `JSON.parse`s it), whatever quotes the minifier chose.
 */
export function injectManifest(code: string, manifest: PrecacheManifest): string {
  const quoted = new RegExp(`(["'\`])${PRECACHE_PLACEHOLDER}\\1`, 'g');
  const found = code.match(quoted)?.length ?? 0;
  if (found !== 1) throw new Error(`the service worker must hold the precache placeholder exactly once, found ${found}`);
  return code.replace(quoted, () => JSON.stringify(JSON.stringify(manifest)));
}

/** Every file under `root`, as sorted POSIX paths relative to it. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join(posix.sep))
    .sort();
}
