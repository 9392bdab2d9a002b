import { describe, expect, it } from 'vitest';
import { assertionClaims, formBody, JWT_BEARER, sign } from './support/client-jwt.ts';
import { esKey, psKey, useClientKeys } from './support/client-keys.ts';
import { payment } from './support/payment.ts';
import { bcAuthorize, claims, customer, fapi, FORM, harness, inbox, now, optional, signer, stored, useSignedRequestWorld } from './support/signed-request.ts';

/**
 * Signed authentication requests (CIBA Core §7.1.1) that must be accepted: signed ES256 or PS256,
 * FAPI-CIBA with a private_key_jwt assertion, claims written as strings, the longest lifetime, and
 * signing where a client need not. The refusals are in `signed-request-refusals.test.ts`; the
 * set-up is `support/signed-request.ts`.
 */

useClientKeys();

describe.each(['memory', 'redis'] as const)('signed authentication requests (%s store)', (storeKind) => {
  useSignedRequestWorld(storeKind);

  it('accepts a request signed ES256 and takes every parameter from its claims', async () => {
    const answer = await bcAuthorize({ request: await sign(esKey, claims()) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.expires_in).toBe(120);
    const request = await stored(answer.body.auth_req_id);
    expect(request).toMatchObject({ client_id: signer.client_id, sub: customer.sub, binding_message: 'Order 1042', authorization_details: payment() });
    expect(await inbox()).toHaveLength(1);
  });

  it('accepts a FAPI-CIBA request signed PS256, with a private_key_jwt assertion beside it', async () => {
    const assertion = await sign(psKey, assertionClaims(fapi, harness.issuer, harness.clock.now()));
    const request = await sign(psKey, claims({}, fapi));
    const answer = await harness.call('POST', '/bc-authorize', {
      headers: { 'content-type': FORM },
      body: formBody({ client_id: fapi, client_assertion_type: JWT_BEARER, client_assertion: assertion, request }),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await stored(answer.body.auth_req_id)).client_id).toBe(fapi);
  });

  it('accepts authorization_details and requested_expiry written as strings', async () => {
    const answer = await bcAuthorize({ request: await sign(esKey, claims({ authorization_details: JSON.stringify(payment()), requested_expiry: '90' })) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.expires_in).toBe(90);
  });

  it('accepts a lifetime of exactly 60 minutes', async () => {
    const answer = await bcAuthorize({ request: await sign(esKey, claims({ nbf: now() - 5, exp: now() - 5 + 3600 })) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });

  it('lets a client without a registered algorithm send a plain request, or one signed ES256 or PS256', async () => {
    const plain = { scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()) };
    expect((await bcAuthorize(plain, optional)).status).toBe(200);
    for (const [key, transaction] of [
      [esKey, 'txn_es'],
      [psKey, 'txn_ps'],
    ] as const) {
      const request = await sign(key, claims({ authorization_details: payment({ transaction_id: transaction }) }, optional.client_id));
      const answer = await bcAuthorize({ request }, optional);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    expect(await inbox()).toHaveLength(3);
  });
});
