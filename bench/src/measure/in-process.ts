import { connectRedisStore, createApp, createDeps, loadConfig, OffsetClock, silentLogger, type PushSender, type Store } from '@countersign/server';
import { createECDH, randomBytes } from 'node:crypto';
import { benchRateLimits } from '../config.ts';
import { mapLimit } from '../countersign/api.ts';
import { jsonCall, withDeadline, type CallAnswer, type CallInit } from '../support/json-call.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';

/**
 * A Countersign instance inside the benchmark's own process, on the benchmark's Redis under its
 * own key prefix, built with the server's public API (`createDeps`, `createApp`) exactly as
 * `main.ts` builds it, and called with `app.request` (no socket). Used where a measurement needs
 * the server's code but not its HTTP (memory per request, the expiry sweep, window growth).
 */
export interface Twin {
  app: { request(input: string, init?: RequestInit): Response | Promise<Response> };
  deps: Awaited<ReturnType<typeof createDeps>>;
  store: Store;
  clock: OffsetClock;
  prefix: string;
  publicUrl: string;
  call(method: string, path: string, init?: CallInit): Promise<CallAnswer>;
  /** Registers clients (in `tenant`, `default` by default); answers their `Authorization` headers and ids. */
  createClients(count: number, tenant?: string): Promise<{ client_id: string; authorization: string }[]>;
  /** Creates and enrolls users (one software passkey each), optionally with a push subscription. */
  enrollUsers(subs: string[], push: boolean, tenant?: string): Promise<void>;
  close(): Promise<void>;
}

/** Longest one in-process call may take (they take milliseconds). */
const CALL_DEADLINE_MS = 30_000;

/** A push sender that accepts every message at once: the request's push bookkeeping runs, no network does. */
export const acceptingPushSender: PushSender = { send: async () => ({ status: 'sent', statusCode: 201 }) };

export async function startTwin(redisUrl: string, prefix: string, options: { policyFile: string | null; pushSender?: PushSender }): Promise<Twin> {
  const publicUrl = 'http://localhost:9';
  const adminToken = `twin-admin-${randomBytes(12).toString('hex')}`;
  const clock = new OffsetClock();
  const store = await connectRedisStore(redisUrl, { prefix });
  const config = loadConfig({ PUBLIC_URL: publicUrl, NODE_ENV: 'development', POLL_INTERVAL: '1', ...benchRateLimits(), ...(options.policyFile ? { POLICY_FILE: options.policyFile } : {}) });
  const deps = await createDeps(config, store, { clock, log: silentLogger, pushSender: options.pushSender ?? acceptingPushSender });
  const app = createApp(deps, { adminToken, pwaRoot: false });

  // A call that never answers fails naming itself, so a stuck measurement says where it stuck.
  const call: Twin['call'] = jsonCall(async (path, init) => withDeadline(`in-process ${init.method} ${path}`, CALL_DEADLINE_MS, Promise.resolve(app.request(`${publicUrl}${path}`, init))));
  const admin = (method: string, path: string, body?: unknown) => call(method, `/api/admin${path}`, { body, headers: { authorization: `Bearer ${adminToken}` } });
  const must = <T extends { status: number; body: any }>(what: string, answer: T): T => {
    if (answer.status >= 300) throw new Error(`twin ${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };

  return {
    app,
    deps,
    store,
    clock,
    prefix,
    publicUrl,
    call,
    async createClients(count, tenant = 'default') {
      return mapLimit(
        Array.from({ length: count }, (_, i) => i),
        4,
        async (i) => {
          const { body } = must('client', await admin('POST', '/clients', { name: `Twin agent ${i}`, tenant }));
          return { client_id: body.client_id as string, authorization: `Basic ${Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')}` };
        },
      );
    },
    async enrollUsers(subs, push, tenant = 'default') {
      await mapLimit(subs, 8, async (sub) => {
        must('user', await admin('POST', '/users', { sub, display_name: sub, tenant }));
        const code = must('enrollment', await admin('POST', `/users/${sub}/enrollments`, { tenant })).body.enrollment_code as string;
        const authenticator = createSoftAuthenticator({ origin: publicUrl, rpId: 'localhost', counter: 'fixed' });
        const options = must('enroll options', await call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: publicUrl } }));
        const response = await authenticator.register(options.body);
        const verify = must('enroll', await call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response, device_name: 'twin' }, headers: { origin: publicUrl } }));
        if (!push) return;
        const cookie = (verify.headers.get('set-cookie') ?? '').split(';')[0]!;
        const ecdh = createECDH('prime256v1');
        ecdh.generateKeys();
        const subscription = { endpoint: `https://push.bench.invalid/${sub}`, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
        must('push subscription', await call('PUT', '/api/device/push-subscription', { body: subscription, headers: { cookie, origin: publicUrl } }));
      });
    },
    async close() {
      await deps.background.drain();
      await store.close();
    },
  };
}
