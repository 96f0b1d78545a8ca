-- Frees the concurrency slot of a request in both scopes. Idempotent: removing an absent
-- member is a no-op.
--
-- K[kb + 1] tenant concurrency set
-- K[kb + 2] key concurrency set
-- A[ab + 1] request id
--
-- Returns the number of slots freed (0, 1 or 2).
local function release(K, kb, A, ab)
  return rcall('ZREM', K[kb + 1], A[ab + 1]) + rcall('ZREM', K[kb + 2], A[ab + 1])
end
