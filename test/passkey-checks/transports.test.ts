/** Passkey checks at enrollment: only the known transports of a registration are kept and named. */
import { describe, expect, it } from 'vitest';
import { keys } from '../../server/src/store/index.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';
import { TENANT, usePasskeyChecks } from './support.ts';

describe.each(['memory', 'redis'] as const)('passkey checks (%s store)', (storeKind) => {
  const ctx = usePasskeyChecks(storeKind);
  const { device, ask, deviceIds, storedDevice, enrollmentFor, verify } = ctx;

  describe('enrollment', () => {
    it('keeps only the known transports of a registration, each once, and names no others in any prompt', async () => {
      const bob = await enrollmentFor('bob');
      const registration = await createSoftAuthenticator({ origin: ctx.harness.issuer, rpId: 'localhost' }).register(bob.options);
      registration.response.transports = ['usb', 'carrier-pigeon', 'usb', 'nfc', 'internal', 'cable', 'nfc'] as never;
      expect((await verify(bob.code, registration)).status).toBe(200);
      expect(JSON.parse((await storedDevice('bob'))!).transports).toEqual(['usb', 'nfc', 'internal']);
      const again = await enrollmentFor('bob', false);
      expect(again.options.excludeCredentials).toEqual([{ id: registration.id, type: 'public-key', transports: ['usb', 'nfc', 'internal'] }]);
    });

    it('names a device stored with an unchecked list of transports by its known ones only, so a view stays small', async () => {
      const alice = await ctx.harness.enrollUser('alice');
      const [deviceId] = await deviceIds('alice');
      const stored = JSON.parse((await storedDevice('alice'))!);
      await ctx.harness.store.set(keys.device(TENANT, 'alice', deviceId!), JSON.stringify({ ...stored, transports: [...Array(7000).fill('usb'), 'x'.repeat(5000), 'hybrid'] }));
      const view = await device(alice, 'GET', `/requests/${await ask(alice, 'txn_1')}`);
      expect(view.body.options.approve.allowCredentials).toEqual([{ id: alice.authenticator.credentialId, type: 'public-key', transports: ['usb', 'hybrid'] }]);
      expect(JSON.stringify(view.body).length).toBeLessThan(10_000);
      const prompt = await device(alice, 'POST', '/enrollments/options');
      expect(prompt.body.allowCredentials).toEqual([{ id: alice.authenticator.credentialId, type: 'public-key', transports: ['usb', 'hybrid'] }]);
    });

    it.each([
      ['7,000 names', Array(7000).fill('usb')],
      ['a name of 5,000 characters', ['x'.repeat(5000)]],
      ['a string', 'usb'],
      ['a number in the list', ['usb', 1]],
      ['null', null],
      ['an object', { usb: true }],
    ])('refuses transports that are %s with 400 invalid_request, storing nothing and keeping the code', async (_name, transports) => {
      const bob = await enrollmentFor('bob');
      const registration = await createSoftAuthenticator({ origin: ctx.harness.issuer, rpId: 'localhost' }).register(bob.options);
      registration.response.transports = transports as never;
      const refused = await verify(bob.code, registration);
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
      expect(refused.body.error_description).toContain('response.response.transports');
      expect(await deviceIds('bob')).toEqual([]);
      // The body was refused before the code was looked at: the same registration with plain transports goes through.
      registration.response.transports = ['internal'];
      expect((await verify(bob.code, registration)).status).toBe(200);
    });
  });
});
