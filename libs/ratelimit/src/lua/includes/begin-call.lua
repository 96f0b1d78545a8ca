-- Every call starts from nothing: no time read, no window or expiry to write back. Loaded as a
-- Function library, the top level runs once, at FUNCTION LOAD, so what a call kept there (or
-- left behind when an error ended it midway) would otherwise reach the next call; and
-- redis.call exists only once a call runs.
local function begin_call()
  rcall = redis.call
  server_now = nil
  windows, window_keys = {}, {}
  pending_expiry_ms, pending_expiry_keys = {}, {}
end
