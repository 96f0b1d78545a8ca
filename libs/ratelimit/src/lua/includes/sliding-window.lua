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
--
-- Within one script call, a window's summary and current slot are kept here after the first
-- read and written back once at the end (flush_windows): a busy batch admits many requests of
-- one tenant into the same windows, and each HMGET and HSET from Lua costs about a
-- microsecond. The script runs atomically, so nothing sees the hash in between. Anything that
-- reads or changes the hash's other fields (a prune, a refusal walking older slots, a refund
-- that empties a slot) writes the window back and drops it first (forget_window).

local SLOT_MS = 1000
local PAST_SLOTS = PERIOD_MS / SLOT_MS
local WINDOW_TTL_MS = PERIOD_MS + SLOT_MS + EXPIRY_MARGIN_MS

local function slot_of(at)
  return math.floor(at / SLOT_MS)
end

local function slot_leaves_at(slot)
  return (slot + PAST_SLOTS + 1) * SLOT_MS
end

-- key -> { slot, slot_field, total, oldest, newest, oldest_count, in_slot, dirty, renew }; set by begin_call.
local windows
-- The keys in the order first kept, so that the writes at the end are in a fixed order.
local window_keys

local function keep_window(key, slot, slot_field, total, oldest, newest, oldest_count, in_slot)
  if windows[key] == nil then window_keys[#window_keys + 1] = key end
  windows[key] = {
    slot = slot, slot_field = slot_field, total = total, oldest = oldest, newest = newest,
    oldest_count = oldest_count, in_slot = in_slot, dirty = false, renew = false,
  }
end

-- Writes a charged window back and drops it from the cache.
local function forget_window(key)
  local window = windows[key]
  if window == nil then return end
  windows[key] = nil
  if not window.dirty then return end
  rcall('HSET', key, window.slot_field, integer_string(window.in_slot), 't', integer_string(window.total),
    'o', integer_string(window.oldest), 'n', integer_string(window.newest), 'c', integer_string(window.oldest_count))
  if window.renew then rcall('PEXPIRE', key, integer_string(WINDOW_TTL_MS)) end
end

-- At the end of the script call: every window charged is written back.
local function flush_windows()
  for _, key in ipairs(window_keys) do forget_window(key) end
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

-- The window as the hash holds it in `slot`: read_window without the cache.
local function load_window(key, slot, slot_field)
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

-- The window as it counts in `slot` (`slot_field` is its field name, formatted once per call).
-- Returns total, oldest, newest, oldest_count and the units already in `slot` (read in the same
-- call, so a charge needs no HINCRBY); 0, nil, nil, 0, 0 when empty.
local function read_window(key, slot, slot_field)
  local window = windows[key]
  if window ~= nil then
    if window.slot == slot then
      return window.total, window.oldest, window.newest, window.oldest_count, window.in_slot
    end
    forget_window(key)
  end
  local total, oldest, newest, oldest_count, in_slot = load_window(key, slot, slot_field)
  keep_window(key, slot, slot_field, total, oldest, newest, oldest_count, in_slot)
  return total, oldest, newest, oldest_count, in_slot
end

-- Returns allowed, exceeds_limit, retry_after_ms; mirrors waitForRoom.
local function admit_to_window(key, total, oldest, newest, oldest_count, limit, cost, now)
  if limit == 0 or cost > limit then return false, true, 0 end
  if oldest == nil or total + cost <= limit then return true, false, 0 end
  local excess = total + cost - limit
  local freed = oldest_count
  if freed >= excess then return false, false, slot_leaves_at(oldest) - now end
  -- The older slots are read from the hash itself.
  forget_window(key)
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

-- Adds `amount` (> 0) to `slot` of a window; mirrors chargeWindow. The window is the one kept
-- by read_window (already there when the caller has just read it) and is written back at the
-- end (flush_windows). The expiry only needs renewing when a newer slot starts: set at the first
-- charge of a slot, it already outlives that slot's leaving by the margin.
local function charge_window(key, slot, slot_field, amount)
  read_window(key, slot, slot_field)
  local window = windows[key]
  local count = window.in_slot + amount
  if window.oldest == nil or slot <= window.oldest then window.oldest, window.oldest_count = slot, count end
  if window.newest == nil or slot > window.newest then window.newest, window.renew = slot, true end
  window.total, window.in_slot, window.dirty = window.total + amount, count, true
end

-- Gives `amount` (> 0) back to `admitted_slot` if it still counts in `slot`; mirrors refundWindow.
local function refund_window(key, slot, admitted_slot, amount)
  local total, oldest, newest, _, in_slot = read_window(key, slot, integer_string(slot))
  if oldest == nil or admitted_slot < slot - PAST_SLOTS or admitted_slot > slot then return end
  if admitted_slot == slot and amount < in_slot then
    -- The common case, a refund within the current slot that leaves it charged: kept.
    local window = windows[key]
    window.total, window.in_slot = total - amount, in_slot - amount
    if slot == oldest then window.oldest_count = window.in_slot end
    window.dirty = true
    return
  end
  -- Other slots, or one left empty: the hash itself is read and changed below.
  forget_window(key)
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
