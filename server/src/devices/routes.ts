import { CountersignError, decisionBody, enrollOptionsBody, enrollVerifyBody, pushSubscription, reportBody, type RequestView } from '@countersign/shared';
import { Hono, type Context } from 'hono';
import type { Deps } from '../deps.ts';
import { readJson } from '../http/index.ts';
import { consoleClientId } from '../clients/index.ts';
import { isAllowedPushEndpoint, savePushSubscription } from '../push/index.ts';
import { loadRequest, requestDisplay, settleExpiry } from '../requests/index.ts';
import { canView, type Viewer } from '../policy/index.ts';
import { decisionPrompts } from './decision-options.ts';
import { countEnrollmentFailures, limitChanges, limitViews } from './device-limits.ts';
import { readLivePrompts } from './live-prompts.ts';
import { findDevice, listDevices, type DeviceRecord } from './device-record.ts';
import { enrollmentOptions, verifyEnrollment } from './enrollment.ts';
import { eventStreamHandler } from './event-stream.ts';
import { listInbox } from './inbox.ts';
import { registerAccountRoutes } from './manage-routes.ts';
import { requireSameOrigin, requireSession, startSession, type DeviceVariables } from './session.ts';
import { verifyDecision } from './verify-decision.ts';
import type { UserRecord } from '../users/index.ts';

/**
 * The session's user as the policy sees them: `sub` and roles, from the user record
 * `requireSession` read on this call, so a role an operator removes stops working at once.
 * @throws CountersignError `login_required` when the user no longer exists.
 */
function viewerOf(c: Context<{ Variables: DeviceVariables }>): Viewer {
  const user = c.get('user');
  if (!user) throw new CountersignError('login_required', 'This device is no longer enrolled.');
  return { sub: user.sub, roles: user.roles };
}

function whoAmI(deps: Deps, user: UserRecord, device: DeviceRecord) {
  return {
    user: { sub: user.sub, display_name: user.display_name },
    device: { device_id: device.device_id, name: device.name },
    vapid_public_key: deps.vapidPublicKey,
  };
}

/**
 * The approver PWA's API under `/api/device`: enrollment (WebAuthn registration), the push
 * subscription, the inbox (the user's own requests and a reviewer's queue), one request with its
 * decision prompts, the decision, "this wasn't me" (`POST /requests/{id}/report`, with the deny
 * prompt), the history and the user's devices (`manage-routes.ts`), and a live event stream
 * (`event-stream.ts`). Request views, state-changing calls and event streams are limited per
 * session, wrong enrollment codes per source address (`device-limits.ts`), devices per user
 * (`device-cap.ts`). Every state-changing call needs `Origin: PUBLIC_URL`; all but enrollment
 * need the session.
 *
 * @param sessionRoutes - more routes behind the session and its allowance, registered by the
 *   composition (`app.ts`) so that a capability built on devices (mandates) does not make this
 *   folder import it back.
 */
export function deviceRoutes(deps: Deps, sessionRoutes: ((app: Hono<{ Variables: DeviceVariables }>, deps: Deps) => void)[] = []): Hono<{ Variables: DeviceVariables }> {
  const app = new Hono<{ Variables: DeviceVariables }>();
  app.use('*', requireSameOrigin(deps));

  // Wrong enrollment codes are counted per source address (see device-limits.ts).
  app.post('/enroll/options', async (c) => {
    const body = await readJson(c, enrollOptionsBody);
    return c.json(await countEnrollmentFailures(c, deps, () => enrollmentOptions(deps, body.enrollment_code)));
  });

  app.post('/enroll/verify', async (c) => {
    const body = await readJson(c, enrollVerifyBody);
    const { user, device } = await countEnrollmentFailures(c, deps, () => verifyEnrollment(deps, body.enrollment_code, body.response, body.device_name));
    await startSession(c, deps, { tenant: user.tenant, sub: user.sub, device_id: device.device_id });
    return c.json(whoAmI(deps, user, device));
  });

  app.use('*', requireSession(deps));
  // Every call from here on that changes state shares one allowance per session (see device-limits.ts).
  app.use('*', limitChanges(deps));
  // E.g. the person's standing mandates: the list, one with its revoke prompt, the revocation (mandates/routes.ts).
  for (const register of sessionRoutes) register(app, deps);

  app.get('/me', async (c) => {
    const session = c.get('session');
    const user = c.get('user');
    const device = await findDevice(deps.store, session.tenant, session.sub, session.device_id);
    if (!user || !device) throw new CountersignError('login_required', 'This device is no longer enrolled.');
    return c.json(whoAmI(deps, user, device));
  });

  app.put('/push-subscription', async (c) => {
    const session = c.get('session');
    const subscription = await readJson(c, pushSubscription);
    if (!isAllowedPushEndpoint(subscription.endpoint, { production: deps.config.production, allowedHosts: deps.config.pushAllowedHosts })) {
      throw new CountersignError('invalid_request', 'This push endpoint is not accepted.');
    }
    const saved = await savePushSubscription(deps.store, { tenant: session.tenant, sub: session.sub, deviceId: session.device_id }, subscription);
    if (!saved.saved) throw new CountersignError('invalid_request', 'This device has too many push subscriptions.');
    return c.body(null, 204);
  });

  // The inbox and one request share one allowance per session (see device-limits.ts).
  const views = limitViews(deps);

  app.get('/requests', views, async (c) => {
    const session = c.get('session');
    return c.json({ requests: await listInbox(deps, session, viewerOf(c)) }, 200, { 'Cache-Control': 'no-store' });
  });

  app.get('/requests/:auth_req_id', views, async (c) => {
    const session = c.get('session');
    const viewer = viewerOf(c);
    const authReqId = c.req.param('auth_req_id');
    // The user's passkeys and this device's live prompts are read beside the request (the prompts need them when it is pending).
    const [found, devices, live, testClient] = await Promise.all([loadRequest(deps.store, session.tenant, authReqId), listDevices(deps.store, session.tenant, session.sub), readLivePrompts(deps.store, session.tenant, authReqId, session.device_id), consoleClientId(deps.store, session.tenant)]);
    // A device sees its own user's requests and those its user reviews (docs/design.md guarantee 5).
    if (!found || !canView({ sub: found.sub, parties: found.parties ?? ['customer'], approvals: found.approvals ?? [], held_before: found.held_before ?? [] }, viewer)) {
      throw new CountersignError('not_found', 'No such request.');
    }
    const request = await settleExpiry(deps, found);
    let options = null;
    if (request.state === 'pending') {
      // A view shows the device's live challenges again, and is audited once per device: reloading stores nothing new.
      const prompts = await decisionPrompts(deps, request, viewer, devices, session.device_id, live);
      options = prompts.options;
      if (prompts.firstView) await deps.audit.record({ type: 'viewed', tenant: session.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub: session.sub, device_id: session.device_id, channel: 'device' });
    }
    const view: RequestView = { request: requestDisplay(request, deps.clock.now(), viewer, testClient), options };
    return c.json(view, 200, { 'Cache-Control': 'no-store' });
  });

  app.post('/requests/:auth_req_id/decision', async (c) => {
    const session = c.get('session');
    const body = await readJson(c, decisionBody);
    const viewer = viewerOf(c);
    const options = body.selected_code === undefined ? {} : { selected_code: body.selected_code };
    // The console client's id is read beside the decision, not after it: one round trip less.
    const [request, testClient] = await Promise.all([verifyDecision(deps, session, viewer, c.req.param('auth_req_id'), body.decision, body.response, options), consoleClientId(deps.store, session.tenant)]);
    return c.json({ request: requestDisplay(request, deps.clock.now(), viewer, testClient) }, 200, { 'Cache-Control': 'no-store' });
  });

  // "This wasn't me": answered with the request's deny prompt (see `verifyDecision`).
  app.post('/requests/:auth_req_id/report', async (c) => {
    const session = c.get('session');
    const body = await readJson(c, reportBody);
    const viewer = viewerOf(c);
    const [request, testClient] = await Promise.all([verifyDecision(deps, session, viewer, c.req.param('auth_req_id'), 'deny', body.response, { report: true }), consoleClientId(deps.store, session.tenant)]);
    return c.json({ request: requestDisplay(request, deps.clock.now(), viewer, testClient) }, 200, { 'Cache-Control': 'no-store' });
  });

  // History, devices, and a link to add another device: see manage-routes.ts.
  registerAccountRoutes(app, deps);

  // Limited per session: how often one is opened, how many are open at once (event-stream.ts).
  app.get('/events', eventStreamHandler(deps));

  return app;
}
