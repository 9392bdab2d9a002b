/**
 * Indexes: sets and sorted sets of ids, which find records (a user's devices, a role's members, the
 * deadlines the sweepers read).
 *
 * One capability of the `Store` (`types.ts`): every operation on one key is atomic, and no
 * operation touches more than one key (or keys of one hash tag), so every one works on Redis Cluster.
 * Keys are logical (see `keys.ts`); TTLs are in seconds and only collect garbage.
 */
export interface IndexStore {
  /** Adds a member to a set, optionally resetting the set's TTL. */
  setAdd(key: string, member: string, ttlSeconds?: number): Promise<void>;
  /** Removes a member from a set. */
  setRemove(key: string, member: string): Promise<void>;
  /** All members of a set (empty when there is none). */
  setMembers(key: string): Promise<string[]>;

  /**
   * Adds a member to a sorted set with `score` (ZADD), or moves an existing member to the new
   * score; optionally resets the set's TTL. Scores are numbers such as epoch milliseconds.
   */
  sortedAdd(key: string, member: string, score: number, ttlSeconds?: number): Promise<void>;
  /**
   * Up to `limit` members whose score is at most `maxScore` (inclusive), lowest score first and
   * members of equal score in byte order (ZRANGE … BYSCORE LIMIT). The cost follows the members
   * returned, not the size of the set, so a deadline index can be read every second.
   */
  sortedRangeByScore(key: string, maxScore: number, limit: number): Promise<string[]>;
  /**
   * Up to `limit` members of a sorted set whose members all have score 0, in byte order, strictly
   * after `after` (from the first when null): ZRANGE … BYLEX LIMIT, O(log N + limit). What the
   * operator's paginated lists read (`keys.tenantUsers`, `keys.tenantClients`): the cursor is the
   * last member of the page before, so a member added or removed meanwhile moves no other.
   */
  sortedRangeAfter(key: string, after: string | null, limit: number): Promise<string[]>;
  /** Removes a member from a sorted set (ZREM); answers whether it was there. The last one removes the set. */
  sortedRemove(key: string, member: string): Promise<boolean>;
}
