-- Bucketed sliding window; mirrors sliding-window.ts (see there for the guarantee and its price).
--
-- A window is one hash: one field per slot (the absolute slot index → units charged in it,
-- always > 0; a slot that empties is deleted) and a running summary of those fields: 't' their
-- sum, 'o' the oldest slot, 'n' the newest, 'c' the oldest slot's count.
--
-- Why a summary rather than HGETALL and a sum: a busy window holds 61 slots, and turning them
-- into Lua strings and numbers on every admission, for each of four windows, would cost tens of
-- microseconds. With the summary, one HMGET (which also reads the current slot's count) and one
-- HSET per window admit a request. The slots themselves are walked only to prune once the
-- oldest has left (about once a second for a busy window), on a refusal that needs more than
-- the oldest slot ('c') to leave, and when a refund empties the oldest or newest slot.
-- Fields that are not slot indices (the 'level' and 'at' of the GCRA buckets that used these
-- keys before) are ignored.

local SLOT_MS = 1000
local PAST_SLOTS = PERIOD_MS / SLOT_MS
local WINDOW_TTL_MS = integer_string(PERIOD_MS + SLOT_MS + EXPIRY_MARGIN_MS)

local function slot_of(at)
  return math.floor(at / SLOT_MS)
end

local function slot_leaves_at(slot)
  return (slot + PAST_SLOTS + 1) * SLOT_MS
end

-- Drops the slots before `first` and recomputes the summary from the slots left.
-- Returns total, oldest, newest, oldest_count; 0, nil, nil, 0 (and the key deleted) when
-- nothing is left.
local function rebuild_window(key, first)
  local fields = rcall('HGETALL', key)
  local total, oldest, newest, oldest_count = 0, nil, nil, 0
  for index = 1, #fields, 2 do
    local slot = tonumber(fields[index])
    if slot then
      if slot < first then
        rcall('HDEL', key, fields[index])
      else
        local count = tonumber(fields[index + 1])
        total = total + count
        if oldest == nil or slot < oldest then oldest, oldest_count = slot, count end
        if newest == nil or slot > newest then newest = slot end
      end
    end
  end
  if oldest == nil then
    rcall('DEL', key)
    return 0, nil, nil, 0
  end
  rcall('HSET', key, 't', integer_string(total), 'o', integer_string(oldest), 'n', integer_string(newest),
    'c', integer_string(oldest_count))
  return total, oldest, newest, oldest_count
end

-- The window as it counts in `slot` (`slot_field` is its field name, formatted once per call).
-- Returns total, oldest, newest, oldest_count and the units already in `slot` (read in the same
-- call, so a charge needs no HINCRBY); 0, nil, nil, 0, 0 when empty.
local function read_window(key, slot, slot_field)
  local stored = rcall('HMGET', key, 't', 'o', 'n', 'c', slot_field)
  if not stored[1] then return 0, nil, nil, 0, 0 end
  local first = slot - PAST_SLOTS
  local newest = tonumber(stored[3])
  if newest < first then
    rcall('DEL', key)
    return 0, nil, nil, 0, 0
  end
  -- Pruning keeps `slot` itself, so the count read above stays right.
  local in_slot = tonumber(stored[5]) or 0
  local oldest = tonumber(stored[2])
  if oldest < first then
    local total, oldest_count
    total, oldest, newest, oldest_count = rebuild_window(key, first)
    return total, oldest, newest, oldest_count, in_slot
  end
  return tonumber(stored[1]), oldest, newest, tonumber(stored[4]), in_slot
end

-- Returns allowed, exceeds_limit, retry_after_ms; mirrors waitForRoom.
local function admit_to_window(key, total, oldest, newest, oldest_count, limit, cost, now)
  if limit == 0 or cost > limit then return false, true, 0 end
  if oldest == nil or total + cost <= limit then return true, false, 0 end
  local excess = total + cost - limit
  local freed = oldest_count
  if freed >= excess then return false, false, slot_leaves_at(oldest) - now end
  for slot = oldest + 1, newest do
    local count = rcall('HGET', key, integer_string(slot))
    if count then
      freed = freed + tonumber(count)
      if freed >= excess then return false, false, slot_leaves_at(slot) - now end
    end
  end
  return false, false, slot_leaves_at(newest) - now
end

-- Returns remaining, reset_ms; mirrors describeWindow.
local function describe_window(limit, total, newest, now)
  local reset_ms = 0
  if newest then reset_ms = slot_leaves_at(newest) - now end
  return math.max(0, limit - total), reset_ms
end

-- Adds `amount` (> 0) to `slot` of a window read at that slot (read_window's five values);
-- mirrors chargeWindow. The expiry only needs renewing when a newer slot starts: set at the
-- first charge of a slot, it already outlives that slot's leaving by the margin.
local function charge_window(key, total, oldest, newest, oldest_count, in_slot, slot, slot_field, amount)
  local count = integer_string(in_slot + amount)
  if oldest ~= nil and oldest < slot and slot <= newest then
    -- The common case, a slot already charged that is not the oldest: only it and the sum change.
    rcall('HSET', key, slot_field, count, 't', integer_string(total + amount))
    return
  end
  if oldest == nil or slot <= oldest then oldest, oldest_count = slot, in_slot + amount end
  local renew = newest == nil or slot > newest
  if renew then newest = slot end
  rcall('HSET', key, slot_field, count, 't', integer_string(total + amount),
    'o', integer_string(oldest), 'n', integer_string(newest), 'c', integer_string(oldest_count))
  if renew then rcall('PEXPIRE', key, WINDOW_TTL_MS) end
end

-- Gives `amount` (> 0) back to `admitted_slot` if it still counts in `slot`; mirrors refundWindow.
local function refund_window(key, slot, admitted_slot, amount)
  local total, oldest, newest = read_window(key, slot, integer_string(slot))
  if oldest == nil or admitted_slot < slot - PAST_SLOTS or admitted_slot > slot then return end
  local field = integer_string(admitted_slot)
  local stored = rcall('HGET', key, field)
  if not stored then return end
  local count = tonumber(stored)
  local given = math.min(count, amount)
  if given < count then
    if admitted_slot == oldest then
      rcall('HSET', key, field, integer_string(count - given), 't', integer_string(total - given), 'c', integer_string(count - given))
    else
      rcall('HSET', key, field, integer_string(count - given), 't', integer_string(total - given))
    end
    return
  end
  if given == total then
    rcall('DEL', key)
    return
  end
  rcall('HDEL', key, field)
  if admitted_slot == oldest or admitted_slot == newest then
    rebuild_window(key, slot - PAST_SLOTS)
  else
    rcall('HSET', key, 't', integer_string(total - given))
  end
end
