/**
 * The script of `RedisStore.streamConsumerRemove` (KEYS[1] the stream; ARGV: group, consumer, min
 * idle ms): removes the consumer only while XINFO CONSUMERS says it has nothing pending and has been
 * idle that long, in one atomic step, so a job delivered to it between a look and the removal is
 * never stranded. Answers 1 when removed, 0 when kept or absent; a missing group answers 0 too.
 */
export const STREAM_CONSUMER_REMOVE_LUA = `
local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if not ok then return 0 end
local minIdle = tonumber(ARGV[3])
for _, consumer in ipairs(consumers) do
  local info = {}
  for i = 1, #consumer, 2 do info[consumer[i]] = consumer[i + 1] end
  if info['name'] == ARGV[2] then
    if tonumber(info['pending']) ~= 0 or tonumber(info['idle']) < minIdle then return 0 end
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
    return 1
  end
end
return 0`;
