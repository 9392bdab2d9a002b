import { describe, expect, it } from 'vitest';
import { FIELD_CHUNK_BYTES, fromFields, notificationTokenOf, splitUtf8, toFields, type ApprovalRequest } from './request-record.ts';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    auth_req_id: 'vdH1PIBAMyZqgZCjqKa3gJIJgL1N5pehAVpsRRk51BM',
    tenant: 'default',
    client_id: 'cli_GgfW-Zz4s6mZKSlX7XcJ2g',
    client_name: 'Rückerstattungs-Agent für Bestellungen und Gutschriften — Abteilung Süd',
    sub: 'alice',
    scope: 'openid',
    binding_message: 'Zahlung 490,00 € an ACME Ltd für Bestellung 1042, Rückfrage bei Müller',
    authorization_details: [
      { type: 'payment', transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd ✓ 🏦' }, purpose: 'Refund for order 1042 — Erstattung für Bestellung 1042' },
    ] as unknown as ApprovalRequest['authorization_details'],
    details_hash: 'AN66NErpB2-9GSDdzLm-UW93nwd7XWGG2WhXug2xE7k',
    state: 'pending',
    created_at: 1_795_977_925_430,
    expires_at: 1_795_978_225_430,
    interval: 5,
    token_delivery_mode: 'ping',
    outcome: null,
    tier: 'standard',
    parties: ['customer', 'role:reviewer-finance', 'role:reviewer-legal-and-compliance'] as ApprovalRequest['parties'],
    token_lifetime: 600,
    ...overrides,
  };
}

describe('splitUtf8', () => {
  it('cuts between code points, never inside a character, into pieces of at most 64 bytes that join back', () => {
    const text = `a€é🏦${'x'.repeat(60)}€€€${'🏦'.repeat(40)}ü`;
    for (const offset of [0, 1, 2, 3]) {
      const value = 'z'.repeat(offset) + text;
      const chunks = splitUtf8(value);
      expect(chunks.join('')).toBe(value);
      for (const chunk of chunks) {
        expect(bytes(chunk)).toBeLessThanOrEqual(FIELD_CHUNK_BYTES);
        expect(chunk.length).toBeGreaterThan(0);
        // A chunk that began or ended inside a surrogate pair would not survive UTF-8.
        expect(Buffer.from(chunk, 'utf8').toString('utf8')).toBe(chunk);
      }
      // As full as a whole character allows: only the last piece may be short by more than 3 bytes.
      for (const chunk of chunks.slice(0, -1)) expect(bytes(chunk)).toBeGreaterThan(FIELD_CHUNK_BYTES - 4);
    }
    expect(splitUtf8('')).toStrictEqual(['']);
    expect(splitUtf8('x'.repeat(64))).toStrictEqual(['x'.repeat(64)]);
  });
});

describe('toFields and fromFields', () => {
  it('stores no value over 64 bytes for long write-once fields, and reads the request back whole', () => {
    const original = request();
    const fields = toFields(original, { client_notification_token: 'n'.repeat(200) });
    for (const [name, value] of Object.entries(fields)) expect(bytes(value), name).toBeLessThanOrEqual(FIELD_CHUNK_BYTES);
    // Split values leave no field of their own name, so a raw read finds nothing rather than a piece.
    for (const name of ['authorization_details', 'client_name', 'binding_message', 'parties', 'notification_token']) {
      expect(fields[name], name).toBeUndefined();
      expect(fields[`${name}#0`], name).toBeDefined();
    }
    expect(fields.details_hash).toBe(original.details_hash);
    const back = fromFields(fields);
    expect(back).toMatchObject({ ...original, approvals: [] });
    expect(back.authorization_details).toStrictEqual(original.authorization_details);
    expect(notificationTokenOf(fields)).toBe('n'.repeat(200));
  });

  it('keeps short values in their own field, and reads records stored whole before chunking', () => {
    const short = request({ client_name: 'Agent', binding_message: 'Order 1042', parties: ['customer'] });
    const fields = toFields(short, { client_notification_token: 'token' });
    expect(fields).toMatchObject({ client_name: 'Agent', binding_message: 'Order 1042', parties: '["customer"]', notification_token: 'token' });
    expect(Object.keys(fields).filter((name) => name.includes('#'))).toStrictEqual(['authorization_details#0', 'authorization_details#1', 'authorization_details#2', 'authorization_details#3']);
    const whole = { ...fields, authorization_details: JSON.stringify(short.authorization_details) };
    for (const name of Object.keys(whole)) if (name.startsWith('authorization_details#')) delete (whole as Record<string, string>)[name];
    expect(fromFields(whole).authorization_details).toStrictEqual(short.authorization_details);
    expect(fromFields(fields)).toStrictEqual(fromFields(whole));
  });
});
