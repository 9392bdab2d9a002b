import { exportJWK, importJWK, type CryptoKey } from 'jose';
import { beforeAll } from 'vitest';
import { clientKey, type ClientKey } from './client-jwt.ts';

/**
 * The client keys of the client authentication and signed request tests, made once a file by
 * `useClientKeys`. They are exported bindings, which ES modules keep live: a test that imports
 * `esKey` reads the key its `beforeAll` made.
 */

export let esKey: ClientKey;
export let psKey: ClientKey;
export let rsaForRs256: ClientKey;
export let strangerKey: ClientKey;

/** Makes the client keys once, before the tests of the calling file or `describe`. */
export function useClientKeys(): void {
  beforeAll(async () => {
    [esKey, psKey, strangerKey] = await Promise.all([clientKey('ES256'), clientKey('PS256'), clientKey('ES256')]);
    // RS256 with the very RSA key the client registered for PS256: the key fits, the algorithm does not.
    rsaForRs256 = { ...psKey, alg: 'RS256', privateKey: (await importJWK(await exportJWK(psKey.privateKey), 'RS256')) as CryptoKey };
  });
}
