import { createECDH, randomBytes } from 'node:crypto';
import { jsonCall, type CallAnswer, type CallInit } from '../support/json-call.ts';
import { createSoftAuthenticator, type SoftAuthenticator } from '../support/soft-authenticator.ts';

/** A registered client: what an agent holds. */
export interface BenchClient {
  client_id: string;
  client_secret: string;
  /** `Basic base64(id:secret)` (ids and secrets are base64url: nothing to form-encode). */
  authorization: string;
  /** A ping client's `client_notification_token`, sent with each of its requests. */
  notification_token?: string;
}

/** An enrolled user: a software passkey and its device session. */
export interface BenchUser {
  sub: string;
  authenticator: SoftAuthenticator;
  /** `cs_device=…` as the PWA would send it. */
  cookie: string;
}

/** Talks to one Countersign server over HTTP, the way the operator and the approver PWA do. */
export interface CountersignApi {
  /** `http://127.0.0.1:PORT`, where requests are sent. */
  target: string;
  /** `PUBLIC_URL` (`http://localhost:PORT`): the origin the PWA has. */
  publicUrl: string;
  call(method: string, path: string, init?: CallInit): Promise<CallAnswer>;
  /** Registers a client; `metadata` adds to its name (a ping client's delivery mode and endpoint). */
  createClient(name: string, metadata?: Record<string, string>): Promise<BenchClient>;
  /** Creates the user and enrolls one software passkey through the device API. */
  enrollUser(sub: string, counter: 'increment' | 'fixed'): Promise<BenchUser>;
  /** Registers a Web Push subscription for the user's device. */
  subscribePush(user: BenchUser, endpoint: string): Promise<void>;
}

export function countersignApi(target: string, publicUrl: string, adminToken: string): CountersignApi {
  const call: CountersignApi['call'] = jsonCall((path, init) => fetch(`${target}${path}`, init));
  const admin = (method: string, path: string, body?: unknown) => call(method, `/api/admin${path}`, { body, headers: { authorization: `Bearer ${adminToken}` } });
  const expect = (what: string, answer: { status: number; body: unknown }, ...ok: number[]) => {
    if (!ok.includes(answer.status)) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  };
  const device = (user: BenchUser, method: string, path: string, body?: unknown) => call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: publicUrl } });

  return {
    target,
    publicUrl,
    call,
    async createClient(name, metadata = {}) {
      const answer = await admin('POST', '/clients', { name, ...metadata });
      expect('create client', answer, 201);
      const { client_id, client_secret } = answer.body as { client_id: string; client_secret: string };
      return { client_id, client_secret, authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}` };
    },
    async enrollUser(sub, counter) {
      expect('create user', await admin('POST', '/users', { sub, display_name: sub }), 200, 201);
      const enrollment = await admin('POST', `/users/${sub}/enrollments`);
      expect('create enrollment', enrollment, 201);
      const code = (enrollment.body as { enrollment_code: string }).enrollment_code;
      const authenticator = createSoftAuthenticator({ origin: publicUrl, rpId: new URL(publicUrl).hostname, counter });
      const options = await call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: publicUrl } });
      expect('enrollment options', options, 200);
      const response = await authenticator.register(options.body);
      const verify = await call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response, device_name: `bench ${sub}` }, headers: { origin: publicUrl } });
      expect('enrollment', verify, 200);
      const cookie = (verify.headers.get('set-cookie') ?? '').split(';')[0]!;
      return { sub, authenticator, cookie };
    },
    async subscribePush(user, endpoint) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const subscription = { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
      expect('push subscription', await device(user, 'PUT', '/push-subscription', subscription), 204);
    },
  };
}

/** Runs `task` over `items` with at most `concurrency` at a time; answers the results in order. */
export async function mapLimit<T, R>(items: T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}
