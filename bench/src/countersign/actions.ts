import type { LoadItem } from '../load/spec.ts';

/** The action every benchmark request asks about: a payment in the standard tier (below every amount threshold). */
export function payment(transactionId: string): Record<string, unknown>[] {
  return [{ type: 'payment', transaction_id: transactionId, amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];
}

/** One backchannel authentication request the load will send, and what it was for. */
export interface PlannedRequest {
  sub: string;
  details: string;
}

/**
 * `count` distinct `/bc-authorize` bodies (form-encoded, CIBA Core §7.1), spread round-robin over
 * `subs`. Every body has its own `transaction_id`: the same one twice is, by design, the same request.
 * The binding message is short and plain, so the peer's default validator accepts it as well.
 * A ping client's requests carry its `notificationToken` (CIBA Core §7.1 `client_notification_token`).
 */
export function backchannelBodies(subs: string[], count: number, tag: string, notificationToken?: string): { items: LoadItem[]; planned: PlannedRequest[] } {
  const token = notificationToken ? `&client_notification_token=${encodeURIComponent(notificationToken)}` : '';
  const items: LoadItem[] = [];
  const planned: PlannedRequest[] = [];
  for (let i = 0; i < count; i++) {
    const sub = subs[i % subs.length]!;
    const details = JSON.stringify(payment(`txn_${tag}_${i}`));
    items.push({ body: `scope=openid&login_hint=${sub}&binding_message=Order-1042&authorization_details=${encodeURIComponent(details)}${token}` });
    planned.push({ sub, details });
  }
  return { items, planned };
}

/** Splits `index<TAB>value` captures of the load process. */
export function parseCaptures(captured: string[]): { index: number; value: string }[] {
  return captured.map((line) => {
    const tab = line.indexOf('\t');
    return { index: Number(line.slice(0, tab)), value: line.slice(tab + 1) };
  });
}

/** The `/token` body of the CIBA grant (CIBA Core §10.1). */
export function tokenBody(authReqId: string): string {
  return `grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=${authReqId}`;
}
