import { createSoftAuthenticator, type AssertionOverrides, type SoftAuthenticatorOptions } from './soft-authenticator.ts';
import type { EnrolledUser, Harness } from './harness-types.ts';

// The person's phone, played through the real device API: enrolling a software passkey and
// deciding a request with it (`Harness.enrollUser`, `Harness.decide`).

/** What the phone's helpers need of a harness: its issuer (the page's origin) and its callers. */
export type PhoneHarness = Pick<Harness, 'issuer' | 'call' | 'admin'>;

/** A device API call as `user`'s phone makes it: their session cookie, the issuer as origin. */
function device(harness: PhoneHarness, user: EnrolledUser, method: string, path: string, body?: unknown) {
  return harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: harness.issuer } });
}

/**
 * Creates the user `sub` and an enrollment through the admin API, and registers a fresh software
 * passkey through the device API (`/api/device/enroll/options`, `/verify`).
 * @throws Error when the enrollment is not verified (200).
 */
export async function enrollUser(harness: PhoneHarness, sub: string, authenticatorOptions: Partial<SoftAuthenticatorOptions> = {}): Promise<EnrolledUser> {
  const { issuer, call, admin } = harness;
  await admin('POST', '/users', { sub, display_name: sub });
  const enrollment = await admin('POST', `/users/${sub}/enrollments`);
  const code = enrollment.body.enrollment_code as string;
  const authenticator = createSoftAuthenticator({ origin: issuer, rpId: new URL(issuer).hostname, ...authenticatorOptions });
  const optionsCall = await call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: issuer } });
  const response = await authenticator.register(optionsCall.body);
  const verify = await call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response, device_name: 'Test phone' }, headers: { origin: issuer } });
  if (verify.status !== 200) throw new Error(`enrollment failed: ${JSON.stringify(verify.body)}`);
  const cookie = (verify.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { sub, authenticator, cookie };
}

/**
 * Opens the request on `user`'s phone and decides it with the passkey; answers the decision call,
 * or the view itself when it is not 200 or offers no prompts.
 */
export async function decideRequest(harness: PhoneHarness, user: EnrolledUser, authReqId: string, decision: 'approve' | 'deny', overrides?: AssertionOverrides): Promise<{ status: number; body: any }> {
  const view = await device(harness, user, 'GET', `/requests/${authReqId}`);
  if (view.status !== 200 || !view.body.options) return view;
  const response = await user.authenticator.authenticate(view.body.options[decision], overrides);
  return device(harness, user, 'POST', `/requests/${authReqId}/decision`, { decision, response });
}
