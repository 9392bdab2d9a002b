export { KeyRing, SIGNING_ALGORITHMS } from './key-ring.ts';
export { approvalAudience, atHash, signApprovalToken, signIdToken, type ApprovalClaims } from './sign-tokens.ts';
export { verifyApprovalToken } from './verify-approval-token.ts';
export { signTokenResponse, type TokenSubject } from './sign-token-response.ts';
export { TOKEN_HASH_FIELD, tokenHash } from './token-hash.ts';
