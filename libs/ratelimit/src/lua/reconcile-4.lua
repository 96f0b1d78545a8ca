--[[
  Charges the difference between actual and estimated tokens to the tokens-per-minute buckets
  and budget counters of a tenant and its API key. Mirrors reconcile in memory-limiter.ts.

  KEYS[1] tenant tokens bucket       KEYS[3] key tokens bucket
  KEYS[2] tenant budget counters     KEYS[4] key budget counters

  ARGV[1] now in ms: '' in production (redis TIME is used), a number only in tests
  ARGV[2] delta tokens (actual - estimated; negative gives capacity back)
  ARGV[3] tenant tpm ('' = none)     ARGV[5] key tpm ('' = none)
  ARGV[4] tenant has a budget (1/0)  ARGV[6] key has a budget (1/0)

  Returns nothing.
]]

--- @include "constants"
--- @include "now"
--- @include "gcra"
--- @include "budget"

local now = now_ms(ARGV[1])
local delta = tonumber(ARGV[2])
local periods = budget_periods(now)

for scope_index = 0, 1 do
  local tokens_key, budget_key = KEYS[scope_index * 2 + 1], KEYS[scope_index * 2 + 2]
  local tpm = optional_number(ARGV[3 + scope_index * 2])
  if tpm then
    save_bucket(tokens_key, charge_bucket(drain_bucket(tokens_key, tpm, now), delta), tpm, now)
  end
  if ARGV[4 + scope_index * 2] == '1' then
    local day_used, month_used = read_budget(budget_key, periods)
    save_budget(budget_key, periods, math.max(0, day_used + delta), math.max(0, month_used + delta))
  end
end
