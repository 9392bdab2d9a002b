// The knobs of the soft authenticator (soft-authenticator.ts): how it is made, and how one ceremony misbehaves.

/** Options of `createSoftAuthenticator`. */
export interface SoftAuthenticatorOptions {
  /** The origin the "browser" reports in clientDataJSON, e.g. `http://localhost:8080`. */
  origin: string;
  /** The relying party id the authenticator is bound to (the bare host), e.g. `localhost`. */
  rpId: string;
  /** The signature counter to start from. Default 0. */
  signCount?: number;
  /**
   * `increment` (default): every assertion adds 1 to the counter first, like most security keys.
   * `fixed`: the counter never moves (0 stays 0, as passkey providers that sync keys do).
   */
  counter?: 'increment' | 'fixed';
  /** Whether the authenticator claims user verification (the UV flag). Default true. */
  userVerified?: boolean;
  /**
   * The credential id (base64url) to claim, with this authenticator's own key: a client can put any
   * id in its attested credential data (someone else's, say). A fresh random 32 bytes by default.
   */
  credentialId?: string;
}

/** Per-call knobs, to make one ceremony misbehave. */
export interface CeremonyOverrides {
  /** Report another origin in clientDataJSON (a phishing page, say). */
  origin?: string;
  /** Hash another RP id into the authenticator data, and skip the client's RP id check. */
  rpId?: string;
  /** Set or clear the UV flag for this call only. */
  userVerified?: boolean;
}

/** Per-call knobs of an assertion. */
export interface AssertionOverrides extends CeremonyOverrides {
  /** Send exactly this counter (e.g. one that goes backwards); the stored counter is left as it is. */
  signCount?: number;
  /**
   * Sign with a key of its own instead of the passkey's: what someone can send who knows the
   * credential id (every prompt names it) but not the private key. The authenticator's own counter
   * does not move.
   */
  forgeSignature?: boolean;
}
