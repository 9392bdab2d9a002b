/**
 * One approval a runner asked for and has not spent: what a call that ended waiting needs to
 * resume, in this process or the next. It holds no arguments: a resumed call brings its own, and
 * the server compares them (guarantee 3); the {@link PendingApproval.call_key} only finds it.
 */
export interface PendingApproval {
  /**
   * Which call this is: the tool's name and the SHA-256 of its validated arguments in JCS
   * (see `callKey`). The same call made again finds this record instead of asking a second time.
   */
  call_key: string;
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
  /**
   * Opaque to the runner, kept as it is: what a framework adapter needs to continue the run that
   * made this call (a serialized run state). The runner carries it over every update it makes.
   */
  run_state?: string;
}

/**
 * Where a runner keeps its {@link PendingApproval}s between a call that ended waiting and its
 * resumption. The default, {@link createMemoryPendingApprovals}, lives as long as the process; give
 * the runner a persistent one (`createRedisPendingApprovals`) when runs resume in another process.
 * Every method ignores records past `expires_at`.
 */
export interface PendingApprovals {
  /** The record of a call, by its `call_key`; undefined when unknown or expired. */
  get(call_key: string): Promise<PendingApproval | undefined>;
  /** The record of a request, by its `auth_req_id`; undefined when unknown or expired. */
  getByRequest(auth_req_id: string): Promise<PendingApproval | undefined>;
  /** Stores or replaces the record of `record.call_key`. */
  put(record: PendingApproval): Promise<void>;
  /** Forgets a call's record: once its approval was spent, denied, expired or refused for good. */
  delete(call_key: string): Promise<void>;
  /** Every unexpired record, oldest expiry first: what a restarted agent has left to resume. */
  list(): Promise<PendingApproval[]>;
}

/**
 * An in-memory {@link PendingApprovals}: for one process and for tests. Records past `expires_at`
 * are forgotten when read, and swept when a new one is put.
 *
 * @param now - epoch milliseconds; `Date.now` by default.
 */
export function createMemoryPendingApprovals(now: () => number = () => Date.now()): PendingApprovals {
  const records = new Map<string, PendingApproval>();
  const byRequest = new Map<string, string>();
  const live = (record: PendingApproval | undefined) => (record && record.expires_at > now() ? { ...record } : undefined);
  function forget(call_key: string) {
    const record = records.get(call_key);
    records.delete(call_key);
    if (record && byRequest.get(record.auth_req_id) === call_key) byRequest.delete(record.auth_req_id);
  }
  return {
    async get(call_key) {
      return live(records.get(call_key));
    },
    async getByRequest(auth_req_id) {
      const call_key = byRequest.get(auth_req_id);
      return call_key === undefined ? undefined : live(records.get(call_key));
    },
    async put(record) {
      for (const [call_key, { expires_at }] of records) if (expires_at <= now()) forget(call_key);
      const previous = records.get(record.call_key);
      if (previous && previous.auth_req_id !== record.auth_req_id) byRequest.delete(previous.auth_req_id);
      records.set(record.call_key, { ...record });
      byRequest.set(record.auth_req_id, record.call_key);
    },
    async delete(call_key) {
      forget(call_key);
    },
    async list() {
      return [...records.values()]
        .filter((record) => record.expires_at > now())
        .sort((a, b) => a.expires_at - b.expires_at)
        .map((record) => ({ ...record }));
    },
  };
}
