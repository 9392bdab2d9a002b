import { backchannelBodies } from '../countersign/actions.ts';
import { mapLimit } from '../countersign/api.ts';
import { startTwin } from './in-process.ts';

/** `/bc-authorize` throughput of an in-process instance, the same load in one tenant or spread over eight. */
export interface TenantSpreadResult {
  requests: number;
  concurrency: number;
  oneTenantPerSecond: number;
  eightTenantsPerSecond: number;
}

/**
 * The same requests, 32 at a time, through `/bc-authorize` of an in-process instance (no HTTP,
 * the server's own code), once all in one tenant and once spread over eight tenants, each with its
 * own client and users. Nothing else differs, so the gap is what one tenant's serial audit chain
 * (one append at a time, each awaited on the request's path) costs the request.
 */
export async function measureTenantSpread(redisUrl: string, policyFile: string | null): Promise<TenantSpreadResult> {
  const requests = 2400;
  const concurrency = 32;
  const rate = async (tenants: number) => {
    const twin = await startTwin(redisUrl, `bench-spread-${tenants}:`, { policyFile });
    const plan: { authorization: string; bodies: string[] }[] = [];
    for (let t = 0; t < tenants; t++) {
      const tenant = tenants === 1 ? 'default' : `spread-${t}`;
      const users = Array.from({ length: 40 }, (_, i) => `${tenant}-user-${i}`);
      const [client] = await twin.createClients(1, tenant);
      await twin.enrollUsers(users, false, tenant);
      plan.push({ authorization: client!.authorization, bodies: backchannelBodies(users, Math.ceil((requests + 200) / tenants), `spread${t}`).items.map((item) => item.body!) });
    }
    const send = async (i: number) => {
      const slot = plan[i % tenants]!;
      const answer = await twin.call('POST', '/bc-authorize', { form: slot.bodies[Math.floor(i / tenants)]!, headers: { authorization: slot.authorization } });
      if (answer.status !== 200) throw new Error(`tenant spread: ${answer.status} ${JSON.stringify(answer.body)}`);
    };
    await mapLimit(
      Array.from({ length: 200 }, (_, i) => i),
      concurrency,
      send,
    ); // warm-up
    const started = performance.now();
    await mapLimit(
      Array.from({ length: requests }, (_, i) => i + 200),
      concurrency,
      send,
    );
    const perSecond = Math.round(requests / ((performance.now() - started) / 1000));
    await twin.close();
    return perSecond;
  };
  const oneTenantPerSecond = await rate(1);
  const eightTenantsPerSecond = await rate(8);
  return { requests, concurrency, oneTenantPerSecond, eightTenantsPerSecond };
}
