export { clientNotificationHandler, createClientNotifier, deliveryOptions, type ClientNotifierOptions } from './create-client-notifier.ts';
export { issuePushTokens, keptPushBody, PUSH_BODY_FIELD, type IssuePushTokensDeps } from './issue-push-tokens.ts';
export { pingBody, pushErrorBody, pushTokenBody, type PingBody, type PushErrorBody, type PushErrorCode, type PushTokenBody } from './notification-body.ts';
export { notifyClient, type NotifyClientDeps, type NotifyOutcome } from './notify-client.ts';
export {
  DEFAULT_NOTIFICATION_TIMEOUT_MS,
  DEFAULT_RETRY_DELAYS_MS,
  postNotification,
  type DeliveryFailure,
  type DeliveryOptions,
  type DeliveryResult,
  type NotificationFetch,
} from './post-notification.ts';
