-- Frees the concurrency slot of a request in both scopes. Idempotent: removing an absent
-- member is a no-op.
--
-- K[kb + 1] tenant concurrency set
-- K[kb + 2] key concurrency set
--
-- Returns the number of slots freed (0, 1 or 2).
local function release(K, kb, request_id)
  return rcall('ZREM', K[kb + 1], request_id) + rcall('ZREM', K[kb + 2], request_id)
end
