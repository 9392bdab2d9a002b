import { describe, it } from 'vitest';
import { type Attack, IAD, deep, rawDetails, detailsWith, bc } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { payment, txn, bcParams } from './support/world.ts';

/**
 * Bad `authorization_details` on `POST /bc-authorize`, its shape: not JSON, not an array of
 * actions, unknown types and members, impossible amounts, unknown or misspelled currencies.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * The text inside it is in `bc-authorize-details-text.test.ts`.
 */

const bcDetails: Attack[] = [
  { name: 'no authorization_details', request: bc(bcParams({ authorization_details: undefined })), status: 400, error: 'invalid_request' },
  { name: 'authorization_details that is not JSON', request: bc(bcParams({ authorization_details: '[{"type":"payment",' })), status: 400, error: IAD },
  { name: 'authorization_details with a trailing comma', request: bc(bcParams({ authorization_details: `${detailsWith({}).slice(0, -1)},]` })), status: 400, error: IAD },
  { name: 'authorization_details as an object, not an array', request: bc(bcParams({ authorization_details: JSON.stringify(payment({ transaction_id: txn() })) })), status: 400, error: IAD },
  { name: 'authorization_details as null', request: bc(bcParams({ authorization_details: 'null' })), status: 400, error: IAD },
  { name: 'authorization_details as a string', request: bc(bcParams({ authorization_details: '"payment"' })), status: 400, error: IAD },
  { name: 'an empty authorization_details array', request: bc(bcParams({ authorization_details: '[]' })), status: 400, error: IAD },
  { name: 'eleven actions', request: bc(bcParams({ authorization_details: JSON.stringify(Array.from({ length: 11 }, () => payment({ transaction_id: txn() }))) })), status: 400, error: IAD },
  { name: 'an array of arrays', request: bc(bcParams({ authorization_details: '[[]]' })), status: 400, error: IAD },
  { name: 'JSON nested 10,000 deep', request: bc(bcParams({ authorization_details: deep(10_000) })), status: 400, error: IAD },
  { name: 'an unknown type', request: bc(bcParams({ authorization_details: detailsWith({ type: 'transfer' }) })), status: 400, error: IAD },
  { name: 'no type', request: bc(bcParams({ authorization_details: detailsWith({ type: undefined }) })), status: 400, error: IAD },
  { name: 'an unknown field', request: bc(bcParams({ authorization_details: detailsWith({ memo: 'x' }) })), status: 400, error: IAD, description: /^authorization_details\[0\]: `memo` is not a member of payment$/ },
  { name: 'an unknown field with a 5,000-character name, not echoed back', request: bc(bcParams({ authorization_details: detailsWith({ [`m${'"'.repeat(4999)}`]: 'x' }) })), status: 400, error: IAD },
  { name: 'an unknown field nested in payee', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME Ltd', iban: 'DE00' } }) })), status: 400, error: IAD },
  { name: 'a __proto__ member', request: bc(bcParams({ authorization_details: rawDetails('__proto__', '{"amount_minor":1}') })), status: 400, error: IAD },
  { name: 'a __proto__ member nested in payee', request: bc(bcParams({ authorization_details: rawDetails('payee', '{"id":"acct_77","name":"ACME Ltd","__proto__":{"admin":true}}') })), status: 400, error: IAD },
  { name: 'a precondition on a record named __proto__ (no executor could state its version)', request: bc(bcParams({ authorization_details: detailsWith({ precondition: { record: '__proto__', version: '17' } }) })), status: 400, error: IAD },
  { name: 'no payee', request: bc(bcParams({ authorization_details: detailsWith({ payee: undefined }) })), status: 400, error: IAD },
  { name: 'payee as a string', request: bc(bcParams({ authorization_details: detailsWith({ payee: 'ACME Ltd' }) })), status: 400, error: IAD },
  { name: 'amount_minor negative', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: -49000 }) })), status: 400, error: IAD },
  { name: 'amount_minor zero', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: 0 }) })), status: 400, error: IAD },
  { name: 'amount_minor negative zero', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '-0') })), status: 400, error: IAD },
  { name: 'amount_minor fractional (490.5)', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: 490.5 }) })), status: 400, error: IAD },
  { name: 'amount_minor as a string "49000"', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: '49000' }) })), status: 400, error: IAD },
  { name: 'amount_minor 1e300', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '1e300') })), status: 400, error: IAD },
  { name: 'amount_minor Number.MAX_SAFE_INTEGER + 2', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', String(BigInt(Number.MAX_SAFE_INTEGER) + 2n)) })), status: 400, error: IAD },
  {
    name: 'two actions in one currency that add up to more than Number.MAX_SAFE_INTEGER',
    request: bc(bcParams({ authorization_details: JSON.stringify([payment({ transaction_id: txn(), amount_minor: Number.MAX_SAFE_INTEGER }), payment({ transaction_id: txn(), amount_minor: 2 })]) })),
    status: 400,
    error: IAD,
  },
  { name: 'amount_minor of 400 digits', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '9'.repeat(400)) })), status: 400, error: IAD },
  { name: 'amount_minor in exponent notation (4.9e4)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '4.9e4') })), status: 400, error: IAD },
  { name: 'amount_minor in exponent notation (49E3)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49E3') })), status: 400, error: IAD },
  { name: 'amount_minor in exponent notation that is fractional (4.905e2)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '4.905e2') })), status: 400, error: IAD },
  { name: 'amount_minor with a fraction of zero (49000.0)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49000.0') })), status: 400, error: IAD },
  { name: 'amount_minor null', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: null }) })), status: 400, error: IAD },
  { name: 'amount_minor missing', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: undefined }) })), status: 400, error: IAD, description: /^authorization_details\[0\]\.amount_minor is required \(minor units, an integer\)$/ },
  // The member a newcomer guesses, named as not one, next to the one that is missing.
  { name: 'amount instead of amount_minor', request: bc(bcParams({ authorization_details: detailsWith({ amount_minor: undefined, amount: 49000 }) })), status: 400, error: IAD, description: /^authorization_details\[0\]\.amount_minor is required \(minor units, an integer\); `amount` is not a member of payment$/ },
  { name: 'an unknown currency (XXX)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'XXX' }) })), status: 400, error: IAD },
  { name: 'a lower-case currency (eur)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'eur' }) })), status: 400, error: IAD, description: /^authorization_details\[0\]\.currency: must be an upper-case ISO 4217 code: EUR$/ },
  { name: 'a four-letter currency (EURO)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'EURO' }) })), status: 400, error: IAD },
  { name: 'a numeric currency (978)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 978 }) })), status: 400, error: IAD },
  { name: 'a currency with padding (" EUR")', request: bc(bcParams({ authorization_details: detailsWith({ currency: ' EUR' }) })), status: 400, error: IAD },
  { name: 'a currency named like an object member (constructor)', request: bc(bcParams({ authorization_details: detailsWith({ currency: 'constructor' }) })), status: 400, error: IAD },
];

const TABLES: [string, Attack[]][] = [['POST /bc-authorize: authorization_details', bcDetails]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
