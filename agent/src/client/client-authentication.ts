import type { CryptoKey, JWK } from 'jose';
import { checkAssertionKey, importAssertionKey, JWT_BEARER_ASSERTION_TYPE, signClientAssertion, type AssertionKey, type ClientAssertionAlg } from './client-assertion.ts';
import { clientSecretBasic } from './client-secret-basic.ts';

/** A client authentication method the server supports. @see RFC 7591 §2 (`token_endpoint_auth_method`) */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/**
 * How the agent client authenticates: the method the client was registered with
 * (`token_endpoint_auth_method`); the server refuses any other.
 *
 * - `client_secret_basic`: `Authorization: Basic`, id and secret form-urlencoded (RFC 6749 §2.3.1).
 * - `client_secret_post`: `client_id` and `client_secret` in the form, or as members of the JSON
 *   body of `/redeem` and the outcome report (RFC 6749 §2.3.1).
 * - `private_key_jwt`: a fresh assertion signed with the client's private key on every call,
 *   `client_assertion_type` + `client_assertion` (+ `client_id`) where the secret would go
 *   (RFC 7523 §2.2, OpenID Connect Core 1.0 §9). The server holds the public key (`jwks`).
 */
export type ClientAuthentication =
  | {
      method: 'client_secret_basic' | 'client_secret_post';
      /** The client secret; never logged, never in an error. */
      clientSecret: string;
    }
  | {
      method: 'private_key_jwt';
      /** The private key: a CryptoKey (`sign` usage) or a private JWK (with `d`). EC P-256 or RSA. */
      privateKey: CryptoKey | JWK;
      /** The `kid` header, naming the registered key; defaults to the JWK's `kid`, else none. */
      kid?: string;
      /** `ES256` or `PS256`; defaults to the JWK's `alg`, else ES256 for a P-256 key and PS256 for RSA. */
      alg?: ClientAssertionAlg;
    };

/** One call's credentials: a header, parameters for the form or the JSON body, or both. */
export interface CallCredentials {
  /** The `Authorization` header value, for `client_secret_basic`. */
  authorization?: string;
  /** Form parameters (or JSON members of the same names). */
  params: Record<string, string>;
}

/** Makes each call's credentials; a `private_key_jwt` one signs a new assertion every time. */
export interface ClientCredentials {
  readonly method: ClientAuthMethod;
  /** Credentials for one call. @throws TypeError when a `private_key_jwt` JWK does not import. */
  next(): Promise<CallCredentials>;
}

/** Inputs of {@link createClientCredentials} besides the method. */
export interface ClientCredentialsContext {
  clientId: string;
  /** The assertion's `aud`: the issuer. */
  audience: string;
  /** Epoch milliseconds, for `iat` and `exp`. */
  now: () => number;
  /** A fresh `jti` for each assertion. */
  newId: () => string;
}

/**
 * Checks the configured client authentication once and returns what makes each call's credentials.
 *
 * @throws TypeError for an unknown method, an empty secret, or a key {@link checkAssertionKey}
 *   refuses; the message never holds the secret or the key.
 * @see RFC 6749 §2.3.1, RFC 7523 §2.2 and §3, OpenID Connect Core 1.0 §9
 */
export function createClientCredentials(auth: ClientAuthentication, context: ClientCredentialsContext): ClientCredentials {
  const { clientId } = context;
  if (typeof clientId !== 'string' || clientId === '') throw new TypeError('clientId must be a non-empty string');
  switch (auth?.method) {
    case 'client_secret_basic':
    case 'client_secret_post': {
      if (typeof auth.clientSecret !== 'string' || auth.clientSecret === '') throw new TypeError(`${auth.method} needs clientSecret, a non-empty string`);
      if (auth.method === 'client_secret_basic') {
        const authorization = clientSecretBasic(clientId, auth.clientSecret);
        return { method: auth.method, next: async () => ({ authorization, params: {} }) };
      }
      const params = { client_id: clientId, client_secret: auth.clientSecret };
      return { method: auth.method, next: async () => ({ params: { ...params } }) };
    }
    case 'private_key_jwt': {
      // Checked now, so a wrong key fails at start-up; imported on first use, as importing is async.
      checkAssertionKey(auth);
      let key: Promise<AssertionKey> | undefined;
      return {
        method: auth.method,
        async next() {
          key ??= importAssertionKey(auth);
          const assertion = await signClientAssertion(await key, { clientId, audience: context.audience, nowMs: context.now(), jti: context.newId() });
          // client_id beside the assertion is optional (RFC 7521 §4.2); the server checks it names the `sub`.
          return { params: { client_id: clientId, client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: assertion } };
        },
      };
    }
    default:
      throw new TypeError('auth.method must be client_secret_basic, client_secret_post or private_key_jwt');
  }
}
