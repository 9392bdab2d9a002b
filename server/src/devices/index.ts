export { decisionOptions, decisionPrompts, promptOptions, type ChallengeRecord, type PromptOwner, type PromptSpec, type ViewPrompts } from './decision-options.ts';
export { findDevice, listDevices, saveDevice, type DeviceRecord } from './device-record.ts';
export { createEnrollment, enrollmentOptions, verifyEnrollment } from './enrollment.ts';
export { listInbox } from './inbox.ts';
export { livePrompts, readLivePrompts, type LivePrompts } from './live-prompts.ts';
export { deviceRoutes } from './routes.ts';
export { audienceOf, rolesOf } from './audience.ts';
export { endSession, requireSameOrigin, requireSession, startSession, type DeviceSession } from './session.ts';
export { verifyDecision, type DecisionExtras } from './verify-decision.ts';
