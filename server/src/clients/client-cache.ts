import type { Clock } from '../runtime/index.ts';
import type { Store } from '../store/index.ts';
import type { ClientRecord } from './client-record.ts';
import { findClient } from './create-client.ts';

/** Milliseconds a client record is kept in process after it was read: the staleness bound. */
export const CLIENT_CACHE_TTL_MS = 5_000;

/** Client records kept at most; the oldest read is dropped first. */
export const CLIENT_CACHE_MAX_ENTRIES = 1_000;

/** Options of {@link createClientCache}. */
export interface ClientCacheOptions {
  store: Store;
  /** The clock the entries' age is measured on (epoch ms); the server's injected clock. */
  clock: Clock;
  /** {@link CLIENT_CACHE_TTL_MS} by default. */
  ttlMs?: number;
  /** {@link CLIENT_CACHE_MAX_ENTRIES} by default. */
  maxEntries?: number;
}

/** Client records by `client_id`, read through a short in-process cache. See {@link createClientCache}. */
export interface ClientCache {
  /**
   * The client with this id, or null: from the cache when it was read less than `ttlMs` ago on the
   * injected clock, else from the store. Lookups of one id while its read is in flight share it.
   * The record is frozen: it is shared by every request that finds it.
   */
  find(clientId: string): Promise<ClientRecord | null>;
  /**
   * Drops this instance's copy of one client, after an operator changed or deleted it (disabled,
   * secret rotated): the next call reads the store. Other instances see the change within `ttlMs`.
   */
  forget(clientId: string): void;
}

interface Entry {
  record: ClientRecord;
  /** Epoch ms on the injected clock. */
  readAt: number;
}

/**
 * A short in-process cache of client records in front of `GET client:{id}`, the read every
 * client-authenticated endpoint pays before anything else.
 *
 * Staleness: a record is served for at most `ttlMs` (5 s by default) after this instance read it,
 * measured on the injected clock. An operator's change to a client (disabled, enabled,
 * secret rotated, deleted: `clients/manage-clients.ts`) is seen at once by the instance that made
 * it (`forget`) and by every other instance within `ttlMs`. A miss (unknown `client_id`) is never cached: a client registered on another instance
 * authenticates here at once, and a flood of unknown ids cannot fill the cache. At most
 * `maxEntries` records are kept; past that the one read from the store longest ago is dropped.
 */
export function createClientCache(options: ClientCacheOptions): ClientCache {
  const ttlMs = options.ttlMs ?? CLIENT_CACHE_TTL_MS;
  const maxEntries = options.maxEntries ?? CLIENT_CACHE_MAX_ENTRIES;
  // A Map iterates in insertion order: an entry is re-inserted on every store read, so the oldest comes first.
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<ClientRecord | null>>();

  return {
    forget(clientId) {
      entries.delete(clientId);
    },
    find(clientId) {
      const cached = entries.get(clientId);
      const age = cached ? options.clock.now() - cached.readAt : -1;
      // A clock set back (age < 0) counts as stale, so no record outlives the bound whatever the clock does.
      if (cached && age >= 0 && age < ttlMs) return Promise.resolve(cached.record);
      if (cached) entries.delete(clientId);
      const running = inFlight.get(clientId);
      if (running) return running;
      const started = findClient(options.store, clientId)
        .then((record) => {
          if (!record) return null;
          Object.freeze(record);
          entries.set(clientId, { record, readAt: options.clock.now() });
          while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
          return record;
        })
        .finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, started);
      return started;
    },
  };
}
