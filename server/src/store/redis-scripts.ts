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
 * The Lua scripts of {@link RedisStore}, registered with `defineCommand`. Each touches KEYS[1]
 * only, so it runs on one Redis Cluster slot.
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
  // ARGV: now, window, member, score, maxCount, n, n × (currency, amount), m, m × (currency, max).
  // The check and the add in one script: ten requests at a limit's edge, on ten connections, read
  // the window one after another, so exactly as many as fit get in (velocity, pending, push rate).
  // Values are '<score> CUR=amount …' (window-entry.ts); totals go back as strings, because Redis
  // would truncate a Lua number to an integer reply. Mirrors `windowAdd` in memory-store.ts.
  countersignWindowAdd: `
local now, window, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local score, maxCount = tonumber(ARGV[4]), tonumber(ARGV[5])
local n = tonumber(ARGV[6])
local amounts = {}
for i = 0, n - 1 do amounts[ARGV[7 + i * 2]] = tonumber(ARGV[8 + i * 2]) end
local m = tonumber(ARGV[7 + n * 2])
local floor = now - window
local flat = redis.call('HGETALL', KEYS[1])
local count, totals, newest = 0, {}, nil
for i = 1, #flat, 2 do
  local s = tonumber(string.match(flat[i + 1], '^(%-?%d+)'))
  if s == nil or s <= floor then redis.call('HDEL', KEYS[1], flat[i])
  else
    if newest == nil or s > newest then newest = s end
    if flat[i] ~= member then
      count = count + 1
      for cur, amt in string.gmatch(flat[i + 1], ' (%u%u%u)=(%d+)') do totals[cur] = (totals[cur] or 0) + tonumber(amt) end
    end
  end
end
local verdict = 'ok'
if count + 1 > maxCount then verdict = 'count'
else
  for i = 0, m - 1 do
    local cur = ARGV[8 + n * 2 + i * 2]
    if (totals[cur] or 0) + (amounts[cur] or 0) > tonumber(ARGV[9 + n * 2 + i * 2]) then verdict = 'amount' break end
  end
end
if verdict == 'ok' then
  local value = ARGV[4]
  for i = 0, n - 1 do value = value .. ' ' .. ARGV[7 + i * 2] .. '=' .. ARGV[8 + i * 2] end
  redis.call('HSET', KEYS[1], member, value)
  count = count + 1
  for cur, amt in pairs(amounts) do totals[cur] = (totals[cur] or 0) + amt end
  if newest == nil or score > newest then newest = score end
end
if newest ~= nil then redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(1, newest + window - now))) end
local reply = {verdict, count}
for cur, total in pairs(totals) do
  if total > 0 then reply[#reply + 1] = cur; reply[#reply + 1] = string.format('%.0f', total) end
end
return reply`,
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

function withTtl(command: string): string {
  return `redis.call('${command}', KEYS[1], unpack(ARGV, 2))\nredis.call('PEXPIRE', KEYS[1], ARGV[1])`;
}

