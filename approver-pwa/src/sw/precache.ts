/**
 * The app shell's offline cache: what is precached, under which cache name, and which requests
 * the service worker answers from it. Pure functions, so they are unit-tested without a browser.
 *
 * Strategy:
 * - the shell (`index.html` for a navigation to `/`, and the built JS, CSS, icons and web app
 *   manifest) is cache-first, from a cache named after the build's digest;
 * - the API (`/api/…`) is never cached nor answered by the worker: a decision must never be
 *   made on a stale request, and an offline API call must fail, so the app can say it is offline;
 * - everything else (the operator console, discovery, other origins) goes to the network untouched.
 */

/** The list of shell files and their digest, written into `sw.js` by the build. */
export interface PrecacheManifest {
  version: string;
  urls: string[];
}

/** Every shell cache's name starts with this; the version follows. */
export const SHELL_CACHE_PREFIX = 'countersign-shell-';

/** The cached copy of the page that every navigation to `/` is answered with. */
export const SHELL_DOCUMENT = '/index.html';

/**
 * Replaced by the build (`scripts/precache-manifest.ts`) with the manifest as a JSON string.
 * Kept as a plain string literal so the minifier leaves it whole.
 */
export const INJECTED_MANIFEST = '__COUNTERSIGN_PRECACHE_MANIFEST__';

/**
 * Reads the manifest the build injected. Without one (the `vite` dev server, which serves no
 * `sw.js` anyway) it answers an empty `dev` manifest: nothing is precached, everything is network.
 */
export function readPrecacheManifest(injected: string = INJECTED_MANIFEST): PrecacheManifest {
  try {
    const value = JSON.parse(injected) as Partial<PrecacheManifest> | null;
    if (value && typeof value.version === 'string' && Array.isArray(value.urls) && value.urls.every((url) => typeof url === 'string')) {
      return { version: value.version, urls: value.urls };
    }
  } catch {
    // The placeholder itself: not JSON.
  }
  return { version: 'dev', urls: [] };
}

/** The name of the cache holding one version of the shell. */
export function shellCacheName(version: string): string {
  return `${SHELL_CACHE_PREFIX}${version}`;
}

/**
 * The caches to delete when a version activates: every other shell version. Caches that are not
 * the shell's (another app on this origin, a future `countersign-state-…`) are left alone.
 */
export function staleCacheNames(names: readonly string[], current: string): string[] {
  return names.filter((name) => name.startsWith(SHELL_CACHE_PREFIX) && name !== current);
}

/** How the worker answers one request. */
export type FetchStrategy =
  /** Answer with the cached `index.html`, or the network when it is not cached. */
  | 'shell'
  /** Answer with the cached copy of this very URL, or the network. */
  | 'precached'
  /** Do not answer: the browser goes to the network as if there were no worker. */
  | 'network';

/** What {@link fetchStrategy} reads of a `Request`. */
export interface RequestLike {
  method: string;
  url: string;
  mode: RequestMode;
}

/**
 * Decides how the worker answers a request (see the module's summary). Only GETs of this origin
 * are ever answered from the cache; `/api/` never is, whatever the manifest holds.
 *
 * @param request The request's method, URL and mode.
 * @param origin The worker's origin.
 * @param manifest The shell's files.
 */
export function fetchStrategy(request: RequestLike, origin: string, manifest: PrecacheManifest): FetchStrategy {
  if (request.method !== 'GET') return 'network';
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return 'network';
  }
  if (url.origin !== origin) return 'network';
  if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return 'network';
  if (url.pathname === '/sw.js') return 'network';
  if (request.mode === 'navigate') {
    // Only the app's own page: `/console` and anything else the server serves stay live.
    return url.pathname === '/' || url.pathname === SHELL_DOCUMENT ? 'shell' : 'network';
  }
  // A query string would be a different resource than the one precached.
  return url.search === '' && manifest.urls.includes(url.pathname) ? 'precached' : 'network';
}
