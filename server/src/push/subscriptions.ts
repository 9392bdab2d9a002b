import { pushSubscription, type PushSubscriptionJSON } from '@countersign/shared';
import { isHostName } from '../config/index.ts';
import { type IndexStore, keys, type RecordStore } from '../store/index.ts';

/** The device a push subscription belongs to (docs/design.md guarantee 5: tenancy in every key). */
export interface PushOwner {
  tenant: string;
  sub: string;
  deviceId: string;
}

/** One stored subscription and the device it belongs to. */
export interface StoredPushSubscription {
  deviceId: string;
  subscription: PushSubscriptionJSON;
}

/** The answer of {@link savePushSubscription}. */
export type SavePushSubscriptionResult = { saved: true } | { saved: false; reason: 'too_many_subscriptions' };

/**
 * How many subscriptions one device may hold. A PWA install has one subscription at a time
 * (a browser rotates it rarely); the cap stops one device session from making every push fan
 * out to endpoints of its choosing. Stale ones are removed by their 404/410 at the next push.
 */
export const MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE = 5;

/**
 * The push services of the major browsers (Chrome/Edge-on-Chromium via FCM, Firefox, Edge/Windows
 * WNS, Safari/Apple). A leading `*.` matches any subdomain, not the bare domain.
 */
export const DEFAULT_PUSH_SERVICE_HOSTS: readonly string[] = ['fcm.googleapis.com', 'updates.push.services.mozilla.com', '*.notify.windows.com', 'web.push.apple.com', '*.push.apple.com'];

/**
 * Stores (or replaces, by endpoint) one push subscription of a device, as the field `endpoint`
 * of the hash `keys.devicePush(tenant, sub, deviceId)`. It does not add the device to the user's
 * device set: enrollment does that, and a revoked device must not come back through here.
 *
 * Check the endpoint with {@link isAllowedPushEndpoint} first, and validate the body with the
 * shared `pushSubscription` schema: the server will POST to that URL.
 *
 * @param store The store.
 * @param owner The device's tenant, user and id.
 * @param subscription A validated browser `PushSubscription.toJSON()`.
 * @returns `{saved: true}`, or `{saved: false, reason: 'too_many_subscriptions'}` when the device
 *   already holds {@link MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE} other endpoints.
 * @see RFC 8030 §4 (subscribing for push messages)
 */
export async function savePushSubscription(store: RecordStore & IndexStore, owner: PushOwner, subscription: PushSubscriptionJSON): Promise<SavePushSubscriptionResult> {
  const key = keys.devicePush(owner.tenant, owner.sub, owner.deviceId);
  const existing = (await store.hashGet(key)) ?? {};
  // Read-then-write is not atomic; two racing saves may exceed the cap by one, which is harmless.
  if (!Object.hasOwn(existing, subscription.endpoint) && Object.keys(existing).length >= MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE) {
    return { saved: false, reason: 'too_many_subscriptions' };
  }
  await store.hashSet(key, { [subscription.endpoint]: JSON.stringify(subscription) });
  return { saved: true };
}

/**
 * Every push subscription of every device of one user (`keys.userDevices(tenant, sub)`), read in
 * parallel. A stored value that no longer parses as a subscription is skipped, not thrown.
 *
 * @param store The store.
 * @param tenant The user's tenant.
 * @param sub The user.
 * @returns The subscriptions with their device ids; empty when the user has none.
 */
export async function listPushSubscriptions(store: RecordStore & IndexStore, tenant: string, sub: string): Promise<StoredPushSubscription[]> {
  const deviceIds = await store.setMembers(keys.userDevices(tenant, sub));
  const perDevice = await Promise.all(
    deviceIds.map(async (deviceId) => {
      const fields = (await store.hashGet(keys.devicePush(tenant, sub, deviceId))) ?? {};
      return Object.values(fields).flatMap((json) => {
        const subscription = parseSubscription(json);
        return subscription ? [{ deviceId, subscription }] : [];
      });
    }),
  );
  return perDevice.flat();
}

/**
 * Deletes exactly one push subscription (one hash field) of one device; the device's other
 * subscriptions and every other device are untouched.
 *
 * @param store The store.
 * @param owner The device's tenant, user and id.
 * @param endpoint The subscription's endpoint URL.
 * @returns Whether it existed.
 * @see RFC 8030 §7.3 (subscription expiration: 404/410)
 */
export async function deletePushSubscription(store: RecordStore & IndexStore, owner: PushOwner, endpoint: string): Promise<boolean> {
  return store.hashDelete(keys.devicePush(owner.tenant, owner.sub, owner.deviceId), endpoint);
}

/** Options of {@link isAllowedPushEndpoint}. */
export interface PushEndpointPolicy {
  /** `NODE_ENV=production`: only known push service hosts are accepted. */
  production: boolean;
  /** The accepted hosts in production (`*.` matches subdomains); {@link DEFAULT_PUSH_SERVICE_HOSTS} by default. */
  allowedHosts?: readonly string[] | undefined;
}

/**
 * Whether the server may POST push messages to `endpoint`. The endpoint comes from a device, so
 * this is what stops a device session from aiming the server at an internal address (SSRF). In
 * development any `https:` URL is accepted (a local test receiver, docs/design.md "Configuration
 * and start-up"). In production only `https:` URLs on a known push service host, on the default
 * port 443 (`:443` or none: a push service listens there, and another port on an allowed host is
 * not the push service). URLs with credentials are refused in both.
 *
 * In production the host must also be a plain DNS name (letters, digits, `-` and dots). The
 * sender (`web-push`) finds the host with Node's legacy `url.parse`, which stops at characters the
 * WHATWG parser keeps in a host name: `https://10.0.0.5;.push.apple.com/` is a subdomain of
 * `push.apple.com` here and a POST to `10.0.0.5` there. On a plain name both parsers agree.
 *
 * @param endpoint The subscription's endpoint.
 * @param policy The mode and the production host list.
 * @returns True when allowed.
 * @see RFC 8030 §8 (security: push service identity), RFC 8292 §1
 * @example
 * ```ts
 * isAllowedPushEndpoint('https://fcm.googleapis.com/fcm/send/abc', { production: true }); // true
 * isAllowedPushEndpoint('https://fcm.googleapis.com:8443/fcm/send/abc', { production: true }); // false
 * isAllowedPushEndpoint('https://169.254.169.254/latest', { production: true }); // false
 * ```
 */
export function isAllowedPushEndpoint(endpoint: string, policy: PushEndpointPolicy): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hostname === '') return false;
  if (!policy.production) return true;
  // The URL parser drops the default port, so `''` is both `:443` and no port at all.
  if (url.port !== '') return false;
  const host = url.hostname; // already lower-cased and punycoded by the URL parser
  if (!isHostName(host)) return false;
  return (policy.allowedHosts ?? DEFAULT_PUSH_SERVICE_HOSTS).some((pattern) => {
    const allowed = pattern.toLowerCase();
    return allowed.startsWith('*.') ? host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1 : host === allowed;
  });
}

function parseSubscription(json: string): PushSubscriptionJSON | null {
  try {
    const parsed = pushSubscription.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
