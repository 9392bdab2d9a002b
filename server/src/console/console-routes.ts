import { Hono } from 'hono';
import { readFileSync } from 'node:fs';

/** One file of the console page, read once when the routes are built. */
interface Asset {
  body: string;
  type: string;
}

function asset(name: string, type: string): Asset {
  return { body: readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8'), type };
}

/**
 * The operator console at `/console`: a static page (`assets/console.html`), its script (with
 * the modules it imports) and its style sheet. The page holds no secret and no data: it asks for
 * the admin token, keeps it in the tab's sessionStorage and calls the admin API with it. It runs
 * under the server's CSP as is: its script and styles are files of this origin, with no inline
 * script or style.
 *
 * @returns routes to mount at `/console`.
 */
export function consoleRoutes(): Hono {
  const files: Record<string, Asset> = {
    '/': asset('console.html', 'text/html; charset=utf-8'),
    '/console.js': asset('console.js', 'text/javascript; charset=utf-8'),
    // Modules console.js imports (same origin, so script-src 'self' allows them).
    '/console-dom.js': asset('console-dom.js', 'text/javascript; charset=utf-8'),
    '/console-samples.js': asset('console-samples.js', 'text/javascript; charset=utf-8'),
    '/console-directory.js': asset('console-directory.js', 'text/javascript; charset=utf-8'),
    '/console.css': asset('console.css', 'text/css; charset=utf-8'),
  };
  const app = new Hono();
  for (const [path, file] of Object.entries(files)) {
    app.get(path, (c) =>
      c.body(file.body, 200, {
        'Content-Type': file.type,
        // Revalidated every time: an upgraded server never runs with an old console script.
        'Cache-Control': 'no-cache',
        'X-Robots-Tag': 'noindex',
      }),
    );
  }
  return app;
}
