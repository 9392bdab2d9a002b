export { buildPushPayload, MAX_PUSH_PAYLOAD_BYTES, topicFor, type BuildPushPayloadInput } from './payload.ts';
export { DEV_VAPID_SUBJECT, loadVapidKeys, type LoadedVapidKeys, type LoadVapidKeysOptions, type VapidKeys } from './vapid-keys.ts';
export {
  createWebPushSender,
  DEFAULT_PUSH_TIMEOUT_MS,
  type PushSender,
  type PushSendOptions,
  type PushSendResult,
  type PushUrgency,
  type WebPushSenderOptions,
} from './sender.ts';
export {
  DEFAULT_PUSH_SERVICE_HOSTS,
  deletePushSubscription,
  isAllowedPushEndpoint,
  listPushSubscriptions,
  MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE,
  savePushSubscription,
  type PushEndpointPolicy,
  type PushOwner,
  type SavePushSubscriptionResult,
  type StoredPushSubscription,
} from './subscriptions.ts';
export {
  createPushNotifier,
  type NotifyUserInput,
  type NotifyUserResult,
  type PushLog,
  type PushLogEntry,
  type PushNotifier,
  type PushNotifierOptions,
} from './notifier.ts';
