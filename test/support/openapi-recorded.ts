import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, type Harness, UNLIMITED_RATES } from './harness.ts';
import { check, checkSent, type Doc, documentedRoutes, type Seen, validator } from './openapi-document.ts';

// What test/openapi-document.test.ts and test/openapi-flow.test.ts share: one harness whose every
// answer is recorded, the document it serves, and what the flow's answers covered of it.

// The file's harness, every answer it gave and the document it served at the start: live
// bindings that `recordedHarness`'s `beforeAll` sets.
/** The file's harness, its every answer recorded in {@link seen}. */
export let harness: Harness;
/** The document the harness served at the start. */
export let doc: Doc;
/** Every answer the app gave, in order. */
export const seen: Seen[] = [];

/**
 * Starts a harness before the file's tests (closed after them) that records every answer of the
 * app, those of the harness's own helpers (enrollment, admin) too, and reads `GET /openapi.json`.
 */
export function recordedHarness(): void {
  beforeAll(async () => {
    harness = await createHarness({ env: UNLIMITED_RATES });
    // Every answer of the app is recorded, those of the harness's own helpers (enrollment, admin) too.
    const request = harness.app.request.bind(harness.app);
    harness.app.request = (async (input: string | Request | URL, init?: RequestInit) => {
      const response = await request(input as string, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = (input instanceof Request ? input.method : init?.method) ?? 'GET';
      const contentType = response.headers.get('content-type') ?? '';
      // An event stream does not end: its status and type are checked, not its body.
      const text = contentType.startsWith('text/event-stream') ? '' : await response.clone().text();
      const headers = new Headers(init?.headers);
      const sent = typeof init?.body === 'string' ? { contentType: headers.get('content-type') ?? '', text: init.body } : undefined;
      seen.push({ method, path: url.pathname, status: response.status, contentType, text, ...(sent ? { sent } : {}) });
      return response;
    }) as typeof harness.app.request;
    const served = await harness.call('GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toBe('public, max-age=300');
    doc = served.body;
  });

  afterAll(async () => {
    await harness?.close();
  });
}

/** The request bodies the flow's accepted calls must have sent and had checked against the document. */
export const SENT_BODIES = ['POST /bc-authorize', 'POST /token', 'POST /redeem', 'POST /api/admin/clients', 'POST /api/device/enroll/verify', 'POST /api/device/requests/{auth_req_id}/decision'];

/** The answers (operation and status) the flow must reach, refusals included. */
export const FLOW_ANSWERS = [
  'POST /bc-authorize 200',
  'POST /token 200',
  'POST /token 400',
  'POST /redeem 200',
  'POST /redeem 400',
  'POST /redeem 409',
  'POST /redeem 415',
  'POST /redemptions/{redemption_id}/outcome 409',
  'GET /requests/{auth_req_id} 200',
  'POST /requests/{auth_req_id} 401',
  'GET /api/device/requests/{auth_req_id} 200',
  'GET /api/device/requests 401',
  'POST /api/device/enrollments/options 403',
  'POST /api/device/requests/{auth_req_id}/decision 200',
  'PUT /api/admin/tenants/{tenant}/policy 400',
  'GET /api/admin/users/{sub} 401',
  'DELETE /api/device/devices/{device_id} 204',
  'POST /bc-authorize 403',
  'POST /redeem 401',
  'POST /api/device/requests/{auth_req_id}/report 200',
  'POST /api/device/enrollments 201',
  'POST /api/device/mandates/{auth_req_id}/revoke 200',
  'GET /api/device/mandates/{auth_req_id} 200',
  'GET /api/admin/mandates/{auth_req_id}/evidence 200',
  'POST /api/admin/mandates/{auth_req_id}/revoke 200',
  'POST /redeem 403',
  'GET /api/device/events 200',
  'GET /api/admin/users 400',
  'GET /api/admin/clients 400',
  'GET /api/admin/clients/{client_id} 404',
  'DELETE /api/admin/users/{sub}/devices/{device_id} 200',
  'GET /api/admin/users/{sub}/export 200',
  'POST /api/admin/clients/{client_id}/secret 200',
  'DELETE /api/admin/clients/{client_id} 204',
];

/**
 * Checks every recorded answer (and what the call sent) against the document: the problems found,
 * the answers reached as `METHOD /template status`, the operations whose accepted calls' bodies
 * were checked, and the documented operations the flow never reached.
 */
export function coverage(doc: Doc, seen: Seen[]): { problems: string[]; checked: Set<string>; sentChecked: Set<string>; unreached: string[] } {
  const doc2 = validator(doc);
  const problems: string[] = [];
  const checked = new Set<string>();
  const sentChecked = new Set<string>();
  for (const answered of seen) {
    const { key, problem } = check(doc, doc2, answered);
    checked.add(`${key} ${answered.status}`);
    if (problem) problems.push(`${key}: ${problem}`);
    const sentProblem = checkSent(doc, doc2, answered);
    if (sentProblem) problems.push(`${key}: ${sentProblem}`);
    if (answered.sent && answered.status < 300) sentChecked.add(key);
  }
  const operations = new Set([...checked].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
  return { problems, checked, sentChecked, unreached: [...documentedRoutes(doc)].filter((route) => !operations.has(route)) };
}
