export type { AuditChannel, AuditEvent, AuditType, ChainedAuditEvent, StoredAuditEvent } from './audit-event.ts';
export { createAuditLog, type AuditLog } from './audit-log.ts';
export { createChainAppender, type ChainAppender } from './chain-appender.ts';
export { chainText, eventHash, genesisHash } from './chain-hash.ts';
export { withoutSecrets } from './no-secrets.ts';
export { storedEvent, storedFields } from './stored-event.ts';
export { verifyChain, type ChainBreak, type ChainBreakReason, type ChainHead, type ChainReport } from './verify-chain.ts';
