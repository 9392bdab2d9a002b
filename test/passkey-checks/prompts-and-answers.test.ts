/** Passkey checks (docs/security.md): the prompt for adding a device, and answers that are not well-formed. */
import { CountersignError } from '@countersign/shared';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import { verifyDecision } from '../../server/src/devices/index.ts';
import { TENANT, usePasskeyChecks } from './support.ts';

describe.each(['memory', 'redis'] as const)('passkey checks (%s store)', (storeKind) => {
  const ctx = usePasskeyChecks(storeKind);
  const { device, ask, stateOf, deviceIds, storedDevice, reasons, aliceAtTwo } = ctx;

  describe('the passkey prompt for adding a device', () => {
    it('refuses a forged answer with a lower counter as invalid_assertion, and makes no link', async () => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const options = await device(alice, 'POST', '/enrollments/options');
      const forged = await alice.authenticator.authenticate(options.body, { forgeSignature: true, signCount: 1 });
      const refused = await device(alice, 'POST', '/enrollments', { response: forged });
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
      expect(reasons()).toEqual(['invalid_assertion']);
      expect(ctx.audit.some((event) => event.type === 'device_enrollment_created')).toBe(false);
      expect(await storedDevice('alice')).toBe(before);
    });
  });

  describe('malformed answers', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    it.each([
      ['a clientDataJSON that is not JSON', { clientDataJSON: b64('not json') }, /JSON/],
      ['an authenticatorData of 3 bytes', { authenticatorData: 'AAAA' }, /Authenticator data was 3 bytes/],
      ['an authenticatorData that is not base64url', { authenticatorData: '%%%%' }, /authenticatorData was not a base64url string/],
    ])('answers 400 invalid_assertion to %s, with the library error as the cause and never in the body', async (_name, change, libraryMessage) => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const id = await ask(alice, 'txn_3');
      const answer = async () => {
        const view = await device(alice, 'GET', `/requests/${id}`);
        const genuine = await alice.authenticator.authenticate(view.body.options.approve);
        return { ...genuine, response: { ...genuine.response, ...change } } as AuthenticationResponseJSON;
      };

      const refused = await device(alice, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await answer() });
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
      expect(Object.keys(refused.body).sort()).toEqual(['error', 'error_description']);
      expect(refused.body.error_description).not.toMatch(libraryMessage);

      const [deviceId] = await deviceIds('alice');
      const thrown = await verifyDecision(ctx.harness.deps, { tenant: TENANT, sub: 'alice', device_id: deviceId! }, { sub: 'alice', roles: [] }, id, 'approve', (await answer()) as unknown as Record<string, unknown>).then(
        () => null,
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(CountersignError);
      expect((thrown as CountersignError).code).toBe('invalid_assertion');
      expect((thrown as CountersignError).cause).toBeInstanceOf(Error);
      expect(((thrown as CountersignError).cause as Error).message).toMatch(libraryMessage);
      expect(reasons()).toEqual(['invalid_assertion', 'invalid_assertion']);
      expect(await storedDevice('alice')).toBe(before);
      expect(await stateOf(id)).toBe('pending');
    });
  });
});
