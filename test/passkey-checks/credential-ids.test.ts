/** Passkey checks at enrollment (WebAuthn Level 3 §7.1): a credential id is registered once in a tenant, and freed with its device. */
import { describe, expect, it } from 'vitest';
import { keys } from '../../server/src/store/index.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';
import { TENANT, usePasskeyChecks } from './support.ts';

describe.each(['memory', 'redis'] as const)('passkey checks (%s store)', (storeKind) => {
  const ctx = usePasskeyChecks(storeKind);
  const { device, ask, deviceIds, storedDevice, enrollmentFor, verify, claiming } = ctx;

  describe('enrollment', () => {
    it('refuses a credential id registered to another user of the tenant with 409 credential_already_registered, stores nothing and uses the code up', async () => {
      const alice = await ctx.harness.enrollUser('alice');
      const aliceBefore = await storedDevice('alice');
      const bob = await enrollmentFor('bob');
      const response = await claiming(alice.authenticator.credentialId).register(bob.options);
      const refused = await verify(bob.code, response);
      expect([refused.status, refused.body.error]).toEqual([409, 'credential_already_registered']);
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(await deviceIds('bob')).toEqual([]);
      expect(ctx.audit.filter((event) => event.type === 'device_enrolled').map((event) => event.sub)).toEqual(['alice']);
      expect(ctx.audit.filter((event) => event.type === 'refused')).toEqual([expect.objectContaining({ reason: 'credential_already_registered', sub: 'bob', credential_id: alice.authenticator.credentialId })]);
      // The code is single-use whatever the answer: it cannot probe several credential ids.
      expect((await verify(bob.code, response)).body.error).toBe('invalid_enrollment_code');
      // Alice's passkey is hers as before.
      expect(await storedDevice('alice')).toBe(aliceBefore);
      expect((await ctx.harness.decide(alice, await ask(alice, 'txn_1'), 'approve')).status).toBe(200);
    });

    it('refuses the same credential id for the same user again (a client that ignores excludeCredentials)', async () => {
      const alice = await ctx.harness.enrollUser('alice');
      const again = await enrollmentFor('alice', false);
      expect(again.options.excludeCredentials).toEqual([expect.objectContaining({ id: alice.authenticator.credentialId })]);
      const response = await claiming(alice.authenticator.credentialId).register({ ...again.options, excludeCredentials: [] });
      const refused = await verify(again.code, response);
      expect([refused.status, refused.body.error]).toEqual([409, 'credential_already_registered']);
      expect(await deviceIds('alice')).toHaveLength(1);
    });

    it('lets exactly one of two racing enrollments with one credential id through', async () => {
      const [bob, carol] = [await enrollmentFor('bob'), await enrollmentFor('carol')];
      const phone = createSoftAuthenticator({ origin: ctx.harness.issuer, rpId: 'localhost' });
      const responses = [await phone.register(bob.options), await phone.register(carol.options)];
      const answers = await Promise.all([verify(bob.code, responses[0]), verify(carol.code, responses[1])]);
      expect(answers.map((answer) => answer.body.error ?? answer.status).sort()).toEqual([200, 'credential_already_registered']);
      const devices = [...(await deviceIds('bob')), ...(await deviceIds('carol'))];
      expect(devices).toHaveLength(1);
    });

    it('claims the credential id of a device enrolled before the index at its next use', async () => {
      const alice = await ctx.harness.enrollUser('alice');
      const [deviceId] = await deviceIds('alice');
      const { credential_claimed: _claimed, ...legacy } = JSON.parse((await storedDevice('alice'))!);
      await ctx.harness.store.set(keys.device(TENANT, 'alice', deviceId!), JSON.stringify(legacy));
      await ctx.harness.store.delete(keys.credential(TENANT, alice.authenticator.credentialId));
      expect((await ctx.harness.decide(alice, await ask(alice, 'txn_1'), 'approve')).status).toBe(200);
      expect(JSON.parse((await storedDevice('alice'))!)).toMatchObject({ counter: 1, credential_claimed: true });
      const bob = await enrollmentFor('bob');
      const refused = await verify(bob.code, await claiming(alice.authenticator.credentialId).register(bob.options));
      expect([refused.status, refused.body.error]).toEqual([409, 'credential_already_registered']);
    });

    it('refuses a credential id longer than 1023 bytes, storing nothing', async () => {
      const bob = await enrollmentFor('bob');
      const long = claiming(Buffer.alloc(1024, 7).toString('base64url'));
      const refused = await verify(bob.code, await long.register(bob.options));
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
      expect(await deviceIds('bob')).toEqual([]);
    });

    it('frees the credential id when its device is removed', async () => {
      const alice = await ctx.harness.enrollUser('alice');
      const [deviceId] = await deviceIds('alice');
      expect((await device(alice, 'DELETE', `/devices/${deviceId}`)).status).toBe(204);
      const bob = await enrollmentFor('bob');
      const registered = await verify(bob.code, await claiming(alice.authenticator.credentialId).register(bob.options));
      expect(registered.status).toBe(200);
      expect(await deviceIds('bob')).toHaveLength(1);
    });
  });
});
