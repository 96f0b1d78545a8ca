--[[
  Counts one request's usage exactly once. The marker and the increments happen in one
  script, so no crash or timeout can leave the marker set without the counts (lost usage) or
  the counts without the marker (double counting on the next delivery).

  KEYS[1] the request's marker         sy:{t:<tenant>}:usage:req:<requestId>
  KEYS[2] the day's aggregate hash     sy:{t:<tenant>}:usage:day:<YYYY-MM-DD>
  KEYS[3] the month's aggregate hash   sy:{t:<tenant>}:usage:month:<YYYY-MM>
  ARGV[1] marker TTL, ms
  ARGV[2] day hash expiry, ms since the epoch
  ARGV[3] month hash expiry, ms since the epoch
  ARGV[4] field prefix "<key>:<model>:"
  ARGV[5..] metric, increment, metric, increment, ... (non-zero integers)

  Returns 1 when counted, 0 when the request was counted before.
]]

local rcall = redis.call

if not rcall('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  return 0
end

local prefix = ARGV[4]
for index = 5, #ARGV, 2 do
  local field = prefix .. ARGV[index]
  rcall('HINCRBY', KEYS[2], field, ARGV[index + 1])
  rcall('HINCRBY', KEYS[3], field, ARGV[index + 1])
end
-- Absolute expiries, the same for every event of the period: replays and retries agree.
rcall('PEXPIREAT', KEYS[2], ARGV[2])
rcall('PEXPIREAT', KEYS[3], ARGV[3])
return 1
