import type { AuditLog } from './audit/index.ts';
import type { Config } from './config/index.ts';
import type { EventBus } from './events/index.ts';
import type { Background, Clock, IdGenerator, Logger } from './runtime/index.ts';
import type { Store } from './store/index.ts';
import type { KeyRing } from './tokens/index.ts';

/** Sends Web Push notifications to all of a user's devices. */
export interface UserNotifier {
  notifyUser(input: { tenant: string; sub: string; auth_req_id: string; summary: string; ttlSeconds: number }): Promise<{ sent: number; removed: number; failed: number }>;
}

/** Everything the server's handlers use, passed in once: no module-level state, no globals. */
export interface Deps {
  config: Config;
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  keyRing: KeyRing;
  /** The VAPID public key the PWA subscribes with (RFC 8292 §3.2), base64url. */
  vapidPublicKey: string;
  push: UserNotifier;
  audit: AuditLog;
  events: EventBus;
  background: Background;
  log: Logger;
}
