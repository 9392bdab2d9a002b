export { createAuditLog, type AuditChannel, type AuditEvent, type AuditLog, type AuditType } from './audit-log.ts';
