import { createAuditLog } from './audit/index.ts';
import type { Config } from './config/index.ts';
import type { Deps } from './deps.ts';
import { EventBus } from './events/index.ts';
import { createPushNotifier, createWebPushSender, isAllowedPushEndpoint, loadVapidKeys, type PushSender } from './push/index.ts';
import { Background, consoleLogger, randomId, systemClock, type Clock, type IdGenerator, type Logger } from './runtime/index.ts';
import type { Store } from './store/index.ts';
import { KeyRing } from './tokens/index.ts';

/** What {@link createDeps} may be given instead of its defaults (tests inject clocks and senders). */
export interface DepsOverrides {
  clock?: Clock;
  ids?: IdGenerator;
  log?: Logger;
  pushSender?: PushSender;
}

/**
 * Builds the server's dependencies once at start: loads (or, in development, generates and keeps)
 * the signing key and the VAPID keys, and wires the push notifier and the audit log to the store.
 */
export async function createDeps(config: Config, store: Store, overrides: DepsOverrides = {}): Promise<Deps> {
  const log = overrides.log ?? consoleLogger;
  const clock = overrides.clock ?? systemClock;
  const keyRing = await KeyRing.load({ store, signingKey: config.signingKey, production: config.production });
  const vapid = await loadVapidKeys({ store, ...config.vapid, production: config.production });
  const sender = overrides.pushSender ?? createWebPushSender({ vapid });
  const policy = { production: config.production, allowedHosts: config.pushAllowedHosts };
  const push = createPushNotifier({
    store,
    sender,
    log: (entry) => log.info('push', { ...entry }),
    allowEndpoint: (endpoint) => isAllowedPushEndpoint(endpoint, policy),
  });
  return {
    config,
    store,
    clock,
    ids: overrides.ids ?? randomId,
    keyRing,
    vapidPublicKey: vapid.publicKey,
    push,
    audit: createAuditLog(store, clock, config.retentionSeconds),
    events: new EventBus(),
    background: new Background(log),
    log,
  };
}
