/**
 * `@countersign/shared/node`: what only runs under Node (`node:crypto`), for the server. The
 * browser (the approver PWA) imports `@countersign/shared` alone.
 */
export { decisionChallengeSync, detailsHashSync } from './jcs/details-hash-sync.ts';
export { sha256Sync } from './jcs/sha256-node.ts';
