import { describe, expect, it } from 'vitest';
import { CountersignError } from '@countersign/shared';
import { CIBA_GRANT_TYPE } from '@countersign/shared';
import { createAgentClient } from './create-agent-client.ts';
import type { Fetch } from './types.ts';

const details = [{ type: 'payment' as const, transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];
const token = { access_token: 'at', token_type: 'Bearer', expires_in: 600, id_token: 'idt', authorization_details: details };

/** A fetch double answering each call with the next of `answers` and recording what it got. */
function scripted(answers: { status: number; body: unknown }[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch: Fetch = async (url, init) => {
    calls.push({ url, init });
    const answer = answers.shift();
    if (!answer) throw new Error('no more scripted answers');
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, calls };
}
const oauth = (error: string, status = 400) => ({ status, body: { error, error_description: `${error} here` } });

/** A sleep that records the waits and a clock that moves by them. */
function virtualTime() {
  let time = 1_000_000;
  const waits: number[] = [];
  return {
    waits,
    now: () => time,
    sleep: async (ms: number) => {
      waits.push(ms);
      time += ms;
    },
  };
}

describe('waitForDecision', () => {
  it('waits the interval before the first poll and adds 5 s for every poll after a slow_down', async () => {
    const { fetch, calls } = scripted([oauth('authorization_pending'), oauth('slow_down'), oauth('authorization_pending'), oauth('slow_down'), { status: 200, body: token }]);
    const clock = virtualTime();
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch, ...clock });
    const result = await client.waitForDecision('req_1', { interval: 2 });
    expect(clock.waits).toEqual([2000, 2000, 7000, 7000, 12000]);
    expect(result).toEqual({ status: 'approved', token });
    expect(calls).toHaveLength(5);
    expect(calls[0]?.url).toBe('https://cs.example/token');
    expect(Object.fromEntries(new URLSearchParams(calls[0]?.init.body as string))).toEqual({ grant_type: CIBA_GRANT_TYPE, auth_req_id: 'req_1' });
  });

  it.each([
    ['access_denied', 'denied'],
    ['expired_token', 'expired'],
  ])('ends on %s as %s', async (error, status) => {
    const clock = virtualTime();
    const { fetch } = scripted([oauth('authorization_pending'), oauth(error)]);
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch, ...clock });
    expect(await client.waitForDecision('req_1', { interval: 5 })).toEqual({ status });
  });

  it('gives up with a TimeoutError when the next poll would fall after timeoutSeconds', async () => {
    const clock = virtualTime();
    const { fetch, calls } = scripted([oauth('authorization_pending'), oauth('slow_down')]);
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch, ...clock });
    await expect(client.waitForDecision('req_1', { interval: 5, timeoutSeconds: 12 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(clock.waits).toEqual([5000, 5000]);
    expect(calls).toHaveLength(2);
  });

  it('stops polling once the signal aborts', async () => {
    const controller = new AbortController();
    const clock = virtualTime();
    const { fetch, calls } = scripted([oauth('authorization_pending'), oauth('authorization_pending')]);
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      if (clock.waits.length === 2) controller.abort(new Error('user gave up'));
    };
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch, sleep });
    await expect(client.waitForDecision('req_1', { interval: 1, signal: controller.signal })).rejects.toThrow('user gave up');
    expect(calls).toHaveLength(1);
  });
});

describe('errors', () => {
  it('throws invalid_grant from the token endpoint as a CountersignError', async () => {
    const { fetch } = scripted([oauth('invalid_grant')]);
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch });
    const error = await client.pollToken('req_x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CountersignError);
    expect(error).toMatchObject({ code: 'invalid_grant', status: 400, message: 'invalid_grant here' });
  });

  it('carries the original redemption of already_redeemed in body.redemption', async () => {
    const redemption = { redemption_id: 'red_1', redeemed_at: '2025-01-01T00:00:00.000Z', outcome: { status: 'unknown' } };
    const { fetch, calls } = scripted([{ status: 409, body: { error: 'already_redeemed', error_description: 'used', redemption } }]);
    const client = createAgentClient({ issuer: 'https://cs.example/base/', clientId: 'c', clientSecret: 's', fetch });
    const error = await client.redeem('secret-token', details).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'already_redeemed', status: 409, body: { redemption } });
    expect(String(error)).not.toContain('secret-token');
    expect(calls[0]?.url).toBe('https://cs.example/base/redeem');
    expect(JSON.parse(calls[0]?.init.body as string)).toEqual({ token: 'secret-token', authorization_details: details });
  });

  it('sends current_versions with a redeem when the executor read them, and leaves the member out otherwise', async () => {
    const answer = { status: 200, body: { status: 'redeemed', redemption_id: 'rdm_1', idempotency_key: 'txn_1042', authorization_details: details, redeemed_at: '2025-01-01T00:00:00.000Z' } };
    const { fetch, calls } = scripted([answer, answer]);
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch });
    await client.redeem('at', details, { current_versions: { 'order:1042': '7' } });
    await client.redeem('at', details);
    expect(JSON.parse(calls[0]?.init.body as string)).toEqual({ token: 'at', authorization_details: details, current_versions: { 'order:1042': '7' } });
    expect(JSON.parse(calls[1]?.init.body as string)).not.toHaveProperty('current_versions');
  });

  it('keeps an error word it does not know, as server_error with body.error', async () => {
    const { fetch } = scripted([oauth('brand_new_error', 418)]);
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch });
    await expect(client.getRequest('req_1')).rejects.toMatchObject({ code: 'server_error', status: 418, body: { error: 'brand_new_error' } });
  });

  it('refuses a 200 answer without the documented shape', async () => {
    const { fetch } = scripted([{ status: 200, body: { auth_req_id: 'req_1' } }]);
    const client = createAgentClient({ issuer: 'https://cs.example', clientId: 'c', clientSecret: 's', fetch });
    await expect(client.requestApproval({ login_hint: 'alice', authorization_details: details })).rejects.toMatchObject({ code: 'server_error' });
  });
});
