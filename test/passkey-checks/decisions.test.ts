/** Passkey checks (docs/security.md): a decision's signature is verified before its counter is compared, and a counter saved meanwhile is kept. */
import { describe, expect, it } from 'vitest';
import { findDevice } from '../../server/src/devices/index.ts';
import { updateDevice } from '../../server/src/devices/device-record.ts';
import { TENANT, usePasskeyChecks } from './support.ts';

describe.each(['memory', 'redis'] as const)('passkey checks (%s store)', (storeKind) => {
  const ctx = usePasskeyChecks(storeKind);
  const { device, ask, stateOf, deviceIds, storedDevice, reasons, aliceAtTwo } = ctx;

  describe('a decision', () => {
    it('refuses a forged assertion with a lower counter as invalid_assertion, not counter_regression, and leaves the device as it was', async () => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const id = await ask(alice, 'txn_3');
      const forged = await ctx.harness.decide(alice, id, 'approve', { forgeSignature: true, signCount: 1 });
      expect([forged.status, forged.body.error]).toEqual([400, 'invalid_assertion']);
      expect(await storedDevice('alice')).toBe(before);
      expect(reasons()).toEqual(['invalid_assertion']);
      expect(await stateOf(id)).toBe('pending');
      // Nothing was flagged or locked: the passkey's own next answer approves, from the same counter.
      expect((await ctx.harness.decide(alice, id, 'approve')).status).toBe(200);
      expect(JSON.parse((await storedDevice('alice'))!).counter).toBe(3);
    });

    it.each([
      ['the same counter', 2],
      ['a higher counter', 50],
    ])('refuses a forged assertion with %s as invalid_assertion, the counter not moved', async (_name, signCount) => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const forged = await ctx.harness.decide(alice, await ask(alice, 'txn_3'), 'approve', { forgeSignature: true, signCount });
      expect([forged.status, forged.body.error]).toEqual([400, 'invalid_assertion']);
      expect(await storedDevice('alice')).toBe(before);
    });

    it('still refuses a genuine assertion whose counter went backwards as counter_regression, the device unchanged', async () => {
      const alice = await aliceAtTwo();
      const before = await storedDevice('alice');
      const id = await ask(alice, 'txn_3');
      const regressed = await ctx.harness.decide(alice, id, 'approve', { signCount: 1 });
      expect([regressed.status, regressed.body.error]).toEqual([400, 'counter_regression']);
      expect(reasons()).toEqual(['counter_regression']);
      expect(await storedDevice('alice')).toBe(before);
      expect(await stateOf(id)).toBe('pending');
    });

    it('lets one of two genuine assertions with the same counter through and refuses the other as counter_regression (a cloned authenticator)', async () => {
      const alice = await ctx.harness.enrollUser('alice');
      const ids = [await ask(alice, 'txn_1'), await ask(alice, 'txn_2')];
      const views = await Promise.all(ids.map((id) => device(alice, 'GET', `/requests/${id}`)));
      const answers = await Promise.all(views.map((view) => alice.authenticator.authenticate(view.body.options.approve, { signCount: 7 })));
      const decided = await Promise.all(ids.map((id, i) => device(alice, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: answers[i] })));
      expect(decided.map((answer) => answer.body.error ?? answer.status).sort()).toEqual([200, 'counter_regression']);
      expect(JSON.parse((await storedDevice('alice'))!).counter).toBe(7);
    });
  });

  it('keeps a counter saved meanwhile when a rename started from an older reading', async () => {
    const alice = await ctx.harness.enrollUser('alice');
    const [deviceId] = await deviceIds('alice');
    const stale = (await findDevice(ctx.harness.store, TENANT, 'alice', deviceId!))!;
    expect((await ctx.harness.decide(alice, await ask(alice, 'txn_1'), 'approve')).status).toBe(200);
    const renamed = await updateDevice(ctx.harness.store, stale, (current) => ({ ...current, name: 'Work phone' }));
    expect(renamed.status).toBe('written');
    expect(JSON.parse((await storedDevice('alice'))!)).toMatchObject({ name: 'Work phone', counter: 1 });
  });
});
