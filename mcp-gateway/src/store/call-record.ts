import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the gateway knows about one gated call (one {@link callKey}), from the moment it asked for
 * the approval until well after the call ran. Moves only forward:
 * `pending → approved → redeemed → done`, or `pending → denied`; an expired or refused request
 * drops the record (Countersign makes a new request for the same `transaction_id` once the old
 * one expired, so the same call made again asks anew).
 */
export type CallRecord =
  | {
      state: 'pending';
      auth_req_id: string;
      binding_message: string;
      /** Seconds between polls, raised by every `slow_down` (CIBA Core §11). */
      interval: number;
      /** Epoch ms the request expires at. */
      expires_at: number;
    }
  | {
      state: 'approved';
      auth_req_id: string;
      binding_message: string;
      /**
       * The approval token: the token endpoint issues it once, so it is kept until spent. A bearer
       * secret for this one call: it never leaves the store but for `/redeem`.
       */
      access_token: string;
      /** Epoch ms the token expires at. */
      expires_at: number;
    }
  | {
      /** Redeemed, and the upstream call started: it is never started again, whatever follows. */
      state: 'redeemed';
      auth_req_id: string;
      redemption_id: string;
    }
  | {
      /** The person said no to exactly this call: the same call is answered `denied` again, not asked again. */
      state: 'denied';
      auth_req_id: string;
    }
  | {
      state: 'done';
      auth_req_id: string;
      /** The upstream's answer: its result, or the JSON-RPC error it answered with. */
      outcome: { result: CallToolResult } | { error: { code: number; message: string; data?: unknown } };
    };

/**
 * Where the gateway keeps its {@link CallRecord}s, by call key. Memory for one process, Redis to
 * survive a restart. Every method is one atomic operation on one key.
 */
export interface CallStore {
  /** The record, or undefined when unknown or past its time. */
  get(key: string): Promise<CallRecord | undefined>;
  /** Stores or replaces the record, kept for `ttlSeconds`. */
  put(key: string, record: CallRecord, ttlSeconds: number): Promise<void>;
  /**
   * Replaces the record with `next` only while it is still exactly `expected` (as `get` answered
   * it), in one atomic step; answers whether it did. Of two runs that redeemed the same approval
   * (a retry after a lost answer, a second gateway process on the same Redis), one claims the call
   * and runs the upstream; the other finds the record moved on.
   */
  replace(key: string, expected: CallRecord, next: CallRecord, ttlSeconds: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
