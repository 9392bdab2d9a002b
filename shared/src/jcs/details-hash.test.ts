import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { canonicalize } from './canonicalize.ts';
import { decisionChallengeSync, detailsHashSync } from './details-hash-sync.ts';
import { decisionChallenge, detailsHash } from './details-hash.ts';
import { base64url } from './index.ts';
import * as browser from './sha256.ts';

describe('RFC 8785 canonical JSON', () => {
  it('sorts members by UTF-16 code units and drops white space (RFC 8785 §3.2.3 example)', () => {
    const input = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    expect(canonicalize(input)).toBe('{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
  });

  it('serialises numbers as ECMAScript does (RFC 8785 §3.2.2.3)', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: the literal is RFC 8785's own example of a number JCS must round to 333333333.3333333
    expect(canonicalize([1e21, 1e-7, 0.000001, -0, 49000, 333333333.33333329])).toBe('[1e+21,1e-7,0.000001,0,49000,333333333.3333333]');
  });

  it('refuses values without a JSON form', () => {
    expect(() => canonicalize(Number.NaN)).toThrow();
    expect(() => canonicalize(undefined)).toThrow(TypeError);
  });
});

describe('details_hash', () => {
  const action = [{ type: 'payment', transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];

  it('is base64url(SHA-256(JCS(authorization_details)))', async () => {
    const expected = createHash('sha256').update('[{"amount_minor":49000,"currency":"EUR","payee":{"id":"acct_77","name":"ACME Ltd"},"purpose":"Refund for order 1042","transaction_id":"txn_1042","type":"payment"}]').digest('base64url');
    expect(await detailsHash(action)).toBe(expected);
  });

  it('does not depend on member order, and changes with one minor unit', async () => {
    const reordered = [{ purpose: 'Refund for order 1042', payee: { name: 'ACME Ltd', id: 'acct_77' }, currency: 'EUR', amount_minor: 49000, transaction_id: 'txn_1042', type: 'payment' }];
    expect(await detailsHash(reordered)).toBe(await detailsHash(action));
    expect(await detailsHash([{ ...action[0], amount_minor: 49001 }])).not.toBe(await detailsHash(action));
  });

  it('binds the decision challenge to the request, the action, the decision and the nonce', async () => {
    const base = { auth_req_id: 'req_1', details_hash: await detailsHash(action), decision: 'approve' as const, nonce: 'n1' };
    const challenge = await decisionChallenge(base);
    expect(challenge).toHaveLength(32);
    const expected = createHash('sha256').update(canonicalize(base)).digest();
    expect(Buffer.from(challenge).equals(expected)).toBe(true);
    for (const change of [{ auth_req_id: 'req_2' }, { decision: 'deny' as const }, { nonce: 'n2' }, { details_hash: 'x' }]) {
      expect(Buffer.from(await decisionChallenge({ ...base, ...change })).equals(expected)).toBe(false);
    }
  });
});

describe('SHA-256 under Node', () => {
  const action = [{ type: 'payment', transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];

  it('hashes with node:crypto, not one WebCrypto job per hash (the node condition of #sha256)', async () => {
    const digest = vi.spyOn(crypto.subtle, 'digest');
    try {
      await detailsHash(action);
      await decisionChallenge({ auth_req_id: 'req_1', details_hash: 'h', decision: 'deny', nonce: 'n' });
      expect(digest).not.toHaveBeenCalled();
    } finally {
      digest.mockRestore();
    }
  });

  it('gives the same hashes as the browser implementation, synchronously too', async () => {
    const challenge = { auth_req_id: 'req_1', details_hash: await detailsHash(action), decision: 'approve' as const, nonce: 'n1', selected_code: '42' };
    expect(detailsHashSync(action)).toBe(await detailsHash(action));
    expect(detailsHashSync(action)).toBe(browser.base64url(await browser.sha256(canonicalize(action))));
    expect(decisionChallengeSync(challenge)).toEqual(await decisionChallenge(challenge));
    expect(decisionChallengeSync(challenge)).toEqual(await browser.sha256(canonicalize(challenge)));
    const bytes = new Uint8Array([0, 250, 251, 252, 253, 254, 255, 62, 63]);
    expect(base64url(bytes)).toBe(browser.base64url(bytes));
    expect(base64url(bytes.subarray(3))).toBe(browser.base64url(bytes.subarray(3)));
  });
});
