import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, bcAuthorize, pollToken } from './guarantees/policy-support.ts';
import { accessChange, deletion, message, recordChange } from './support/action-samples.ts';
import { createHarness, UNLIMITED_RATES, type EnrolledUser, type Harness } from './support/harness.ts';
import { basic } from './support/raw-request.ts';

let h: Harness; let user: EnrolledUser; let client: { client_id: string; client_secret: string };
beforeAll(async () => { h = await createHarness({ env: UNLIMITED_RATES }); user = await h.enrollUser('u1'); client = await h.createClient('x'); });
afterAll(() => h.close());
const redeem = (token: string, details: unknown, versions?: Record<string, string>, raw?: string) =>
  h.call('POST', '/redeem', { body: raw ?? { token, authorization_details: details, ...(versions ? { current_versions: versions } : {}) }, headers: { authorization: basic(client), 'content-type': 'application/json' } });
async function approved(details: any) {
  const asked = await bcAuthorize(h, client, { login_hint: 'u1', details });
  expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  await h.drain();
  const d = await answer(h, user, asked.body.auth_req_id, asked.body.binding_code ? { decision: 'approve', code: asked.body.binding_code } : { decision: 'approve' });
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  const p = await pollToken(h, client, asked.body.auth_req_id);
  return p.body.access_token as string;
}
describe('scratch', () => {
  it('redeem variants', async () => {
    const mixed = [...deletion({ transaction_id: 'd1' }), ...message({ transaction_id: 'm1' }), ...accessChange({ transaction_id: 'a1' }), ...recordChange({ transaction_id: 'r1', precondition: undefined })].map((x: any) => { const y = { ...x }; if (y.precondition === undefined) delete y.precondition; return y; });
    const token = await approved(mixed);
    const out: string[] = [];
    const tryIt = async (label: string, details: unknown, raw?: string) => { const r = await redeem(token, details, undefined, raw); out.push(`${label}: ${r.status} ${r.body.error ?? r.body.status} ${r.body.error_description ?? ''}`); };
    await tryIt('subset', mixed.slice(0, 3));
    await tryIt('reordered actions', [mixed[1], mixed[0], mixed[2], mixed[3]]);
    const missing = structuredClone(mixed); delete missing[0].reversible; await tryIt('missing reversible', missing);
    const nfd = structuredClone(mixed); nfd[2].principal.name = 'Bo Li'.normalize('NFD'); nfd[3].purpose = 'Raise daily budget '; await tryIt('trailing space', nfd);
    const extra = structuredClone(mixed); extra[0].extra = null; await tryIt('extra null', extra);
    await tryIt('not array', mixed[0]);
    await tryIt('null', null);
    await tryIt('string', JSON.stringify(mixed));
    const keyReorder = mixed.map((a: any) => Object.fromEntries(Object.entries(a).reverse()));
    const raw = JSON.stringify({ token, authorization_details: keyReorder }).replace('"count":1200', '"count":1200.0');
    await tryIt('1200.0', null, raw);
    await tryIt('deep', null, JSON.stringify({ token, authorization_details: 'x' }).replace('"x"', '['.repeat(3000) + ']'.repeat(3000)));
    await tryIt('dupkey', null, JSON.stringify({ token, authorization_details: keyReorder }).replace('"count":1200', '"count":1200,"count":1200'));
    await tryIt('keys reordered', keyReorder);
    await tryIt('again', mixed);
    console.log(out.join('\n'));
  });
});
