import { Hono } from 'hono';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The console the server's build bundles (`server/dist/operator-console/`, see `server/copy-assets.mjs`), so a deployed server carries it. */
const BUNDLED_CONSOLE = fileURLToPath(new URL('../operator-console/', import.meta.url));
/** Where the built operator console is: bundled with a built server, else where `pnpm build` puts it in the workspace (`operator-console/dist/`). */
export const CONSOLE_DIST = existsSync(BUNDLED_CONSOLE) ? BUNDLED_CONSOLE : fileURLToPath(new URL('../../../operator-console/dist/', import.meta.url));

/** One file of the console, read once when the routes are built. */
interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  cache: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Every file under `dir`, as paths relative to it with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

/** URL path (below `/console`) → file, for each file of the built console; the page itself at `/`. */
function readConsole(root: string): Map<string, Asset> {
  const files = new Map<string, Asset>();
  for (const name of filesUnder(root)) {
    const isPage = name === 'index.html';
    files.set(isPage ? '/' : `/${name}`, {
      body: new Uint8Array(readFileSync(join(root, name))),
      type: TYPES[extname(name)] ?? 'application/octet-stream',
      // The page is revalidated every time, so an upgraded server never runs with an old console
      // script; the scripts and styles it names are content-hashed (vite), so they never change.
      cache: isPage ? 'no-cache' : 'public, max-age=31536000, immutable',
    });
  }
  return files;
}

/**
 * The operator console at `/console`: the page vite builds from `operator-console/` (its
 * `index.html` at `/console`, its hashed script and style sheet under `/console/assets/`). The
 * page holds no secret and no data: it asks for the admin token, keeps it in the tab's
 * sessionStorage and calls the admin API with it. It runs under the server's CSP as is: its script
 * and styles are files of this origin, with no inline script or style.
 *
 * Without a built console (`pnpm build` not run), `/console` answers 503 `temporarily_unavailable`
 * saying so, and the rest of the server runs.
 *
 * @param root the built console's folder; {@link CONSOLE_DIST} by default.
 * @returns routes to mount at `/console`.
 */
export function consoleRoutes(root: string = CONSOLE_DIST): Hono {
  const app = new Hono();
  if (!existsSync(join(root, 'index.html'))) {
    app.get('*', (c) => c.json({ error: 'temporarily_unavailable', error_description: 'The operator console is not built (run pnpm build).' }, 503));
    return app;
  }
  for (const [path, file] of readConsole(root)) {
    app.get(path, (c) =>
      c.body(file.body, 200, {
        'Content-Type': file.type,
        'Cache-Control': file.cache,
        'X-Robots-Tag': 'noindex',
      }),
    );
  }
  return app;
}
