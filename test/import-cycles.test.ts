import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The capability folders of `server/src` depend on each other in one direction only (STYLE.md: one
 * capability per folder, imported through its `index.ts`): a cycle between two folders means
 * neither can be read, tested or moved without the other. Every relative import and re-export of
 * the server's own code (tests and contract suites aside) is an edge from its file's top-level
 * folder to its target's; `import type` counts too, since a type ties two folders' designs as
 * much as a value does. Files at the top of `server/src` (the composition: `app.ts`, `deps.ts`,
 * `create-deps.ts`, `main.ts`) import every folder and belong to none.
 */

const SERVER_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../server/src');
/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`, relative ones only. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g;
const NOT_SERVER_CODE = /\.(test|case|test-support)\.ts$|\.d\.ts$/;

/** The server's own source files, as paths relative to `server/src`. */
function sourceFiles(folder = SERVER_SRC): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !NOT_SERVER_CODE.test(entry.name) ? [relative(SERVER_SRC, path)] : [];
  });
}

/** The top-level folder a path under `server/src` is in, or null for a file at the top. */
function folderOf(path: string): string | null {
  const parts = path.split('/');
  return parts.length > 1 ? parts[0]! : null;
}

/** Edges between top-level folders, each with the first file that makes it (for the message). */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles()) {
    const from = folderOf(file);
    if (!from) continue;
    for (const [, specifier] of readFileSync(join(SERVER_SRC, file), 'utf8').matchAll(SPECIFIER)) {
      const to = folderOf(relative(SERVER_SRC, resolve(SERVER_SRC, dirname(file), specifier!)));
      if (!to || to === from || to.startsWith('..')) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, file);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every cycle a depth-first search meets, each as its folders in order (the first again at the end). */
function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (folder: string) => {
    state.set(folder, 'open');
    path.push(folder);
    for (const next of [...(graph.get(folder)?.keys() ?? [])].sort()) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(folder, 'done');
  };
  for (const folder of [...graph.keys()].sort()) if (!state.has(folder)) visit(folder);
  return found;
}

describe('server/src folders', () => {
  it('import each other without a cycle', () => {
    const graph = folderGraph();
    // The walk saw the server: the folders that everything builds on are there.
    expect(graph.get('requests')?.has('store')).toBe(true);
    const described = cycles(graph).map((cycle) =>
      cycle
        .slice(1)
        .map((to, i) => `${cycle[i]} → ${to} (${graph.get(cycle[i]!)!.get(to)})`)
        .join(', '),
    );
    expect(described).toStrictEqual([]);
  });
});
