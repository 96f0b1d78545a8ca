-- Admits one request against every limit of its tenant and of its API key, atomically: either
-- every configured limit admits and all are charged, or nothing is charged anywhere.
-- Mirrors decideAdmission (decide-admission.ts); key layout in keys.ts.
--
-- K[kb + 1] tenant requests window     K[kb + 5] key requests window
-- K[kb + 2] tenant tokens window       K[kb + 6] key tokens window
-- K[kb + 3] tenant concurrency set     K[kb + 7] key concurrency set
-- K[kb + 4] tenant budget counters     K[kb + 8] key budget counters
--
-- A[ab + 1]      now in ms: '' in production (redis TIME is used), a number only in tests
-- A[ab + 2]      request id, the concurrency set member: read by the caller, see below
-- A[ab + 3]      cost in tokens (the estimate), charged to tokens per minute and budgets: same
-- A[ab + 4]      concurrency lease in ms
-- A[ab + 5..9]   tenant limits: rpm, tpm, concurrency, daily tokens, monthly tokens ('' = none)
-- A[ab + 10..14] key limits, same order
--
-- The request id and cost come as parameters, `request_id` and `cost`, so that an admission
-- can reuse the keys and other arguments of the one before it (`A` in run-batch-n.lua).
-- Appends its 12 replies to `replies` (a table per admission, then copied, was measurable):
-- allowed, refused limit, refused scope, retry after ms, exceeds limit, requests limit,
-- remaining, reset ms, tokens limit, remaining, reset ms, now:
-- booleans as 1/0, limit codes 1 requests 2 tokens 3 concurrency 4 budget, scope codes
-- 1 tenant 2 key, and -1 for anything absent (decoded by decodeAdmitReply in commands.ts).
-- `now` is the moment of the decision on the clock used, the admission's `admittedAt`.
-- Needs the constants, now, expiry, sliding-window and budget includes before it.

local REQUESTS, TOKENS, CONCURRENCY, BUDGET = 1, 2, 3, 4

-- The tighter window: fewer units left, then the longer reset; the tenant's on a tie.
local function tighter(current, limit, remaining, reset_ms)
  if current == nil
    or remaining < current.remaining
    or (remaining == current.remaining and reset_ms > current.reset_ms) then
    return { limit = limit, remaining = remaining, reset_ms = reset_ms }
  end
  return current
end

local function window_fields(window)
  if window == nil then return -1, -1, -1 end
  return window.limit, window.remaining, window.reset_ms
end

local function admit(K, kb, A, ab, request_id, cost, replies)
  local now = now_ms(A[ab + 1])
  local slot = slot_of(now)
  local slot_field = integer_string(slot)
  local lease_ms = tonumber(A[ab + 4])
  -- Computed on first use: most requests have no budget.
  local periods = nil

  -- Longest wait wins; a limit the request can never fit beats any wait; ties keep the earlier check.
  local refusal = nil
  local function consider(limit_code, scope_code, exceeds_limit, retry_after_ms)
    if refusal == nil
      or (exceeds_limit and not refusal.exceeds_limit)
      or (not exceeds_limit and not refusal.exceeds_limit and retry_after_ms > refusal.retry_after_ms) then
      refusal = { limit = limit_code, scope = scope_code, exceeds_limit = exceeds_limit, retry_after_ms = retry_after_ms }
    end
  end

  -- A scope with no limit at all (most API keys) is `false`: nothing to read, charge or describe.
  local scopes = { false, false }

  for scope_code = 1, 2 do
    local key_base = kb + (scope_code - 1) * 4
    local argv_base = ab + 4 + (scope_code - 1) * 5
    if A[argv_base + 1] ~= '' or A[argv_base + 2] ~= '' or A[argv_base + 3] ~= '' or A[argv_base + 4] ~= ''
      or A[argv_base + 5] ~= '' then
      local scope = {
        requests_key = K[key_base + 1], tokens_key = K[key_base + 2],
        concurrency_key = K[key_base + 3], budget_key = K[key_base + 4],
        rpm = optional_number(A[argv_base + 1]), tpm = optional_number(A[argv_base + 2]),
        concurrency = optional_number(A[argv_base + 3]),
        daily = optional_number(A[argv_base + 4]), monthly = optional_number(A[argv_base + 5]),
      }
      scopes[scope_code] = scope

      if scope.rpm then
        local total, oldest, newest, oldest_count = read_window(scope.requests_key, slot, slot_field)
        scope.requests_total, scope.requests_newest = total, newest
        local allowed, exceeds_limit, retry_after_ms = admit_to_window(scope.requests_key, total, oldest, newest, oldest_count, scope.rpm, 1, now)
        if not allowed then consider(REQUESTS, scope_code, exceeds_limit, retry_after_ms) end
      end

      if scope.tpm then
        local total, oldest, newest, oldest_count = read_window(scope.tokens_key, slot, slot_field)
        scope.tokens_total, scope.tokens_newest = total, newest
        local allowed, exceeds_limit, retry_after_ms = admit_to_window(scope.tokens_key, total, oldest, newest, oldest_count, scope.tpm, cost, now)
        if not allowed then consider(TOKENS, scope_code, exceeds_limit, retry_after_ms) end
      end

      -- Below the limit neither expired leases nor a lease this request already holds can change
      -- the answer, so the common case is one ZCARD; the rest only at the limit (as in the memory
      -- limiter). Leases of crashed callers expire there; pruning is housekeeping, not a charge.
      if scope.concurrency and (scope.concurrency == 0 or rcall('ZCARD', scope.concurrency_key) >= scope.concurrency) then
        rcall('ZREMRANGEBYSCORE', scope.concurrency_key, '-inf', integer_string(now))
        local holds_slot = rcall('ZSCORE', scope.concurrency_key, request_id)
        if not holds_slot and scope.concurrency == 0 then
          consider(CONCURRENCY, scope_code, true, 0)
        elseif not holds_slot and rcall('ZCARD', scope.concurrency_key) >= scope.concurrency then
          consider(CONCURRENCY, scope_code, false, CONCURRENCY_RETRY_AFTER_MS)
        end
      end

      if scope.daily or scope.monthly then
        periods = periods or budget_periods(now)
        local day_used, month_used = read_budget(scope.budget_key, periods)
        if scope.daily then
          local allowed, exceeds_limit, retry_after_ms = admit_to_budget(day_used, scope.daily, cost, periods.ms_until_next_day)
          if not allowed then consider(BUDGET, scope_code, exceeds_limit, retry_after_ms) end
        end
        if scope.monthly then
          local allowed, exceeds_limit, retry_after_ms = admit_to_budget(month_used, scope.monthly, cost, periods.ms_until_next_month)
          if not allowed then consider(BUDGET, scope_code, exceeds_limit, retry_after_ms) end
        end
        scope.day_used, scope.month_used = day_used + cost, month_used + cost
      end
    end
  end

  if refusal == nil then
    for scope_code = 1, 2 do
      local scope = scopes[scope_code]
      if scope then
        if scope.rpm then
          charge_window(scope.requests_key, slot, slot_field, 1)
        end
        -- A free request charges no slot: a window only ever holds slots of more than 0 units.
        if scope.tpm and cost > 0 then
          charge_window(scope.tokens_key, slot, slot_field, cost)
        end
        if scope.concurrency then
          rcall('ZADD', scope.concurrency_key, integer_string(now + lease_ms), request_id)
          expire_after(scope.concurrency_key, lease_ms)
        end
        if scope.day_used then save_budget(scope.budget_key, periods, scope.day_used, scope.month_used) end
      end
    end
  end

  -- The headers describe the windows as they now are: charged if admitted, untouched if refused.
  local requests_window, tokens_window = nil, nil
  for scope_code = 1, 2 do
    local scope = scopes[scope_code]
    if scope and scope.rpm then
      local total, newest = scope.requests_total, scope.requests_newest
      if refusal == nil then total, newest = total + 1, math.max(newest or slot, slot) end
      requests_window = tighter(requests_window, scope.rpm, describe_window(scope.rpm, total, newest, now))
    end
    if scope and scope.tpm then
      local total, newest = scope.tokens_total, scope.tokens_newest
      if refusal == nil and cost > 0 then total, newest = total + cost, math.max(newest or slot, slot) end
      tokens_window = tighter(tokens_window, scope.tpm, describe_window(scope.tpm, total, newest, now))
    end
  end

  local requests_limit, requests_remaining, requests_reset = window_fields(requests_window)
  local tokens_limit, tokens_remaining, tokens_reset = window_fields(tokens_window)

  local allowed, refused_limit, refused_scope, retry_after_ms, exceeds_limit = 1, -1, -1, 0, 0
  if refusal ~= nil then
    allowed, refused_limit, refused_scope, retry_after_ms = 0, refusal.limit, refusal.scope, refusal.retry_after_ms
    if refusal.exceeds_limit then exceeds_limit = 1 end
  end
  local n = #replies
  replies[n + 1], replies[n + 2], replies[n + 3], replies[n + 4], replies[n + 5], replies[n + 6] =
    allowed, refused_limit, refused_scope, retry_after_ms, exceeds_limit, requests_limit
  replies[n + 7], replies[n + 8], replies[n + 9], replies[n + 10], replies[n + 11], replies[n + 12] =
    requests_remaining, requests_reset, tokens_limit, tokens_remaining, tokens_reset, now
end
