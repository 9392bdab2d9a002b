/**
 * One approval a runner asked for and has not spent: what a run that ended waiting needs to
 * resume. It holds no arguments: a resumed run brings its own, and the server compares them.
 */
export interface PendingApproval {
  auth_req_id: string;
  /** The tool the approval was asked for. */
  tool: string;
  /** Seconds between polls, raised by every `slow_down` (CIBA Core §11). */
  interval: number;
  /** Number matching: the two-digit code the server answered, to show the person until they decide. */
  binding_code?: string;
  /** Epoch milliseconds after which the record is of no use (the request's or, once issued, the token's expiry). */
  expires_at: number;
  /**
   * The approval token, once the token endpoint issued it. It is issued only once per request, so
   * it is kept until spent: a resume with wrong arguments is refused and does not lose the approval
   * for the right ones. A bearer secret: a persistent store must guard it like the client secret.
   */
  access_token?: string;
}

/**
 * Where a runner keeps its {@link PendingApproval}s between a run that ended waiting and its
 * resumption. The default, {@link createMemoryPendingApprovals}, lives as long as the process; give
 * the runner a persistent one when runs resume in another process.
 */
export interface PendingApprovals {
  /** The record, or undefined when unknown or past `expires_at`. */
  get(auth_req_id: string): Promise<PendingApproval | undefined>;
  /** Stores or replaces the record of `record.auth_req_id`. */
  put(record: PendingApproval): Promise<void>;
  /** Forgets a record: once its approval was spent, denied, expired or refused for good. */
  delete(auth_req_id: string): Promise<void>;
}

/**
 * An in-memory {@link PendingApprovals}: for one process and for tests. Records past `expires_at`
 * are forgotten when read, and swept when a new one is put.
 *
 * @param now - epoch milliseconds; `Date.now` by default.
 */
export function createMemoryPendingApprovals(now: () => number = () => Date.now()): PendingApprovals {
  const records = new Map<string, PendingApproval>();
  return {
    async get(auth_req_id) {
      const record = records.get(auth_req_id);
      if (record && record.expires_at <= now()) {
        records.delete(auth_req_id);
        return undefined;
      }
      return record && { ...record };
    },
    async put(record) {
      for (const [id, { expires_at }] of records) if (expires_at <= now()) records.delete(id);
      records.set(record.auth_req_id, { ...record });
    },
    async delete(auth_req_id) {
      records.delete(auth_req_id);
    },
  };
}
