-- UTC day and month of a moment; mirrors budget-period.ts, which uses Date. Redis Lua has no
-- date library, so months come from Howard Hinnant's civil-from-days algorithm
-- (https://howardhinnant.github.io/date_algorithms.html).

local function days_from_civil(year, month, day)
  if month <= 2 then year = year - 1 end
  local era = math.floor(year / 400)
  local year_of_era = year - era * 400
  local shifted_month = month + 9
  if month > 2 then shifted_month = month - 3 end
  local day_of_year = math.floor((153 * shifted_month + 2) / 5) + day - 1
  local day_of_era = year_of_era * 365 + math.floor(year_of_era / 4) - math.floor(year_of_era / 100) + day_of_year
  return era * 146097 + day_of_era - 719468
end

-- Returns year, month (1-12).
local function civil_from_days(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local day_of_era = z - era * 146097
  local year_of_era = math.floor((day_of_era - math.floor(day_of_era / 1460) + math.floor(day_of_era / 36524) - math.floor(day_of_era / 146096)) / 365)
  local day_of_year = day_of_era - (365 * year_of_era + math.floor(year_of_era / 4) - math.floor(year_of_era / 100))
  local shifted_month = math.floor((5 * day_of_year + 2) / 153)
  local month = shifted_month + 3
  if shifted_month >= 10 then month = shifted_month - 9 end
  local year = year_of_era + era * 400
  if month <= 2 then year = year + 1 end
  return year, month
end

-- Returns a table shaped like BudgetPeriods (month = year * 12 + 0-based month).
local function budget_periods(now)
  local day = math.floor(now / DAY_MS)
  local year, month = civil_from_days(day)
  local next_year, next_month = year, month + 1
  if next_month == 13 then next_year, next_month = year + 1, 1 end
  return {
    day = day,
    month = year * 12 + month - 1,
    ms_until_next_day = (day + 1) * DAY_MS - now,
    ms_until_next_month = days_from_civil(next_year, next_month, 1) * DAY_MS - now,
  }
end

-- Returns day_used, month_used: counters of an earlier period count nothing.
local function read_budget(key, periods)
  local stored = rcall('HMGET', key, 'day', 'dayUsed', 'month', 'monthUsed')
  local day_used, month_used = 0, 0
  if tonumber(stored[1]) == periods.day then day_used = tonumber(stored[2]) end
  if tonumber(stored[3]) == periods.month then month_used = tonumber(stored[4]) end
  return day_used, month_used
end

local function save_budget(key, periods, day_used, month_used)
  rcall('HSET', key, 'day', integer_string(periods.day), 'dayUsed', integer_string(day_used),
    'month', integer_string(periods.month), 'monthUsed', integer_string(month_used))
  rcall('PEXPIRE', key, integer_string(periods.ms_until_next_month + EXPIRY_MARGIN_MS))
end

-- Returns allowed, exceeds_limit, retry_after_ms; mirrors admitToBudget.
local function admit_to_budget(used, budget, cost, ms_until_reset)
  if budget == 0 or cost > budget then return false, true, 0 end
  if used + cost <= budget then return true, false, 0 end
  return false, false, ms_until_reset
end
