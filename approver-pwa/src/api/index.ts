export { ApiError, isApiError, type ApiErrorCode } from './api-error.ts';
export {
  createEnrollmentLink,
  DEVICE_EVENTS_URL,
  getEnrollmentLinkOptions,
  getEnrollmentOptions,
  getHistory,
  getRequest,
  getSession,
  listDevices,
  listRequests,
  postDecision,
  postReport,
  putPushSubscription,
  removeDevice,
  renameDevice,
  verifyEnrollment,
  type DeviceSession,
  type RequestView,
} from './device-api.ts';
export { getMandate, listMandates, revokeMandate, type MandateDetail } from './mandate-api.ts';
