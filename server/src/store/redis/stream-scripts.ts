/** Lua scripts of the Redis store's streams (`StreamStore`, `QueueStore`). */

/** The stream scripts of {@link SCRIPTS} (redis-scripts.ts); the first two take more than one key. */
export const STREAM_SCRIPTS = {
  // KEYS[1]: the stream; KEYS[2…]: index strings in the stream's hash tag (checked before the call).
  // ARGV: the id the newest entry must have ('' for an empty or missing stream), then per entry its
  // pair count n, the KEYS position of its index (0: none), that index's TTL in ms, and n
  // field/value pairs. countersignStreamAppendManyAfter for a batch (per entry: field count, index
  // position, index TTL ms, once-token or '', then its pairs): one guard, then one XADD per
  // entry, and each index rewritten once with its new ids appended, all in one script, so a batch
  // lands whole after the named tail, indexed, or not at all; an index never names an entry the
  // chain lacks. An index is a string of ids separated by spaces (`StreamIndex`): GET and SET
  // rather than APPEND, whose growth doubles the allocation, so a request's two ids stay one
  // embedded string. The indexes are read (GET, and TYPE only when GET is refused) before the first
  // write, because a Lua error after an XADD would leave the entries appended but unindexed; a list
  // index (the layout before) is read there and replaced by the string. Answers the new ids in order, or the tail it lost to.
  // Mirrors `streamAppendManyAfter` in memory-store.ts.
  countersignStreamAppendManyAfter: `
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local newestId = newest and newest[1] or ''
if newestId ~= ARGV[1] then
  if newest then return {'conflict', newest[1], newest[2]} end
  return {'conflict'}
end
local joined, ttls = {}, {}
for k = 2, #KEYS do
  -- GET first (a string or none, the layout of now); TYPE only when it is refused (WRONGTYPE).
  local got = redis.pcall('GET', KEYS[k])
  if type(got) ~= 'table' then joined[k] = got or ''
  else
    local kind = redis.call('TYPE', KEYS[k]).ok
    if kind == 'list' then joined[k] = table.concat(redis.call('LRANGE', KEYS[k], 0, -1), ' ')
    else return redis.error_reply('WRONGTYPE the index ' .. KEYS[k] .. ' holds a ' .. kind) end
  end
end
-- An entry whose once-token its index holds was appended before: nothing is written.
-- So is the second of two entries of one batch with the same token.
local i, position, seen = 2, 0, {}
while i <= #ARGV do
  local n, k, once = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 3]
  if k > 0 and once ~= '' then
    if seen[k .. '#' .. once] or string.find(' ' .. joined[k] .. ' ', '#' .. once .. ' ', 1, true) then return {'duplicate', position} end
    seen[k .. '#' .. once] = true
  end
  position = position + 1
  i = i + 4 + n * 2
end
local ids = {}
i = 2
while i <= #ARGV do
  local n, k, once = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), ARGV[i + 3]
  local id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 4, i + 3 + n * 2))
  ids[#ids + 1] = id
  if k > 0 then
    local word = id
    if once ~= '' then word = id .. '#' .. once end
    if joined[k] == '' then joined[k] = word else joined[k] = joined[k] .. ' ' .. word end
    ttls[k] = ARGV[i + 2]
  end
  i = i + 4 + n * 2
end
for k = 2, #KEYS do redis.call('SET', KEYS[k], joined[k], 'PX', ttls[k]) end
return {'ok', ids}`,
  // KEYS[1]: the stream; KEYS[2]: the mark hash, in the stream's hash tag (checked before the call).
  // ARGV: the first id to keep, the id the mark must hold ('' for none), then the mark's field/value
  // pairs. The trim and the mark land together or not at all, so the chain's anchor always names
  // the last entry trimmed; the first id must be there, so the newest entry is never trimmed and an
  // appender's next link still finds it. XTRIM MINID with '=' trims exactly, not by whole nodes.
  // Answers {'ok', count} or {'conflict', mark as HGETALL}. Mirrors `streamTrimBefore` in memory-store.ts.
  countersignStreamTrimBefore: `
local have = redis.call('HGET', KEYS[2], 'id') or ''
if have ~= ARGV[2] then return {'conflict', redis.call('HGETALL', KEYS[2])} end
if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1], 'COUNT', 1) == 0 then return {'conflict', redis.call('HGETALL', KEYS[2])} end
local trimmed = redis.call('XTRIM', KEYS[1], 'MINID', '=', ARGV[1])
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
return {'ok', trimmed}`,
} as const;

/** The consumer-group scripts of {@link SCRIPTS} (redis-scripts.ts). */
export const QUEUE_SCRIPTS = {
  // ARGV: the group, then the ids. Acknowledged and deleted together, so an entry that is done
  // never lingers in the stream (where a new group would deliver it again) for want of a second call.
  countersignStreamAckDelete: `
local acked = redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
redis.call('XDEL', KEYS[1], unpack(ARGV, 2))
return acked`,
} as const;
