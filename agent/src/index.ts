/**
 * `@countersign/agent`: the agent's side of Countersign. The client speaks the server's CIBA and
 * redemption endpoints; the tool runner gates an agent's tools on one person's approval, redeems
 * before a tool runs and reports what really happened. The wire types (actions, schemas, error
 * codes) come from `@countersign/shared`, which this package depends on and re-exports.
 */
export * from './client/index.ts';
export * from './tools/index.ts';
export * from './pending/index.ts';
export * from '@countersign/shared';
