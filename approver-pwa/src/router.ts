/** The screens, addressed in the URL fragment so codes and ids never reach server logs. */
export type Route = { name: 'inbox' } | { name: 'enroll'; code: string } | { name: 'request'; authReqId: string } | { name: 'history' } | { name: 'devices' } | { name: 'mandates' } | { name: 'mandate'; authReqId: string } | { name: 'not_found' };

/**
 * Reads a route from `location.hash`: `#/` (or nothing) the inbox, `#/enroll/<code>` the
 * enrollment link, `#/requests/<auth_req_id>` one request, `#/history` past requests,
 * `#/devices` the user's devices, `#/mandates` their standing mandates and
 * `#/mandates/<auth_req_id>` one mandate.
 */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '' || path === '/') return { name: 'inbox' };
  if (path === '/history') return { name: 'history' };
  if (path === '/devices') return { name: 'devices' };
  if (path === '/mandates') return { name: 'mandates' };
  const [, first, second, ...rest] = path.split('/');
  if (path.startsWith('/') && second && rest.length === 0) {
    const value = decode(second);
    if (value && first === 'enroll') return { name: 'enroll', code: value };
    if (value && first === 'requests') return { name: 'request', authReqId: value };
    if (value && first === 'mandates') return { name: 'mandate', authReqId: value };
  }
  return { name: 'not_found' };
}

/** The fragment of a request's screen. */
export function requestHref(authReqId: string): string {
  return `#/requests/${encodeURIComponent(authReqId)}`;
}

/** The fragment of a mandate's screen. */
export function mandateHref(authReqId: string): string {
  return `#/mandates/${encodeURIComponent(authReqId)}`;
}

/** Calls `show` with the current route now and on every change of the fragment. */
export function startRouter(show: (route: Route) => void): void {
  const go = () => show(parseRoute(location.hash));
  addEventListener('hashchange', go);
  go();
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
