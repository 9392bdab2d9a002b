export type { AuditChannel, AuditDetailItem, AuditDetailValue, AuditEvent, AuditType, ChainedAuditEvent, StoredAuditEvent } from './audit-event.ts';
export { createAuditLog, type AuditLog, type AuditLogOptions } from './audit-log.ts';
export { createChainAppender, type ChainAppender } from './chain-appender.ts';
export { chainText, eventHash, genesisHash } from './chain-hash.ts';
export { withoutSecrets } from './no-secrets.ts';
export { readRetentionAnchor, trimChain, type TrimReport } from './retention.ts';
export { storedEvent, storedFields } from './stored-event.ts';
export { isChainReset, isResetLink, chainResetEvent } from './chain-reset.ts';
export { verifyChain, type ChainBreak, type ChainBreakReason, type ChainHead, type ChainReport, type ChainReset, type RetentionAnchor, type RetentionAnchorLine } from './verify-chain.ts';
