-- Charges the difference between actual and estimated tokens to the tokens-per-minute windows
-- and budget counters of a tenant and its API key. Mirrors reconcile in memory-limiter.ts.
--
-- K[kb + 1] tenant tokens window       K[kb + 3] key tokens window
-- K[kb + 2] tenant budget counters     K[kb + 4] key budget counters
--
-- A[ab + 1] now in ms: '' in production (redis TIME is used), a number only in tests
-- A[ab + 4] tenant has a tpm (1/0)     A[ab + 6] key has a tpm (1/0)
-- A[ab + 5] tenant has a budget (1/0)  A[ab + 7] key has a budget (1/0)
-- delta     tokens, actual - estimated (negative gives capacity back)
-- admitted  when the request was admitted, in ms on this server's clock ('' = unknown)
--
-- A positive delta is charged to the current slot of the token windows. A negative one goes
-- back to the slot the reservation was made in, only while that slot still counts, and only
-- when `admitted` says which slot that is (see refundWindow in sliding-window.ts).
-- Needs the constants, now, sliding-window and budget includes before it.
local function reconcile(K, kb, A, ab, delta, admitted)
  local now = now_ms(A[ab + 1])
  local admitted_at = optional_number(admitted)
  local slot = slot_of(now)
  local slot_field = integer_string(slot)
  -- Computed on first use: most requests have no budget.
  local periods = nil

  for scope_index = 0, 1 do
    local tokens_key, budget_key = K[kb + scope_index * 2 + 1], K[kb + scope_index * 2 + 2]
    if A[ab + 4 + scope_index * 2] == '1' then
      if delta > 0 then
        charge_window(tokens_key, slot, slot_field, delta)
      elseif admitted_at then
        refund_window(tokens_key, slot, slot_of(admitted_at), -delta)
      end
    end
    if A[ab + 5 + scope_index * 2] == '1' then
      periods = periods or budget_periods(now)
      local day_used, month_used = read_budget(budget_key, periods)
      save_budget(budget_key, periods, math.max(0, day_used + delta), math.max(0, month_used + delta))
    end
  end
end
