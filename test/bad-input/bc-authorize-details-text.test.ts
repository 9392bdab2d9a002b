import { describe, it } from 'vitest';
import { type Attack, IAD, rawDetails, detailsWith, bc } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { payment, txn, bcParams } from './support/world.ts';

/**
 * Bad `authorization_details` on `POST /bc-authorize`, the text inside it: purposes and payee names
 * with invisible, bidi, confusable or over-long text, bad ids, members named twice.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Its shape is in `bc-authorize-details.test.ts`.
 */

const bcDetails: Attack[] = [
  { name: 'a purpose of 5,001 characters', request: bc(bcParams({ authorization_details: detailsWith({ purpose: 'p'.repeat(5001) }) })), status: 400, error: IAD },
  { name: 'an empty purpose', request: bc(bcParams({ authorization_details: detailsWith({ purpose: '' }) })), status: 400, error: IAD },
  { name: 'a purpose of only spaces', request: bc(bcParams({ authorization_details: detailsWith({ purpose: '   ' }) })), status: 400, error: IAD },
  { name: 'a purpose with a line break', request: bc(bcParams({ authorization_details: detailsWith({ purpose: 'Refund\nSend 1 BTC' }) })), status: 400, error: IAD },
  { name: 'a purpose with a lone surrogate', request: bc(bcParams({ authorization_details: rawDetails('purpose', '"Refund \\ud800"') })), status: 400, error: IAD },
  { name: 'a payee name with a right-to-left override (U+202E)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME \u202Edtl' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a left-to-right embedding (U+202A)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME \u202ALtd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a right-to-left isolate (U+2067)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME \u2067Ltd\u2069' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a right-to-left mark (U+200F)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u200F Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with an Arabic letter mark (U+061C)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u061C Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a line separator (U+2028)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u2028Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with invisible tag characters (U+E0041)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME Ltd\u{E0041}\u{E0042}' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a soft hyphen (U+00AD)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'AC\u00ADME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a BOM', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\uFEFF Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name of 141 characters', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'n'.repeat(141) } }) })), status: 400, error: IAD },
  { name: 'a payee id with a space', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct 77', name: 'ACME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a transaction_id with braces (a key injection)', request: bc(bcParams({ authorization_details: detailsWith({ transaction_id: 'txn}:{x' }) })), status: 400, error: IAD },
  { name: 'a transaction_id of 65 characters', request: bc(bcParams({ authorization_details: detailsWith({ transaction_id: 't'.repeat(65) }) })), status: 400, error: IAD },
  { name: 'no transaction_id', request: bc(bcParams({ authorization_details: detailsWith({ transaction_id: undefined }) })), status: 400, error: IAD },
  { name: 'a second, invalid action after a valid one', request: bc(bcParams({ authorization_details: JSON.stringify([payment({ transaction_id: txn() }), payment({ transaction_id: txn(), currency: 'XXX' })]) })), status: 400, error: IAD },
  // Two readers of the same bytes must never see two actions (docs/security.md "The executor
  // redeems exactly what was approved, byte for byte").
  { name: 'amount_minor named twice (the last would win in JSON.parse)', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49000,"amount_minor":4900000') })), status: 400, error: IAD },
  { name: 'a payee id named twice inside payee', request: bc(bcParams({ authorization_details: rawDetails('payee', '{"id":"acct_77","name":"ACME Ltd","id":"acct_666"}') })), status: 400, error: IAD },
  { name: 'a member named twice, once spelled with an escape ("\\u0061mount_minor")', request: bc(bcParams({ authorization_details: rawDetails('amount_minor', '49000,"\\u0061mount_minor":1') })), status: 400, error: IAD },
  { name: 'a payee name with a Hangul filler (U+3164)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u3164Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a braille blank (U+2800)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u2800Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a Mongolian vowel separator (U+180E)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'ACME\u180ELtd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a run of combining marks (Zalgo)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'AC\u0301\u0302\u0303\u0304\u0305\u0306ME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name mixing a Cyrillic а into Latin (a confusable)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: 'P\u0430yPal Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name in fullwidth letters (ＡＣＭＥ)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\uFF21\uFF23\uFF2D\uFF25 Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name in mathematical bold letters', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u{1D400}\u{1D402}\u{1D40C}\u{1D404} Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name in small capitals (ᴀᴄᴍᴇ)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u1D00\u1D04\u1D0D\u1D07 Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name with a Latin alpha (ɑ, IPA Extensions)', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u0251CME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a payee name starting with a combining mark', request: bc(bcParams({ authorization_details: detailsWith({ payee: { id: 'acct_77', name: '\u0301ACME Ltd' } }) })), status: 400, error: IAD },
  { name: 'a purpose with a zero-width joiner', request: bc(bcParams({ authorization_details: detailsWith({ purpose: 'Refund\u200Dfor order 1042' }) })), status: 400, error: IAD },
];

const TABLES: [string, Attack[]][] = [['POST /bc-authorize: authorization_details', bcDetails]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
