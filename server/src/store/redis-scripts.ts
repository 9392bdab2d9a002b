/** Lua scripts of the Redis store: one per multi-step operation, one key each. */

// Numeric fields are plain decimals written by the server (epoch ms, seconds). Anything else is
// not a number, so a numeric guard on it fails: the same rule as `decimal()` in memory-store.ts.
const NUMBERS = `
local function num(s)
  if string.find(s, '^%-?%d+$') or string.find(s, '^%-?%d+%.%d+$') then return tonumber(s) end
  return 0/0
end
`;

/**
 * The layout of a sliding window (`Store.windowAdd`): ONE list, so a script touches KEYS[1] only.
 *  - index 0, the header: `#<newest time in base 36>` then ` CUR=<total>` per currency (decimal,
 *    only those above 0).
 *  - then the entries, oldest first: the time in base 36, ` CUR<amount in base 36>` per currency,
 *    a NUL byte, then the member (e.g. `mx26vup8 EUR11t4\0p3Sx0Vd-2hQ9Z8aL`).
 * Entries leave from the front in the order they came, so an add drops each expired entry with one
 * LPOP and adds with one RPUSH: O(1) per entry, whatever the window holds. A list is a quicklist of
 * listpacks, compact at any length (a hash or sorted set past 512 or 128 entries is not). A window
 * with no entries is deleted.
 *
 * (Before, a window was a hash holding a heap by score, under `win:{…}:velocity-user|client` keys:
 * those are no longer read, and expire within their window.)
 */
const WINDOW_LUA = `
local DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'
-- Integers below 2^53 to base 36 and back, exactly: math.fmod and strtoul do no rounding.
local function to36(n)
  local sign = ''
  if n < 0 then sign, n = '-', -n end
  if n == 0 then return '0' end
  local out = {}
  while n > 0 do
    local d = math.fmod(n, 36)
    out[#out + 1] = string.sub(DIGITS, d + 1, d + 1)
    n = (n - d) / 36
  end
  return sign .. string.reverse(table.concat(out))
end
local function from36(s)
  if string.sub(s, 1, 1) == '-' then return -tonumber(string.sub(s, 2), 36) end
  return tonumber(s, 36)
end
local function score_of(entry) return from36(string.match(entry, '^(%-?[0-9a-z]+)')) end
-- A total at 0 or below is dropped at once, as memory-store.ts's addTotal does.
local function add_amounts(totals, entry, sign)
  local head = string.sub(entry, 1, string.find(entry, '\\0', 1, true) - 1)
  for cur, amt in string.gmatch(head, ' (%u%u%u)([0-9a-z]+)') do
    local total = (totals[cur] or 0) + sign * from36(amt)
    if total > 0 then totals[cur] = total else totals[cur] = nil end
  end
end
-- Takes the header off the front: the newest time (nil for no window) and the totals. Checked
-- before it is popped: a script error does not undo what it wrote before it.
local function take_header()
  local header = redis.call('LINDEX', KEYS[1], 0)
  local totals = {}
  if not header then return nil, totals end
  if not string.find(header, '^#%-?[0-9a-z]+') then error('the window ' .. KEYS[1] .. ' has no header') end
  redis.call('LPOP', KEYS[1])
  for cur, amt in string.gmatch(header, ' (%u%u%u)=(%d+)') do totals[cur] = tonumber(amt) end
  return from36(string.match(header, '^#(%-?[0-9a-z]+)')), totals
end
-- Puts the header back (or deletes an empty window) and answers the totals above 0 as a flat list.
local function put_header(newest, totals)
  local parts, shown = {}, {}
  for cur, total in pairs(totals) do
    if total > 0 then
      parts[#parts + 1] = ' ' .. cur .. '=' .. string.format('%.0f', total)
      shown[#shown + 1] = cur
      shown[#shown + 1] = string.format('%.0f', total)
    end
  end
  if redis.call('LLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) return shown end
  redis.call('LPUSH', KEYS[1], '#' .. to36(newest) .. table.concat(parts))
  return shown
end
`;

/**
 * The Lua scripts of {@link RedisStore}, registered with `defineCommand`. Each touches KEYS[1]
 * only, but those of {@link MULTI_KEY_SCRIPTS}, whose keys all share one hash tag: every script runs
 * on one Redis Cluster slot.
 */
export const SCRIPTS = {
  // ARGV: ttl ms or '', not-after ms or '', outbox entry or '', guard count n, n × (field, op,
  // value), increment count m, m × (field, by, max), then field/value pairs to write. The bounded
  // increments (a mandate's spent total and count) are checked after the guards and raised with the
  // write, so two spends can never both fit in the last room left. One script, because a
  // read-check-write over several commands would let two redeemers both see `approved`
  // (docs/design.md guarantee 7). The outbox entry lands in the same step as the swap (`ob:<seq>`,
  // `seq` counted here), so what must follow a transition is never lost to a crash between the two
  // (docs/reliability.md). Past `not-after` (Redis's own clock) the swap is refused unapplied: a
  // command that waited in a queue or in a paused server longer than its caller waited cannot land
  // after the caller and the reconciler gave up on it. Mirrors `guardHolds` in memory-store.ts.
  countersignCompareAndSet: `${NUMBERS}
if ARGV[2] ~= '' then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[2]) then return {'late'} end
end
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local n = tonumber(ARGV[4])
for i = 0, n - 1 do
  local op, want = ARGV[6 + i * 3], ARGV[7 + i * 3]
  local have = redis.call('HGET', KEYS[1], ARGV[5 + i * 3])
  local holds = false
  if op == 'absent' then holds = not have
  elseif not have then holds = false
  elseif op == 'present' then holds = true
  elseif op == 'eq' then holds = have == want
  elseif op == 'ne' then holds = have ~= want
  elseif op == 'lt' then holds = num(have) < tonumber(want)
  elseif op == 'gt' then holds = num(have) > tonumber(want) end
  if not holds then return {'failed', i, redis.call('HGETALL', KEYS[1])} end
end
local base = 6 + n * 3
local m = tonumber(ARGV[base - 1])
for j = 0, m - 1 do
  local have = redis.call('HGET', KEYS[1], ARGV[base + j * 3]) or '0'
  if not string.find(have, '^%d+$') or tonumber(have) + tonumber(ARGV[base + 1 + j * 3]) > tonumber(ARGV[base + 2 + j * 3]) then
    return {'failed', n + j, redis.call('HGETALL', KEYS[1])}
  end
end
local rest = base + m * 3
if #ARGV >= rest then redis.call('HSET', KEYS[1], unpack(ARGV, rest)) end
for j = 0, m - 1 do redis.call('HINCRBY', KEYS[1], ARGV[base + j * 3], ARGV[base + 1 + j * 3]) end
if ARGV[3] ~= '' then
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  redis.call('HSET', KEYS[1], 'ob:' .. seq, ARGV[3])
end
if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {'ok', -1, redis.call('HGETALL', KEYS[1])}`,
  // ARGV: the value expected, the new value. GET then SET from the caller would let two writers
  // both see the old value (a device's counter raised twice from one reading). Redis 7 has no
  // SET … IFEQ. KEEPTTL: the swap changes the value, not how long the key lives. A key that holds
  // no string answers WRONGTYPE, as GET would.
  countersignReplace: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1`,
  // ARGV: ttl ms, then field/value pairs. HSETNX guards one field only, and a separate EXPIRE
  // could be lost in a crash and leave a record that never expires.
  countersignHashCreate: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
  // ARGV: now ms, leeway ms, the interval field, the due-at field, ms per interval unit, the default
  // interval, the increment of an early call (whole numbers, checked before the call). Concurrent
  // calls are serialised here, so only one of them can see the old due time.
  countersignHashThrottle: `${NUMBERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local now, leeway, unit, increment = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5]), tonumber(ARGV[7])
local interval = num(redis.call('HGET', KEYS[1], ARGV[3]) or ARGV[6])
local nextAt = redis.call('HGET', KEYS[1], ARGV[4])
local early = nextAt and now < num(nextAt) - leeway
if early then interval = interval + increment end
redis.call('HSET', KEYS[1], ARGV[3], string.format('%d', interval), ARGV[4], string.format('%d', now + interval * unit))
return {early and 'early' or 'ok', redis.call('HGETALL', KEYS[1])}`,
  // KEYS[1]: the stream; KEYS[2…]: index strings in the stream's hash tag (checked before the call).
  // ARGV: the id the newest entry must have ('' for an empty or missing stream), then per entry its
  // pair count n, the KEYS position of its index (0: none), that index's TTL in ms, and n
  // field/value pairs. countersignStreamAppendManyAfter for a batch (per entry: field count, index
  // position, index TTL ms, once-token or '', then its pairs): one guard, then one XADD per
  // entry, and each index rewritten once with its new ids appended, all in one script, so a batch
  // lands whole after the named tail, indexed, or not at all; an index never names an entry the
  // chain lacks. An index is a string of ids separated by spaces (`StreamIndex`): GET and SET
  // rather than APPEND, whose growth doubles the allocation, so a request's two ids stay one
  // embedded string. The types are checked before the first write, because a Lua error after an
  // XADD would leave the entries appended but unindexed; a list index (the layout before) is read
  // there and replaced by the string. Answers the new ids in order, or the tail it lost to.
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
  local kind = redis.call('TYPE', KEYS[k]).ok
  if kind == 'string' then joined[k] = redis.call('GET', KEYS[k])
  elseif kind == 'list' then joined[k] = table.concat(redis.call('LRANGE', KEYS[k], 0, -1), ' ')
  elseif kind == 'none' then joined[k] = ''
  else return redis.error_reply('WRONGTYPE the index ' .. KEYS[k] .. ' holds a ' .. kind) end
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
  // ARGV: now, window, member, maxCount, n, n × (currency, amount), m, m × (currency, max).
  // The check and the add in one script: ten requests at a limit's edge, on ten connections, read
  // the window one after another, so exactly as many as fit get in (the velocity limits). The
  // window is one list (WINDOW_LUA): its header, then its entries oldest first. Totals go back as
  // strings, because Redis would truncate a Lua number to an integer reply. Mirrors `windowAdd` in
  // memory-store.ts.
  countersignWindowAdd: `${WINDOW_LUA}
local now, window, member, maxCount = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local n = tonumber(ARGV[5])
local amounts, value = {}, to36(now)
for i = 0, n - 1 do
  amounts[ARGV[6 + i * 2]] = tonumber(ARGV[7 + i * 2])
  value = value .. ' ' .. ARGV[6 + i * 2] .. to36(tonumber(ARGV[7 + i * 2]))
end
local m = tonumber(ARGV[6 + n * 2])
local floor = now - window
local newest, totals = take_header()
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head or score_of(head) > floor then break end
  redis.call('LPOP', KEYS[1])
  add_amounts(totals, head, -1)
end
local count = redis.call('LLEN', KEYS[1])
local verdict = 'ok'
if count + 1 > maxCount then verdict = 'count'
else
  for i = 0, m - 1 do
    local cur = ARGV[7 + n * 2 + i * 2]
    if (totals[cur] or 0) + (amounts[cur] or 0) > tonumber(ARGV[8 + n * 2 + i * 2]) then verdict = 'amount' break end
  end
end
if verdict == 'ok' then
  redis.call('RPUSH', KEYS[1], value .. '\\0' .. member)
  add_amounts(totals, value .. '\\0', 1)
  count = count + 1
  if newest == nil or now > newest then newest = now end
end
if newest == nil then newest = now end
local shown = put_header(newest, totals)
if verdict == 'ok' then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(1, newest + window - now))) end
return {verdict, count, unpack(shown)}`,
  // ARGV: the member. Takes its newest entry out of a window (a rollback), looking from the newest
  // entry back: the entry just added is found at once. Answers 1 when one was there.
  countersignWindowRemove: `${WINDOW_LUA}
local suffix = '\\0' .. ARGV[1]
local function newest_of(list)
  for i = #list, 1, -1 do
    if string.sub(list[i], -#suffix) == suffix then return list[i] end
  end
end
-- The newest entries first (a rollback takes back the entry just added); then, only when it is not
-- among them, the rest at once: O(n) at worst, never a walk per entry. (The header holds no NUL.)
local found = newest_of(redis.call('LRANGE', KEYS[1], -64, -1))
if not found and redis.call('LLEN', KEYS[1]) > 64 then found = newest_of(redis.call('LRANGE', KEYS[1], 0, -65)) end
if not found then return 0 end
local newest, totals = take_header()
redis.call('LREM', KEYS[1], -1, found)
add_amounts(totals, found, -1)
put_header(newest, totals)
return 1`,
  // ARGV: now, window, member, score, maxCount, floor (now - window). A counted window in a sorted
  // set: drop what left it, then add the member when it fits (a member that is there always does);
  // the key lives until its highest score leaves the window. Answers {1|0, count}. Mirrors
  // `sortedWindowAdd` in memory-store.ts.
  countersignSortedWindowAdd: `
local now, window, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[6])
local had = redis.call('ZSCORE', KEYS[1], member)
local count = redis.call('ZCARD', KEYS[1])
if not had and count + 1 > tonumber(ARGV[5]) then return {0, count} end
redis.call('ZADD', KEYS[1], ARGV[4], member)
local newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(1, newest + window - now)))
if had then return {1, count} end
return {1, count + 1}`,
  // ARGV: now ms, step ms, span ms, '1' to peek (see rate-entry.ts). The generic cell rate
  // algorithm on one string, the schedule's next free time: read, compare and move on in one script,
  // so calls racing on many connections (and instances) are counted one after another and exactly
  // `count` of a burst get through. The key lives while the schedule runs ahead of now. Answers 0
  // when the call fits, else the ms until one would. Mirrors `rateLimit` in memory-store.ts.
  countersignRateLimit: `
local now, step, span = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '')
if tat == nil or tat < now then tat = now end
local nextAt = tat + step
local over = nextAt - now - span
if over > 0 then return over end
if ARGV[4] ~= '1' then redis.call('SET', KEYS[1], string.format('%d', nextAt), 'PX', string.format('%d', nextAt - now)) end
return 0`,
  // ARGV: the group, then the ids. Acknowledged and deleted together, so an entry that is done
  // never lingers in the stream (where a new group would deliver it again) for want of a second call.
  countersignStreamAckDelete: `
local acked = redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
redis.call('XDEL', KEYS[1], unpack(ARGV, 2))
return acked`,
  // ARGV: ttl ms, then the command's arguments: the write and its new TTL land together.
  countersignHashSetTtl: withTtl('HSET'),
  countersignSetAddTtl: withTtl('SADD'),
  countersignSortedAddTtl: withTtl('ZADD'),
} as const;

/**
 * The scripts that take more than one key (ioredis is then told the key count on each call). Every
 * key of such a script shares KEYS[1]'s hash tag, checked before the call, so it still runs on one
 * Redis Cluster slot.
 */
export const MULTI_KEY_SCRIPTS: ReadonlySet<keyof typeof SCRIPTS> = new Set(['countersignStreamAppendManyAfter', 'countersignStreamTrimBefore']);

function withTtl(command: string): string {
  return `redis.call('${command}', KEYS[1], unpack(ARGV, 2))\nredis.call('PEXPIRE', KEYS[1], ARGV[1])`;
}

