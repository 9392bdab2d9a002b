export { createClientNotifier, type ClientNotifierOptions } from './create-client-notifier.ts';
export { pingBody, pushErrorBody, pushTokenBody, type PingBody, type PushErrorBody, type PushErrorCode, type PushTokenBody } from './notification-body.ts';
export { notifyClient, type NotifyOutcome } from './notify-client.ts';
export {
  DEFAULT_NOTIFICATION_TIMEOUT_MS,
  DEFAULT_RETRY_DELAYS_MS,
  postNotification,
  type DeliveryFailure,
  type DeliveryOptions,
  type DeliveryResult,
  type NotificationFetch,
  type Sleep,
} from './post-notification.ts';
