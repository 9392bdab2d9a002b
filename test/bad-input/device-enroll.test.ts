import { describe, expect, it } from 'vitest';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';
import { type Attack, EVIL, device } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { type World, FORM, txn } from './support/world.ts';

/**
 * Bad input on `POST /api/device/enroll/*`: Origins, used, unknown and malformed codes, bodies,
 * and registrations that are garbage or made for another origin.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Afterwards, a fresh code still enrolls a device and the used one still does not.
 */

/** A fresh enrollment for a new user, with registration options already asked for. */
async function freshEnrollment(w: World): Promise<{ code: string; options: any }> {
  const sub = `enrollee_${txn()}`;
  await w.h.admin('POST', '/users', { sub });
  const code = (await w.h.admin('POST', `/users/${sub}/enrollments`)).body.enrollment_code as string;
  const options = await w.h.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: w.h.issuer } });
  return { code, options: options.body };
}

const enrollAttacks: Attack[] = [
  { name: 'options without Origin', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: null })), status: 403, error: 'invalid_origin' },
  { name: 'options from another Origin', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: EVIL })), status: 403, error: 'invalid_origin' },
  { name: 'options from Origin null', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: 'null' })), status: 403, error: 'invalid_origin' },
  { name: 'options from an Origin that only starts like PUBLIC_URL', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, origin: `${w.h.issuer}.evil.example` })), status: 403, error: 'invalid_origin' },
  { name: 'options with a reused code', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'options with an unknown code', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 'u'.repeat(32) } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'options with a code with braces (a key injection)', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: `${w.usedCode}}:{x` } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'options with a code of 10 KB', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 'u'.repeat(10_240) } })), status: 400, error: 'invalid_request' },
  { name: 'options with a code that is a number', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 12345678 } })), status: 400, error: 'invalid_request' },
  { name: 'options with an unknown field', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode, sub: 'alice' } })), status: 400, error: 'invalid_request' },
  { name: 'options with JSON that is not valid', request: device(() => ({ method: 'POST', path: '/enroll/options', body: '{"enrollment_code":' })), status: 400, error: 'invalid_request' },
  { name: 'options with a JSON array', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: [{ enrollment_code: w.usedCode }] })), status: 400, error: 'invalid_request' },
  { name: 'options with a form body', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: `enrollment_code=${w.usedCode}`, type: FORM })), status: 415, error: 'invalid_request' },
  { name: 'options with no content type', request: device((w) => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: w.usedCode }, type: null })), status: 415, error: 'invalid_request' },
  { name: 'options with a body over 64 KB', request: device(() => ({ method: 'POST', path: '/enroll/options', body: { enrollment_code: 'u'.repeat(70_000) } })), status: 413, error: 'request_too_large' },
  { name: 'verify without Origin', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {} }, origin: null })), status: 403, error: 'invalid_origin' },
  { name: 'verify with a reused code', request: device((w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: w.usedCode, response: { id: 'x' } } })), status: 400, error: 'invalid_enrollment_code' },
  { name: 'verify with an unknown code', request: device(() => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: 'u'.repeat(32), response: { id: 'x' } } })), status: 400, error: 'invalid_enrollment_code' },
  {
    name: 'verify with a garbage response (the code is spent, by design)',
    request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: { id: 'x', response: { clientDataJSON: '!!!' } } } })),
    status: 400,
    error: 'invalid_assertion',
    consumes: /^enroll:\{/,
  },
  {
    name: 'verify with a registration made for another origin (the code is spent, by design)',
    request: device(async (w) => {
      const { code, options } = await freshEnrollment(w);
      const phone = createSoftAuthenticator({ origin: EVIL, rpId: new URL(w.h.issuer).hostname });
      return { method: 'POST', path: '/enroll/verify', body: { enrollment_code: code, response: await phone.register(options) } };
    }),
    status: 400,
    error: 'invalid_assertion',
    consumes: /^enroll:\{/,
  },
  ...(
    [
      ['7,000 transports', Array(7000).fill('usb')],
      ['a transport name of 5,000 characters', ['x'.repeat(5000)]],
      ['transports that are a string', 'usb'],
    ] as const
  ).map(
    ([what, transports]): Attack => ({
      name: `verify with ${what} (refused before the code is spent)`,
      request: device(async (w) => {
        const { code, options } = await freshEnrollment(w);
        const registration = await createSoftAuthenticator({ origin: w.h.issuer, rpId: new URL(w.h.issuer).hostname }).register(options);
        return { method: 'POST', path: '/enroll/verify', body: { enrollment_code: code, response: { ...registration, response: { ...registration.response, transports } } } };
      }),
      status: 400,
      error: 'invalid_request',
    }),
  ),
  { name: 'verify with a response that is a string (refused before the code is spent)', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: 'garbage' } })), status: 400, error: 'invalid_request' },
  { name: 'verify without a response', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code } })), status: 400, error: 'invalid_request' },
  { name: 'verify with a device name with a bidi override', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {}, device_name: 'Phone \u202Eenohp' } })), status: 400, error: 'invalid_request' },
  { name: 'verify with a device name of 65 characters', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {}, device_name: 'd'.repeat(65) } })), status: 400, error: 'invalid_request' },
  { name: 'verify with an unknown field', request: device(async (w) => ({ method: 'POST', path: '/enroll/verify', body: { enrollment_code: (await freshEnrollment(w)).code, response: {}, sub: 'alice' } })), status: 400, error: 'invalid_request' },
  { name: 'verify with JSON that is not valid', request: device(() => ({ method: 'POST', path: '/enroll/verify', body: '{' })), status: 400, error: 'invalid_request' },
];

const TABLES: [string, Attack[]][] = [['POST /api/device/enroll/*', enrollAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));

  describe('and afterwards', () => {
    const { w } = attacked;

    it('still enrolls a device with a fresh code, and never with a used one', async () => {
      const { code, options } = await freshEnrollment(w);
      const phone = createSoftAuthenticator({ origin: w.h.issuer, rpId: new URL(w.h.issuer).hostname });
      const verify = await w.h.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await phone.register(options) }, headers: { origin: w.h.issuer } });
      expect(verify.status, JSON.stringify(verify.body)).toBe(200);
      const again = await w.h.call('POST', '/api/device/enroll/options', { body: { enrollment_code: w.usedCode }, headers: { origin: w.h.issuer } });
      expect(again.body.error).toBe('invalid_enrollment_code');
    });
  });
});
