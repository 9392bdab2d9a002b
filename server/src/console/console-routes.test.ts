import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from './console-routes.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A folder shaped like `operator-console/dist/`: the page and a hashed script and style sheet. */
function builtConsole(): string {
  const root = mkdtempSync(join(tmpdir(), 'console-dist-'));
  made.push(root);
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(root, 'assets', 'index-Ab1_c2.js'), 'export {};');
  writeFileSync(join(root, 'assets', 'index-Xy9.css'), 'body{}');
  return root;
}

const answer = async (response: Response) => ({ status: response.status, type: response.headers.get('content-type'), cache: response.headers.get('cache-control'), body: await response.text() });

describe('consoleRoutes', () => {
  it('serves the built page at / (revalidated) and its hashed files under /assets/ (kept)', async () => {
    const app = consoleRoutes(builtConsole());
    expect(await answer(await app.request('/'))).toEqual({ status: 200, type: 'text/html; charset=utf-8', cache: 'no-cache', body: '<!doctype html><title>console</title>' });
    expect(await answer(await app.request('/assets/index-Ab1_c2.js'))).toEqual({ status: 200, type: 'text/javascript; charset=utf-8', cache: 'public, max-age=31536000, immutable', body: 'export {};' });
    expect(await answer(await app.request('/assets/index-Xy9.css'))).toMatchObject({ status: 200, type: 'text/css; charset=utf-8', body: 'body{}' });
    expect((await app.request('/index.html')).status).toBe(404);
    expect((await app.request('/assets/missing.js')).status).toBe(404);
  });

  it('answers 503 temporarily_unavailable, not a crash, when the console is not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-dist-'));
    made.push(empty);
    const response = await consoleRoutes(empty).request('/');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'The operator console is not built (run pnpm build).' });
  });
});
