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

-- The batch's increments are summed per hash and field and written once each at the end, with
-- one expiry per hash: a job's events mostly share their tenant's day and month hashes and a
-- few fields, and each call from Lua costs about a microsecond. The script runs atomically, so
-- no reader sees the sums half written.
local sums = {}        -- hash key -> field -> total
local fields_of = {}   -- hash key -> fields in the order first seen
local hash_keys = {}   -- hash keys in the order first seen
local expiries = {}    -- hash key -> absolute expiry, ms

local function add(key, expires_at, field, increment)
  local per_field = sums[key]
  if per_field == nil then
    per_field = {}
    sums[key], fields_of[key], expiries[key] = per_field, {}, expires_at
    hash_keys[#hash_keys + 1] = key
  end
  local total = per_field[field]
  if total == nil then
    local fields = fields_of[key]
    fields[#fields + 1] = field
    total = 0
  end
  per_field[field] = total + increment
end

for key_base = 0, #KEYS - 1, 3 do
  local day_key, month_key = KEYS[key_base + 2], KEYS[key_base + 3]
  local day_expires_at, month_expires_at, prefix = ARGV[at], ARGV[at + 1], ARGV[at + 2]
  local increments = tonumber(ARGV[at + 3])
  local first = at + 4
  at = first + increments * 2
  if rcall('SET', KEYS[key_base + 1], '1', 'NX', 'PX', marker_ttl) then
    for index = first, at - 1, 2 do
      local field, increment = prefix .. ARGV[index], tonumber(ARGV[index + 1])
      add(day_key, day_expires_at, field, increment)
      add(month_key, month_expires_at, field, increment)
    end
    counted[#counted + 1] = 1
  else
    counted[#counted + 1] = 0
  end
end

for _, key in ipairs(hash_keys) do
  local per_field = sums[key]
  for _, field in ipairs(fields_of[key]) do
    -- Sums are exact below 2^53, as far as readers can count anyway: they parse the totals into
    -- JavaScript numbers. '%.0f' writes every digit (Lua's default keeps 14).
    rcall('HINCRBY', key, field, string.format('%.0f', per_field[field]))
  end
  -- Absolute expiries, the same for every event of the period: replays and retries agree.
  rcall('PEXPIREAT', key, expiries[key])
end
return counted
