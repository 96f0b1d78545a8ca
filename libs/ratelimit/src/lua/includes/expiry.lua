-- Expiries set once per key at the end of a batch (flush_expiries), however many of the batch's
-- operations asked for one: the batch runs atomically, so nothing can see the key in between,
-- and a PEXPIRE per admission was a call from Lua (about a microsecond) per request.
-- Both set by begin_call.
local pending_expiry_ms
local pending_expiry_keys

local function expire_after(key, ms)
  local current = pending_expiry_ms[key]
  if current == nil then pending_expiry_keys[#pending_expiry_keys + 1] = key end
  if current == nil or ms > current then pending_expiry_ms[key] = ms end
end

local function flush_expiries()
  for _, key in ipairs(pending_expiry_keys) do
    rcall('PEXPIRE', key, integer_string(pending_expiry_ms[key]))
  end
end
