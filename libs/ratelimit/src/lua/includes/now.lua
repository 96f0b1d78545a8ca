-- Whole milliseconds from the Redis server's clock, so gateway replicas with skewed clocks
-- agree. The override is empty in production; only tests pass a number, to drive fake time.
-- Read once per script call: the operations of a batch run atomically, so they share one
-- moment, and each `TIME` from Lua costs about a microsecond.
-- Set by begin_call.
local server_now
local function now_ms(override)
  if override ~= '' then return tonumber(override) end
  if server_now == nil then
    local time = rcall('TIME')
    server_now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return server_now
end
