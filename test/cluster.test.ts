import type { Cluster } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, keys } from '../server/src/store/index.ts';
import { MULTI_KEY_SCRIPTS, SCRIPTS } from '../server/src/store/redis-scripts.ts';
import { describeStoreContract } from '../server/src/store/store.case.ts';
import { clusterTarget, testClusterStore, testPrefix } from './support/cluster.ts';

/**
 * The Redis store on the run's 3-master Redis Cluster (test/setup/redis-cluster.ts). The whole
 * Store contract runs against it, so every operation — every Lua script included — is shown to
 * work where a script that touched keys of two slots would fail; the tests below show the cluster
 * really refuses such a script (CROSSSLOT), and that the keys are spread over all three masters.
 */

const prefix = testPrefix();
describeStoreContract('RedisStore on a 3-master Redis Cluster', () => testClusterStore({ prefix }), {
  elapse: (ms) => sleep(ms),
  connectPeer: () => testClusterStore({ prefix }),
});

describe('hash slots on the cluster', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = (await connectRedis(clusterTarget())) as Cluster;
  });
  afterAll(async () => {
    await cluster.quit();
  });

  const slotOf = async (key: string) => Number(await cluster.call('CLUSTER', 'KEYSLOT', key));

  it('refuses a script over keys of two slots with CROSSSLOT, and runs one over keys of one hash tag', async () => {
    const lua = "return redis.call('EXISTS', KEYS[1]) + redis.call('EXISTS', KEYS[2])";
    const [left, right] = [`${prefix}req:{default:a}`, `${prefix}req:{default:b}`];
    expect(await slotOf(left)).not.toBe(await slotOf(right));
    // Straight to the master that owns the first key, past ioredis' own routing check: the server's answer.
    const address = cluster.slots[await slotOf(left)]![0];
    const owner = cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === address)!;
    await expect(owner.eval(lua, 2, left, right)).rejects.toThrow(/^CROSSSLOT/);
    expect(await owner.eval(lua, 2, left, `${prefix}audit:{default:a}`)).toBe(0);
  });

  it('declares one key per Lua script but the multi-key ones, and every script touches only its declared KEYS', () => {
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      const multi = MULTI_KEY_SCRIPTS.has(name as keyof typeof SCRIPTS);
      expect(lua, name).not.toMatch(multi ? /KEYS\[0/ : /KEYS\[[02-9]/);
      // Every command a script runs names a declared key: no key built from ARGV, which the cluster
      // could not route and which could sit in another slot. A multi-key script (the audit chain
      // and its per-request indexes, or its retention anchor) may name KEYS[k] or KEYS[2]; the store
      // checks that all its keys share KEYS[1]'s hash tag, and the contract above runs it on this cluster.
      const calls = [...lua.matchAll(/redis\.(?:p?call)\(\s*'([A-Z]+)'\s*,\s*([^,)]+)/g)];
      expect(calls.length, name).toBeGreaterThan(0);
      for (const [, , key] of calls) expect(key!.trim(), `${name}: ${key}`).toMatch(multi ? /^KEYS\[([12]|[a-z]+)\]$/ : /^KEYS\[1\]$/);
    }
  });

  it('keeps what one request touches in one slot, and tenancy in every tag', async () => {
    const [tenant, id] = ['acme', 'PSWrBDVXlmIaqGS4YnFSBrW4tsuWgXa'];
    const slot = await slotOf(keys.request(tenant, id));
    expect(await slotOf(keys.requestAudit(tenant, id))).toBe(slot);
    // A request's audit index sits with its tenant's chain, which one script appends to both.
    expect(await slotOf(keys.requestAuditIndex(tenant, id))).toBe(await slotOf(keys.auditChain(tenant)));
    // So does its retention anchor, which one script writes with the trim.
    expect(await slotOf(keys.auditAnchor(tenant))).toBe(await slotOf(keys.auditChain(tenant)));
    expect(await slotOf(keys.livePrompts(tenant, id, 'dev_1'))).toBe(slot);
    expect(await slotOf(`${prefix}${keys.request(tenant, id)}`)).toBe(slot);
    const user = await slotOf(keys.pendingRequests(tenant, 'alice'));
    expect(await slotOf(keys.user(tenant, 'alice'))).toBe(user);
    expect(await slotOf(keys.userDevices(tenant, 'alice'))).toBe(user);
    expect(await slotOf(keys.pushes(tenant, 'alice'))).toBe(user);
    expect(await slotOf(keys.clientPendingRequests(tenant, 'alice', 'cli_01KuoMj7z4RaWAYaGBHbDg'))).toBe(user);
    expect(await slotOf(keys.window(tenant, 'velocity-user', 'alice'))).toBe(user);
  });

  it('spreads requests over all three masters', async () => {
    const masters = new Set<string>();
    for (let i = 0; i < 64; i++) {
      const slot = await slotOf(keys.request('default', `request-${String(i).padStart(16, '0')}`));
      masters.add(String((cluster.slots[slot] ?? [])[0]));
    }
    expect(masters.size).toBe(3);
  });
});
