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
 * The layout of a sliding window (`Store.windowAdd`): ONE hash, so a script touches KEYS[1] only.
 *  - `h:<i>` (i = 1 … size): a binary min-heap of the entries by score; the value is the score in
 *    base 36, then ` CUR<amount in base 36>` per currency, a NUL byte, then the member (e.g.
 *    `mx26vup8 EUR11t4\0<auth_req_id>`). Base 36 keeps an entry with one currency and a 43-character
 *    member within 64 bytes, Redis's default `hash-max-listpack-value`, so a window stays a listpack
 *    (about half the memory of a hashtable) up to `hash-max-listpack-entries` (512 fields by default:
 *    254 entries).
 *  - `m:<member>` → the member's heap index, so replacing or removing a member is O(log n).
 *  - `s` → the size; `t` → the totals, `CUR=total …` in decimal (only those above 0); `x` → the newest
 *    score ever added, for the TTL. A window with no entries is deleted, so `s` marks the layout. A
 *    hash without it is a window of an earlier layout, converted on first touch: with `n` for the
 *    size, the same heap with decimal values (`<score> CUR=amount …`); with neither, member → that value.
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
local function hget(field) return redis.call('HGET', KEYS[1], field) end
local function score_of(entry) return from36(string.match(entry, '^(%-?[0-9a-z]+)')) end
local function member_of(entry) return string.sub(entry, string.find(entry, '\\0', 1, true) + 1) end
local function add_amounts(totals, entry, sign)
  local head = string.sub(entry, 1, string.find(entry, '\\0', 1, true) - 1)
  for cur, amt in string.gmatch(head, ' (%u%u%u)([0-9a-z]+)') do totals[cur] = (totals[cur] or 0) + sign * from36(amt) end
end
-- An entry of an earlier layout ('<score> CUR=amount …' in decimal) in this one, or nil when unreadable.
local function from_decimal(head, member)
  local s = tonumber(string.match(head, '^(%-?%d+)'))
  if s == nil then return nil end
  local value = to36(s)
  for cur, amt in string.gmatch(head, ' (%u%u%u)=(%d+)') do value = value .. ' ' .. cur .. to36(tonumber(amt)) end
  return value .. '\\0' .. member
end
local function place(i, entry)
  redis.call('HSET', KEYS[1], 'h:' .. i, entry, 'm:' .. member_of(entry), i)
end
local function sift_up(w, i, entry)
  local s = score_of(entry)
  while i > 1 do
    local p = math.floor(i / 2)
    local parent = hget('h:' .. p)
    if score_of(parent) <= s then break end
    place(i, parent)
    i = p
  end
  place(i, entry)
end
local function sift_down(w, i, entry)
  local s = score_of(entry)
  while true do
    local c = i * 2
    if c > w.size then break end
    local child = hget('h:' .. c)
    local cs = score_of(child)
    if c + 1 <= w.size then
      local right = hget('h:' .. (c + 1))
      local rs = score_of(right)
      if rs < cs then c, child, cs = c + 1, right, rs end
    end
    if cs >= s then break end
    place(i, child)
    i = c
  end
  place(i, entry)
end
local function remove_at(w, i, entry)
  redis.call('HDEL', KEYS[1], 'm:' .. member_of(entry))
  add_amounts(w.totals, entry, -1)
  local last = hget('h:' .. w.size)
  redis.call('HDEL', KEYS[1], 'h:' .. w.size)
  w.size = w.size - 1
  if i <= w.size then
    if i > 1 and score_of(hget('h:' .. math.floor(i / 2))) > score_of(last) then sift_up(w, i, last) else sift_down(w, i, last) end
  end
end
local function load()
  local state = redis.call('HMGET', KEYS[1], 's', 't', 'x')
  local w = { size = tonumber(state[1]) or 0, totals = {}, newest = tonumber(state[3]) }
  if state[1] then
    for cur, amt in string.gmatch(state[2] or '', '(%u%u%u)=(%d+)') do w.totals[cur] = tonumber(amt) end
    return w
  end
  -- An earlier layout: the decimal heap (with 'n'), or member → '<score> CUR=amount …'. Converted
  -- once, in this call: every readable entry is inserted again, and totals and 'x' recomputed.
  local flat = redis.call('HGETALL', KEYS[1])
  if #flat == 0 then return w end
  local heap = false
  for i = 1, #flat, 2 do if flat[i] == 'n' then heap = true end end
  local ttl = redis.call('PTTL', KEYS[1])
  redis.call('DEL', KEYS[1])
  for i = 1, #flat, 2 do
    local entry = nil
    if not heap then entry = from_decimal(flat[i + 1], flat[i])
    elseif string.find(flat[i], '^h:%d+$') then
      local nul = string.find(flat[i + 1], '\\0', 1, true)
      if nul then entry = from_decimal(string.sub(flat[i + 1], 1, nul - 1), string.sub(flat[i + 1], nul + 1)) end
    end
    if entry ~= nil then
      local s = score_of(entry)
      w.size = w.size + 1
      sift_up(w, w.size, entry)
      add_amounts(w.totals, entry, 1)
      if w.newest == nil or s > w.newest then w.newest = s end
    end
  end
  if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
  return w
end
-- Writes the bookkeeping back (deleting an empty window) and answers the totals above 0 as a
-- flat list; hidden, an entry left out of w.totals, is stored in the totals but not shown.
local function save(w, window, now, hidden)
  if w.size == 0 then redis.call('DEL', KEYS[1]) return {} end
  local stored, parts, shown = {}, {}, {}
  for cur, total in pairs(w.totals) do
    stored[cur] = total
    if total > 0 then shown[#shown + 1] = cur; shown[#shown + 1] = string.format('%.0f', total) end
  end
  if hidden then add_amounts(stored, hidden, 1) end
  for cur, total in pairs(stored) do
    if total > 0 then parts[#parts + 1] = cur .. '=' .. string.format('%.0f', total) end
  end
  redis.call('HSET', KEYS[1], 's', w.size, 't', table.concat(parts, ' '), 'x', string.format('%.0f', w.newest))
  if window ~= nil then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(1, w.newest + window - now))) end
  return shown
end
`;

/**
 * The Lua scripts of {@link RedisStore}, registered with `defineCommand`. Each touches KEYS[1]
 * only, but those of {@link MULTI_KEY_SCRIPTS}, whose keys all share one hash tag: every script runs
 * on one Redis Cluster slot.
 */
export const SCRIPTS = {
  // ARGV: ttl ms or '', guard count n, n × (field, op, value), then field/value pairs to write.
  // One script, because a read-check-write over several commands would let two redeemers both
  // see `approved` (DESIGN.md guarantee 7). Mirrors `guardHolds` in memory-store.ts.
  countersignCompareAndSet: `${NUMBERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local n = tonumber(ARGV[2])
for i = 0, n - 1 do
  local op, want = ARGV[4 + i * 3], ARGV[5 + i * 3]
  local have = redis.call('HGET', KEYS[1], ARGV[3 + i * 3])
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
if #ARGV >= 3 + n * 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 3 + n * 3)) end
if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {'ok', -1, redis.call('HGETALL', KEYS[1])}`,
  // ARGV: ttl ms, then field/value pairs. HSETNX guards one field only, and a separate EXPIRE
  // could be lost in a crash and leave a record that never expires.
  countersignHashCreate: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
  // ARGV: now ms, leeway ms (CIBA Core §7.3 interval, §11 slow_down). Concurrent polls are
  // serialised here, so only one of them can see the old `next_poll_at`.
  countersignPollThrottle: `${NUMBERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local now, leeway = tonumber(ARGV[1]), tonumber(ARGV[2])
local interval = num(redis.call('HGET', KEYS[1], 'interval') or '5')
local nextAt = redis.call('HGET', KEYS[1], 'next_poll_at')
local early = nextAt and now < num(nextAt) - leeway
if early then interval = interval + 5 end
redis.call('HSET', KEYS[1], 'interval', string.format('%d', interval), 'next_poll_at', string.format('%d', now + interval * 1000))
return {early and 'slow_down' or 'ok', redis.call('HGETALL', KEYS[1])}`,
  // ARGV: the id the newest entry must have ('' for an empty or missing stream), then field/value
  // pairs. Reading the tail and appending in one script is what keeps a hash chain from forking:
  // two writers that read the same tail cannot both append after it. A loser gets the tail it lost
  // to, so it can link to it and retry at once.
  countersignStreamAppendAfter: `
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local newestId = newest and newest[1] or ''
if newestId ~= ARGV[1] then
  if newest then return {'conflict', newest[1], newest[2]} end
  return {'conflict'}
end
return {'ok', redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))}`,
  // KEYS[1]: the stream; KEYS[2…]: index strings in the stream's hash tag (checked before the call).
  // ARGV: the id the newest entry must have ('' for an empty or missing stream), then per entry its
  // pair count n, the KEYS position of its index (0: none), that index's TTL in ms, and n
  // field/value pairs. countersignStreamAppendManyAfter for a batch: one guard, then one XADD per
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
local ids, i = {}, 2
while i <= #ARGV do
  local n, k = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 3, i + 2 + n * 2))
  ids[#ids + 1] = id
  if k > 0 then
    if joined[k] == '' then joined[k] = id else joined[k] = joined[k] .. ' ' .. id end
    ttls[k] = ARGV[i + 2]
  end
  i = i + 3 + n * 2
end
for k = 2, #KEYS do redis.call('SET', KEYS[k], joined[k], 'PX', ttls[k]) end
return {'ok', ids}`,
  // ARGV: now, window, member, score, maxCount, n, n × (currency, amount), m, m × (currency, max).
  // The check and the add in one script: ten requests at a limit's edge, on ten connections, read
  // the window one after another, so exactly as many as fit get in (velocity, pending, push rate).
  // The window is one hash (WINDOW_LUA): a binary min-heap of entries by score, so a call costs
  // O(log n) per entry added or dropped, not a walk of the whole window. Totals go back as
  // strings, because Redis would truncate a Lua number to an integer reply. Mirrors `windowAdd`
  // in memory-store.ts.
  countersignWindowAdd: `${WINDOW_LUA}
local now, window, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local score, maxCount = tonumber(ARGV[4]), tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local amounts, value = {}, to36(score)
for i = 0, n - 1 do
  amounts[ARGV[7 + i * 2]] = tonumber(ARGV[8 + i * 2])
  value = value .. ' ' .. ARGV[7 + i * 2] .. to36(tonumber(ARGV[8 + i * 2]))
end
local m = tonumber(ARGV[7 + n * 2])
local floor = now - window
local w = load()
while w.size > 0 do
  local top = hget('h:1')
  if score_of(top) > floor then break end
  remove_at(w, 1, top)
end
local pos = tonumber(hget('m:' .. member))
local old = pos and hget('h:' .. pos)
local count = w.size - (pos and 1 or 0)
if old then add_amounts(w.totals, old, -1) end
local verdict = 'ok'
if count + 1 > maxCount then verdict = 'count'
else
  for i = 0, m - 1 do
    local cur = ARGV[8 + n * 2 + i * 2]
    if (w.totals[cur] or 0) + (amounts[cur] or 0) > tonumber(ARGV[9 + n * 2 + i * 2]) then verdict = 'amount' break end
  end
end
if verdict == 'ok' then
  local entry = value .. '\\0' .. member
  if pos then
    if score < score_of(old) then sift_up(w, pos, entry) else sift_down(w, pos, entry) end
  else
    w.size = w.size + 1
    sift_up(w, w.size, entry)
  end
  count = count + 1
  add_amounts(w.totals, entry, 1)
  if w.newest == nil or score > w.newest then w.newest = score end
end
-- Refused with the member there: it stays (and is stored in the totals), but is not shown.
local shown = save(w, window, now, verdict ~= 'ok' and old or nil)
return {verdict, count, unpack(shown)}`,
  // ARGV: the member. Takes one entry out of a window (a rollback, or a request that stopped
  // pending) in O(log n); answers 1 when it was there.
  countersignWindowRemove: `${WINDOW_LUA}
local w = load()
local pos = tonumber(hget('m:' .. ARGV[1]))
if not pos then return 0 end
remove_at(w, pos, hget('h:' .. pos))
save(w, nil, nil)
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
  // ARGV: the group, then the ids. Acknowledged and deleted together, so an entry that is done
  // never lingers in the stream (where a new group would deliver it again) for want of a second call.
  countersignStreamAckDelete: `
local acked = redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
redis.call('XDEL', KEYS[1], unpack(ARGV, 2))
return acked`,
  // ARGV: ttl ms, then the command's arguments: the write and its new TTL land together.
  countersignHashSetTtl: withTtl('HSET'),
  countersignSetAddTtl: withTtl('SADD'),
  countersignListAppendTtl: withTtl('RPUSH'),
  countersignSortedAddTtl: withTtl('ZADD'),
} as const;

/**
 * The scripts that take more than one key (ioredis is then told the key count on each call). Every
 * key of such a script shares KEYS[1]'s hash tag, checked before the call, so it still runs on one
 * Redis Cluster slot.
 */
export const MULTI_KEY_SCRIPTS: ReadonlySet<keyof typeof SCRIPTS> = new Set(['countersignStreamAppendManyAfter']);

function withTtl(command: string): string {
  return `redis.call('${command}', KEYS[1], unpack(ARGV, 2))\nredis.call('PEXPIRE', KEYS[1], ARGV[1])`;
}

