export { canonicalize } from './canonicalize.ts';
export { detailsHash, decisionChallenge } from './details-hash.ts';
export { base64url, sha256 } from './sha256.ts';
