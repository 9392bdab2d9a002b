import { setTimeout as sleep } from 'node:timers/promises';
import { createSoftAuthenticator, type SoftAuthenticator } from '../support/soft-authenticator.ts';
import type { ServerProcess } from './processes.ts';

/** One HTTP answer the suite got (or the network error in its place), as counted in the figures. */
export interface Answer {
  instance: string;
  /** `POST /redeem`, `GET /api/device/requests/:id`… (ids replaced, so answers group by route). */
  route: string;
  /** The HTTP status; 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  /** The OAuth `error` of the body, or `status` of a redemption. */
  code?: string;
  retryAfter?: string | null;
  networkError?: string;
  /** Milliseconds from the call to its whole answer. */
  ms: number;
}

/** Whether an answer is a 5xx the server may not give: only 503 `temporarily_unavailable` is allowed (Redis unreachable). */
export function isForbidden5xx(answer: Answer): boolean {
  return answer.status >= 500 && !(answer.status === 503 && answer.code === 'temporarily_unavailable');
}

/** The answer to one call: status, parsed JSON body (or text), headers; status 0 on a network error. */
export interface Reply {
  status: number;
  body: any;
  headers: Headers;
  networkError?: string;
}

/** Per-call timeout: longer than any Redis command timeout, so a hung server is an answer of its own. */
const CALL_TIMEOUT_MS = 15_000;

/**
 * Talks HTTP to the spawned server instances, as agents, the operator and the person's phone do,
 * and records every answer in {@link ChaosHttp.answers} (the figures and the "no 5xx" check read it).
 * Every instance is one deployment: they share `PUBLIC_URL` (the token issuer and the WebAuthn
 * origin), as instances behind one load balancer do.
 */
export class ChaosHttp {
  readonly answers: Answer[] = [];
  constructor(
    readonly publicUrl: string,
    readonly adminToken: string,
  ) {}

  /** One call to one instance. Bodies: `json` (JSON) or `form` (form-encoded). */
  async call(instance: ServerProcess, method: string, path: string, init: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    // Ids (auth_req_id, redemption id) are the long segments: grouped, answers read by route.
    const route = `${method} ${path.replace(/\?.*$/, '').replace(/\/[^/]{16,}/g, '/:id')}`;
    const started = performance.now();
    try {
      const response = await fetch(`${instance.url}${path}`, { method, headers, body, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
      const text = await response.text();
      let parsed: any = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      const code = typeof parsed?.error === 'string' ? parsed.error : typeof parsed?.status === 'string' ? parsed.status : undefined;
      this.answers.push({ instance: instance.name, route, status: response.status, ...(code ? { code } : {}), retryAfter: response.headers.get('retry-after'), ms: performance.now() - started });
      return { status: response.status, body: parsed, headers: response.headers };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const networkError = cause?.code ?? cause?.message ?? (error as Error).name;
      this.answers.push({ instance: instance.name, route, status: 0, networkError, ms: performance.now() - started });
      return { status: 0, body: null, headers: new Headers(), networkError };
    }
  }

  admin(instance: ServerProcess, method: string, path: string, json?: unknown): Promise<Reply> {
    return this.call(instance, method, `/api/admin${path}`, { ...(json === undefined ? {} : { json }), headers: { authorization: `Bearer ${this.adminToken}` } });
  }

  /** Registers a client; `ping` with the receiver's URL as its notification endpoint. */
  async createClient(instance: ServerProcess, name: string, ping?: { endpoint: string }): Promise<ChaosClient> {
    const reply = await this.admin(instance, 'POST', '/clients', ping ? { name, token_delivery_mode: 'ping', backchannel_client_notification_endpoint: ping.endpoint } : { name });
    if (reply.status !== 201) throw new Error(`client not created: ${reply.status} ${JSON.stringify(reply.body)}`);
    return { id: reply.body.client_id, secret: reply.body.client_secret, basic: `Basic ${Buffer.from(`${reply.body.client_id}:${reply.body.client_secret}`).toString('base64')}` };
  }

  /**
   * Creates the user and enrolls a software passkey through the device API (enrollment code from
   * the admin API, WebAuthn registration, the device session cookie). The passkey's counter stays
   * 0, as a synced passkey's does: assertions signed ahead and sent at once arrive in any order,
   * and an incrementing counter would refuse the ones that arrive late.
   */
  async enroll(instance: ServerProcess, sub: string): Promise<ChaosUser> {
    await this.admin(instance, 'POST', '/users', { sub, display_name: sub });
    const enrollment = await this.admin(instance, 'POST', `/users/${sub}/enrollments`);
    const code = enrollment.body.enrollment_code as string;
    const authenticator = createSoftAuthenticator({ origin: this.publicUrl, rpId: new URL(this.publicUrl).hostname, counter: 'fixed' });
    const origin = { origin: this.publicUrl };
    const options = await this.call(instance, 'POST', '/api/device/enroll/options', { json: { enrollment_code: code }, headers: origin });
    const response = await authenticator.register(options.body);
    const verify = await this.call(instance, 'POST', '/api/device/enroll/verify', { json: { enrollment_code: code, response, device_name: 'Chaos phone' }, headers: origin });
    if (verify.status !== 200) throw new Error(`enrollment failed: ${verify.status} ${JSON.stringify(verify.body)}`);
    const cookie = (verify.headers.getSetCookie()[0] ?? '').split(';')[0]!;
    return { sub, authenticator, cookie };
  }

  /** `POST /bc-authorize` for `details`, with a notification token for a ping client. */
  ask(instance: ServerProcess, client: ChaosClient, user: ChaosUser, details: unknown, notificationToken?: string): Promise<Reply> {
    return this.call(instance, 'POST', '/bc-authorize', {
      form: { scope: 'openid', login_hint: user.sub, authorization_details: JSON.stringify(details), ...(notificationToken ? { client_notification_token: notificationToken } : {}) },
      headers: { authorization: client.basic },
    });
  }

  /** The person opens the request on the phone: the view with its live challenges (`options.approve`). */
  view(instance: ServerProcess, user: ChaosUser, authReqId: string): Promise<Reply> {
    return this.call(instance, 'GET', `/api/device/requests/${authReqId}`, { headers: { cookie: user.cookie } });
  }

  /** The person's approval: the passkey signs the view's `approve` prompt; the decision is posted. */
  async signApproval(user: ChaosUser, view: Reply): Promise<unknown> {
    return user.authenticator.authenticate(view.body.options.approve);
  }

  postDecision(instance: ServerProcess, user: ChaosUser, authReqId: string, response: unknown): Promise<Reply> {
    return this.call(instance, 'POST', `/api/device/requests/${authReqId}/decision`, { json: { decision: 'approve', response }, headers: { cookie: user.cookie, origin: this.publicUrl } });
  }

  /** `POST /token` (CIBA grant), once: a poll sooner than `interval` would be `slow_down`. */
  token(instance: ServerProcess, client: ChaosClient, authReqId: string): Promise<Reply> {
    return this.call(instance, 'POST', '/token', { form: { grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: authReqId }, headers: { authorization: client.basic } });
  }

  redeem(instance: ServerProcess, client: ChaosClient, accessToken: string, details: unknown): Promise<Reply> {
    return this.call(instance, 'POST', '/redeem', { json: { token: accessToken, authorization_details: details }, headers: { authorization: client.basic } });
  }
}

/** A registered client's credentials. */
export interface ChaosClient {
  id: string;
  secret: string;
  /** `Basic base64(id:secret)` (the ids and secrets need no form-encoding). */
  basic: string;
}

/** An enrolled person: their software passkey and device session cookie. */
export interface ChaosUser {
  sub: string;
  authenticator: SoftAuthenticator;
  cookie: string;
}

/** Whether a reply is worth trying again: no answer, or 503 `temporarily_unavailable`. */
export function isRetryable(reply: Reply): boolean {
  return reply.status === 0 || (reply.status === 503 && reply.body?.error === 'temporarily_unavailable');
}

/**
 * Calls `attempt` (given the try's number) until its reply is not {@link isRetryable} or
 * `deadline` (epoch ms) passes, waiting `backoffMs` between tries.
 *
 * @returns every reply, the last one being the final answer.
 */
export async function withRetries(attempt: (tryNumber: number) => Promise<Reply>, deadline: number, backoffMs = 150): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let tryNumber = 0; ; tryNumber++) {
    const reply = await attempt(tryNumber);
    replies.push(reply);
    if (!isRetryable(reply) || Date.now() > deadline) return replies;
    await sleep(backoffMs);
  }
}

/** Runs `fn` over `items`, at most `limit` at once; answers in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await fn(items[index]!, index);
      }
    }),
  );
  return results;
}
