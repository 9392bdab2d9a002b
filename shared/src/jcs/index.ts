export { canonicalize } from './canonicalize.ts';
export { detailsHash, decisionChallenge, type DecisionChallengeInput } from './details-hash.ts';
// `node:crypto` under Node, WebCrypto in the browser (shared/package.json `imports`).
export { base64url, sha256 } from '#sha256';
