export { ApiError, isApiError, type ApiErrorCode } from './api-error.ts';
export {
  DEVICE_EVENTS_URL,
  getEnrollmentOptions,
  getRequest,
  getSession,
  listRequests,
  postDecision,
  putPushSubscription,
  verifyEnrollment,
  type DeviceSession,
  type RequestView,
} from './device-api.ts';
