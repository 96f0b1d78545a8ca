-- GCRA, continuous-state form; mirrors gcra.ts line by line (see there for the units).

local function drain_bucket(key, limit, now)
  local stored = rcall('HMGET', key, 'level', 'at')
  if not stored[1] then return 0 end
  local elapsed = math.max(0, now - tonumber(stored[2]))
  return math.max(0, tonumber(stored[1]) - elapsed * limit)
end

-- Returns allowed, exceeds_limit, level, retry_after_ms.
local function admit_to_bucket(level, limit, cost)
  if limit == 0 or cost > limit then return false, true, level, 0 end
  local needed = level + cost * PERIOD_MS
  local capacity = limit * PERIOD_MS
  if needed <= capacity then return true, false, needed, 0 end
  return false, false, level, math.ceil((needed - capacity) / limit)
end

local function charge_bucket(level, delta)
  return math.max(0, level + delta * PERIOD_MS)
end

-- Returns remaining, reset_ms.
local function bucket_window(level, limit)
  local reset_ms = 0
  if limit ~= 0 then reset_ms = math.ceil(level / limit) end
  return math.max(0, math.floor((limit * PERIOD_MS - level) / PERIOD_MS)), reset_ms
end

local function save_bucket(key, level, limit, now)
  if level <= 0 then
    rcall('DEL', key)
    return
  end
  local _, reset_ms = bucket_window(level, limit)
  rcall('HSET', key, 'level', integer_string(level), 'at', integer_string(now))
  rcall('PEXPIRE', key, integer_string(reset_ms + EXPIRY_MARGIN_MS))
end
