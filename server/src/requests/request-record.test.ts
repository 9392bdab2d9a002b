import { describe, expect, it } from 'vitest';
import { FIELD_CHUNK_BYTES, splitUtf8 } from './request-chunks.ts';
import { fromFields, notificationTokenOf, toFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

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
    authorization_details: [{ type: 'payment', transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd ✓ 🏦' }, purpose: 'Refund for order 1042 — Erstattung für Bestellung 1042' }] as unknown as ApprovalRequest['authorization_details'],
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
    const chunkNames = { authorization_details: 'ad', client_name: 'cn', binding_message: 'bm', parties: 'pa', notification_token: 'nt' };
    for (const [name, short] of Object.entries(chunkNames)) {
      expect(fields[name], name).toBeUndefined();
      expect(fields[`${short}#0`], name).toBeDefined();
      expect(fields[`${name}#0`], name).toBeUndefined();
    }
    expect(fields.details_hash).toBe(original.details_hash);
    const back = fromFields(fields);
    expect(back).toMatchObject({ ...original, approvals: [] });
    expect(back.authorization_details).toStrictEqual(original.authorization_details);
    expect(notificationTokenOf(fields)).toBe('n'.repeat(200));
  });

  it('keeps short values in their own field, and reads records stored whole before chunking', () => {
    const short = request({ client_name: 'Agent', binding_message: 'Order 1042', parties: ['customer', 'role:ops'] });
    const fields = toFields(short, { client_notification_token: 'token' });
    expect(fields).toMatchObject({ client_name: 'Agent', binding_message: 'Order 1042', parties: '["customer","role:ops"]', notification_token: 'token' });
    expect(Object.keys(fields).filter((name) => name.includes('#'))).toStrictEqual(['ad#0', 'ad#1', 'ad#2', 'ad#3']);
    const whole = { ...fields, authorization_details: JSON.stringify(short.authorization_details) };
    const longChunks: Record<string, string> = { ...fields };
    for (const name of Object.keys(fields)) {
      if (!name.startsWith('ad#')) continue;
      delete (whole as Record<string, string>)[name];
      delete longChunks[name];
      longChunks[name.replace('ad#', 'authorization_details#')] = fields[name]!;
    }
    expect(fromFields(whole).authorization_details).toStrictEqual(short.authorization_details);
    expect(fromFields(fields)).toStrictEqual(fromFields(whole));
    // Chunks written under the long name, before the short ones, read the same.
    expect(fromFields(longChunks)).toStrictEqual(fromFields(fields));
  });

  it('leaves out the fields that hold their default, and reads them back as that default', () => {
    const plain = request({ binding_message: null, token_delivery_mode: 'poll', parties: ['customer'], tier: 'standard', scope: 'openid' });
    const fields = toFields(plain);
    for (const name of ['scope', 'binding_message', 'token_delivery_mode', 'tier', 'parties']) expect(fields[name], name).toBeUndefined();
    expect(fromFields(fields)).toMatchObject({ ...plain, approvals: [] });
    expect(fromFields(fields)).toMatchObject({ scope: 'openid', binding_message: null, token_delivery_mode: 'poll', tier: 'standard', parties: ['customer'] });
    // Other values are stored as they are.
    const other = toFields(request({ scope: 'openid payments', token_delivery_mode: 'push', tier: 'high-value' }));
    expect(other).toMatchObject({ scope: 'openid payments', token_delivery_mode: 'push', tier: 'high-value' });
    expect(fromFields(other)).toMatchObject({ scope: 'openid payments', token_delivery_mode: 'push', tier: 'high-value' });
  });
});
