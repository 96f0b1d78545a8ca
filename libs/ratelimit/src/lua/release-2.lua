--[[
  Frees the concurrency slot of a request in both scopes. Idempotent: removing an absent
  member is a no-op.

  KEYS[1] tenant concurrency set
  KEYS[2] key concurrency set
  ARGV[1] request id

  Returns the number of slots freed (0, 1 or 2).
]]

local rcall = redis.call
return rcall('ZREM', KEYS[1], ARGV[1]) + rcall('ZREM', KEYS[2], ARGV[1])
