import { describe, expect, it } from 'vitest';
import { basic, send } from '../support/raw-request.ts';
import { type Attack, BASIC_CHALLENGE, withRawByte, json } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { type World, FORM } from './support/world.ts';

/**
 * Bad input on `POST /redemptions/{id}/outcome`: unknown and foreign redemptions, bad bodies and
 * statuses, references and reasons a person would be shown.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Afterwards, the redemption the cases attacked still takes its first report.
 */

const outcomePath = (w: World) => `/redemptions/${w.redemptionA}/outcome`;
const outcomeAttacks: Attack[] = [
  { name: 'no client authentication', request: json('POST', outcomePath, () => ({ status: 'succeeded' }), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: json('POST', outcomePath, () => ({ status: 'succeeded' }), { auth: (w) => basic({ ...w.a, client_secret: 'x' }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  {
    name: 'an unknown redemption',
    request: json(
      'POST',
      () => `/redemptions/rdm_${'u'.repeat(22)}/outcome`,
      () => ({ status: 'succeeded' }),
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: 'a redemption id of 10 KB',
    request: json(
      'POST',
      () => `/redemptions/rdm_${'u'.repeat(10_240)}/outcome`,
      () => ({ status: 'succeeded' }),
    ),
    status: 404,
    error: 'not_found',
  },
  {
    name: 'a redemption id with a malformed percent escape',
    request: json(
      'POST',
      () => '/redemptions/rdm_%zz/outcome',
      () => ({ status: 'succeeded' }),
    ),
    status: 404,
    error: 'not_found',
  },
  // The id names its request; its random part must still be the stored one.
  {
    name: 'the right request with another random part',
    request: json(
      'POST',
      (w) => `/redemptions/${w.redemptionA.replace(/^rdm_[^.]+/, `rdm_${'f'.repeat(22)}`)}/outcome`,
      () => ({ status: 'failed' }),
    ),
    status: 404,
    error: 'not_found',
  },
  { name: "another client's redemption", request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'hijacked' }), { auth: (w) => basic(w.b) }), status: 404, error: 'not_found' },
  { name: "another tenant's client's report", request: json('POST', outcomePath, () => ({ status: 'failed' }), { auth: (w) => basic(w.c) }), status: 404, error: 'not_found' },
  { name: 'a form body instead of JSON', request: json('POST', outcomePath, () => 'status=succeeded', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: json('POST', outcomePath, () => '{status: succeeded}'), status: 400, error: 'invalid_request' },
  { name: 'a JSON array where an object is expected', request: json('POST', outcomePath, () => [{ status: 'succeeded' }]), status: 400, error: 'invalid_request' },
  { name: 'an unknown status', request: json('POST', outcomePath, () => ({ status: 'maybe' })), status: 400, error: 'invalid_request' },
  { name: 'the status unknown', request: json('POST', outcomePath, () => ({ status: 'unknown' })), status: 400, error: 'invalid_request' },
  { name: 'no status', request: json('POST', outcomePath, () => ({ reference: 'ref_1' })), status: 400, error: 'invalid_request' },
  { name: 'an unknown field', request: json('POST', outcomePath, () => ({ status: 'succeeded', amount_minor: 1 })), status: 400, error: 'invalid_request' },
  { name: 'a reference of 201 characters', request: json('POST', outcomePath, () => ({ status: 'succeeded', reference: 'r'.repeat(201) })), status: 400, error: 'invalid_request' },
  { name: 'a reason of 501 characters', request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'r'.repeat(501) })), status: 400, error: 'invalid_request' },
  { name: 'a reason with a bidi override (shown to the person)', request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'refund \u202Edeliated' })), status: 400, error: 'invalid_request' },
  { name: 'a reason with control characters (shown to the person)', request: json('POST', outcomePath, () => ({ status: 'failed', reason: 'ok\u001b[2J\u0007' })), status: 400, error: 'invalid_request' },
  { name: 'a reason holding bytes that are not UTF-8', request: (w) => ({ ...json('POST', outcomePath, () => ({ status: 'failed', reason: 'declined #' }))(w), bytes: withRawByte(JSON.stringify({ status: 'failed', reason: 'declined #' }), '#', 0xc0) }), status: 400, error: 'invalid_request' },
  { name: 'a reference with a line break', request: json('POST', outcomePath, () => ({ status: 'succeeded', reference: 're_1\nPaid twice' })), status: 400, error: 'invalid_request' },
];

const TABLES: [string, Attack[]][] = [['POST /redemptions/{id}/outcome', outcomeAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));

  describe('and afterwards', () => {
    const { w } = attacked;

    it('still takes the first outcome report for the redemption the outcome cases attacked', async () => {
      const report = await send(w.h, json('POST', outcomePath, () => ({ status: 'succeeded', reference: 're_1' }))(w));
      expect(report.status, report.text).toBe(200);
      expect((await w.h.admin('GET', `/requests/${w.redeemedA}`)).body.request.outcome).toEqual({ status: 'succeeded', reference: 're_1' });
    });
  });
});
