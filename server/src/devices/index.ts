export { decisionOptions, decisionPrompts, type ChallengeRecord } from './decision-options.ts';
export { findDevice, listDevices, saveDevice, type DeviceRecord } from './device-record.ts';
export { createEnrollment, enrollmentOptions, verifyEnrollment } from './enrollment.ts';
export { listInbox } from './inbox.ts';
export { listHistory } from './list-history.ts';
export { HISTORY_LIMIT, historyKey, recordHistory, type HistoryActor } from './record-history.ts';
export { deviceRoutes } from './routes.ts';
export { endSession, requireSameOrigin, requireSession, startSession, type DeviceSession } from './session.ts';
export { verifyDecision, type DecisionExtras } from './verify-decision.ts';
