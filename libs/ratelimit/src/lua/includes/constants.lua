-- Mirrors constants.ts (PERIOD_MS, EXPIRY_MARGIN_MS, CONCURRENCY_RETRY_AFTER_MS).
local PERIOD_MS = 60000
local EXPIRY_MARGIN_MS = PERIOD_MS
local CONCURRENCY_RETRY_AFTER_MS = 1000
local DAY_MS = 86400000
-- Bound by begin_call at the start of every call: loaded as a Function library, this top level
-- runs at FUNCTION LOAD, where redis.call does not exist yet.
local rcall

-- Numbers go to Redis as '%.0f': Lua's default formatting keeps 14 digits and would round
-- levels and timestamps. Every stored number is an integer below 2^53.
local function integer_string(value)
  return string.format('%.0f', value)
end

-- An absent limit is passed as ''.
local function optional_number(value)
  if value == '' then return nil end
  return tonumber(value)
end
