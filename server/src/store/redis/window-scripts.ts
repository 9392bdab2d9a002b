/** Lua scripts of the Redis store's windows and rate limits (`WindowStore`), one key each. */

/**
 * The layout of a sliding window (`Store.windowAdd`): ONE list, so a script touches KEYS[1] only.
 *  - index 0, the header: `#<newest time in base 36>/<entry count in base 36>` then ` CUR=<total>`
 *    per currency (decimal, only those above 0). A header without the count (written by an
 *    earlier version, which reads this one and rewrites it without the count) has its count read
 *    as the list's length less one.
 *  - then the entries, oldest first: the time in base 36, ` CUR<amount in base 36>` per currency,
 *    a NUL byte, then the member (e.g. `mx26vup8 EUR11t4\0p3Sx0Vd-2hQ9Z8aL`).
 * Entries leave from the front in the order they came, so an add reads the header and the oldest
 * entries with one LRANGE, drops what expired with one LTRIM, rewrites the header in place (LSET)
 * and adds with one RPUSH: O(1) commands per add, whatever the window holds. A list is a
 * quicklist of listpacks, compact at any length (a hash or sorted set past 512 or 128 entries is
 * not). A window with no entries is deleted.
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
-- Reads a window from its first elements (the header, then the oldest entries): the newest time
-- (nil for no window), the totals, and the entry count. The count is the header's, after a '/';
-- a header an earlier version wrote has none (it rewrites the header without it), so it is then
-- the list's length less the header. Checked before anything is written: a script error does not
-- undo what it wrote before it.
local function read_header(first)
  local header = first[1]
  local totals = {}
  if not header then return nil, totals, 0 end
  if not string.find(header, '^#%-?[0-9a-z]+') then error('the window ' .. KEYS[1] .. ' has no header') end
  for cur, amt in string.gmatch(header, ' (%u%u%u)=(%d+)') do totals[cur] = tonumber(amt) end
  local count = string.match(header, '^#%-?[0-9a-z]+/([0-9a-z]+)')
  if count then count = from36(count) else count = redis.call('LLEN', KEYS[1]) - 1 end
  return from36(string.match(header, '^#(%-?[0-9a-z]+)')), totals, count
end
-- The header for these figures, and the totals above 0 as a flat list (the scripts' answer).
local function header_of(newest, count, totals)
  local parts, shown = {}, {}
  for cur, total in pairs(totals) do
    if total > 0 then
      parts[#parts + 1] = ' ' .. cur .. '=' .. string.format('%.0f', total)
      shown[#shown + 1] = cur
      shown[#shown + 1] = string.format('%.0f', total)
    end
  end
  return '#' .. to36(newest) .. '/' .. to36(count) .. table.concat(parts), shown
end
`;

/** The window scripts of {@link SCRIPTS} (redis-scripts.ts). */
export const WINDOW_SCRIPTS = {
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
-- The header and the eight oldest entries in one read; further entries 64 at a time, only while
-- all of those read have expired. Expired entries are counted here and dropped with the header's
-- write: LTRIM takes the header and all but the last of them, LSET turns that one into the header.
local first = redis.call('LRANGE', KEYS[1], 0, 8)
local newest, totals, count = read_header(first)
local buf, base, dropped = first, 0, 0
while dropped < count do
  -- buf[k] is the list's element base + k - 1; the oldest entry left is element dropped + 1.
  local k = dropped + 2 - base
  if buf[k] == nil then
    base = dropped + 1
    buf = redis.call('LRANGE', KEYS[1], base, base + 63)
    k = 1
  end
  local head = buf[k]
  if not head or score_of(head) > floor then break end
  add_amounts(totals, head, -1)
  dropped = dropped + 1
end
count = count - dropped
local verdict = 'ok'
if count + 1 > maxCount then verdict = 'count'
else
  for i = 0, m - 1 do
    local cur = ARGV[7 + n * 2 + i * 2]
    if (totals[cur] or 0) + (amounts[cur] or 0) > tonumber(ARGV[8 + n * 2 + i * 2]) then verdict = 'amount' break end
  end
end
local entry
if verdict == 'ok' then
  entry = value .. '\\0' .. member
  add_amounts(totals, value .. '\\0', 1)
  count = count + 1
  if newest == nil or now > newest then newest = now end
end
if newest == nil then newest = now end
local header, shown = header_of(newest, count, totals)
if count == 0 then
  if first[1] then redis.call('DEL', KEYS[1]) end
  return {verdict, count, unpack(shown)}
end
if not first[1] then
  redis.call('RPUSH', KEYS[1], header, entry)
else
  if dropped > 0 then redis.call('LTRIM', KEYS[1], dropped, -1) end
  if dropped > 0 or header ~= first[1] then redis.call('LSET', KEYS[1], 0, header) end
  if entry then redis.call('RPUSH', KEYS[1], entry) end
end
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
local newest, totals, count = read_header({redis.call('LINDEX', KEYS[1], 0)})
redis.call('LREM', KEYS[1], -1, found)
add_amounts(totals, found, -1)
count = count - 1
if count <= 0 then redis.call('DEL', KEYS[1]) else redis.call('LSET', KEYS[1], 0, (header_of(newest, count, totals))) end
return 1`,
  // ARGV: now, window, member, score, maxCount, floor (now - window). A counted window in a sorted
  // set: drop what left it, then add the member when it fits (a member that is there always does);
  // the key lives until its highest score leaves the window. Answers {1|0, count}. Mirrors
  // `sortedWindowAdd` in memory-store.ts.
  countersignSortedWindowAdd: `
local now, window, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[6])
local count = redis.call('ZCARD', KEYS[1])
-- Whether the member is there matters only at the limit; below it, ZADD says (0: it was there).
if count + 1 > tonumber(ARGV[5]) and not redis.call('ZSCORE', KEYS[1], member) then return {0, count} end
local added = redis.call('ZADD', KEYS[1], ARGV[4], member)
local newest = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.max(1, newest + window - now)))
return {1, count + added}`,
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
} as const;
