export { EVIDENCE_FORMAT, exportMandateEvidence, type EvidenceApproval, type EvidenceSpend, type MandateEvidence } from './export-evidence.ts';
export { verifyMandateEvidence, type EvidenceProblem, type EvidenceProblemCode, type EvidenceReport } from './verify-evidence.ts';
