/** The bench drives approvals with the same software passkey the tests use. */
export { createSoftAuthenticator, type SoftAuthenticator } from '../../../test/support/soft-authenticator.ts';
