-- Whole milliseconds from the Redis server's clock, so gateway replicas with skewed clocks
-- agree. The override is empty in production; only tests pass a number, to drive fake time.
local function now_ms(override)
  if override ~= '' then return tonumber(override) end
  local time = rcall('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
