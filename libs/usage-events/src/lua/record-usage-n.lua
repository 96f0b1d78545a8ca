--[[
  Counts each of a batch of requests' usage exactly once, all of one tenant. For each event the
  marker and the increments happen in one script, so no crash or timeout can leave the marker
  set without the counts (lost usage) or the counts without the marker (double counting on the
  next delivery). One call for the batch: a worker records what one job carries at once.

  KEYS, three per event:
    the request's marker         sy:{t:<tenant>}:usage:req:<requestId>
    the day's aggregate hash     sy:{t:<tenant>}:usage:day:<YYYY-MM-DD>
    the month's aggregate hash   sy:{t:<tenant>}:usage:month:<YYYY-MM>
  ARGV[1] marker TTL, ms
  ARGV[2..], per event:
    day hash expiry, ms since the epoch
    month hash expiry, ms since the epoch
    field prefix "<key>:<model>:"
    the number of increments n, then n pairs: metric, increment (non-zero integers)

  Returns, per event, 1 when counted now, 0 when the request was counted before (an event
  repeated within the batch included). The number of keys is passed first (`-n`).
]]

local rcall = redis.call
local marker_ttl = ARGV[1]
local counted = {}
local at = 2

for key_base = 0, #KEYS - 1, 3 do
  local day_key, month_key = KEYS[key_base + 2], KEYS[key_base + 3]
  local day_expires_at, month_expires_at, prefix = ARGV[at], ARGV[at + 1], ARGV[at + 2]
  local increments = tonumber(ARGV[at + 3])
  local first = at + 4
  at = first + increments * 2
  if rcall('SET', KEYS[key_base + 1], '1', 'NX', 'PX', marker_ttl) then
    for index = first, at - 1, 2 do
      local field = prefix .. ARGV[index]
      rcall('HINCRBY', day_key, field, ARGV[index + 1])
      rcall('HINCRBY', month_key, field, ARGV[index + 1])
    end
    -- Absolute expiries, the same for every event of the period: replays and retries agree.
    rcall('PEXPIREAT', day_key, day_expires_at)
    rcall('PEXPIREAT', month_key, month_expires_at)
    counted[#counted + 1] = 1
  else
    counted[#counted + 1] = 0
  end
end
return counted
