/** Lua scripts of the Redis store's records (`RecordStore`): strings and hashes, one key each. */

// Numeric fields are plain decimals written by the server (epoch ms, seconds). Anything else is
// not a number, so a numeric guard on it fails: the same rule as `decimal()` in memory-store.ts.
const NUMBERS = `
local function num(s)
  if string.find(s, '^%-?%d+$') or string.find(s, '^%-?%d+%.%d+$') then return tonumber(s) end
  return 0/0
end
`;

/** The record scripts of {@link SCRIPTS} (redis-scripts.ts). */
export const RECORD_SCRIPTS = {
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
} as const;
