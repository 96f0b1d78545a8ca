--[[
  Counts each of a batch of requests' usage exactly once, all of one tenant. For each event the
  marker and the increments happen in one script, so no crash or timeout can leave the marker
  set without the counts (lost usage) or the counts without the marker (double counting on the
  next delivery). One call for the batch: a worker records what one job carries at once.

  KEYS: first the day and month aggregate hashes the batch writes, each once
          sy:{t:<tenant>}:usage:day:<YYYY-MM-DD>, sy:{t:<tenant>}:usage:month:<YYYY-MM>
        then each event's marker, in the events' order
          sy:{t:<tenant>}:usage:req:<requestId>
  ARGV: the marker TTL, ms
        the number of metrics m, then their field names (requests, errors, streams, …)
        the number of hash keys h (the first h KEYS)
        the number of groups g, then per group (events of one day, month, API key and model):
          the day hash's and the month hash's position in KEYS, their expiries (ms since the
          epoch) and the field prefix "<key>:<model>:"
        per event: its group's number, then its m amounts, in the metrics' order

  Returns one character per event, '1' when counted now, '0' when the request was counted before
  (an event repeated within the batch included): one string, which a client reads much faster
  than an array of integer replies. The number of keys is passed first (`-n`).
  The last line names the entry, so that bindScript can load the file as a Redis Function
  (libs/redis-scripts): nothing above it may keep a call's state or call Redis.
]]

local function record_usage(KEYS, ARGV)
  local rcall = redis.call
  local marker_ttl = ARGV[1]
  local metric_count = tonumber(ARGV[2])
  local metrics = {}
  for index = 1, metric_count do
    metrics[index] = ARGV[2 + index]
  end
  local at = 3 + metric_count
  local hash_key_count = tonumber(ARGV[at])
  local group_count = tonumber(ARGV[at + 1])
  at = at + 2

  local groups = {}
  for index = 1, group_count do
    groups[index] = {
      day = KEYS[tonumber(ARGV[at])],
      month = KEYS[tonumber(ARGV[at + 1])],
      day_expires_at = ARGV[at + 2],
      month_expires_at = ARGV[at + 3],
      prefix = ARGV[at + 4],
    }
    at = at + 5
  end

  -- A group's amounts are summed over its counted events and written once each at the end, with
  -- one expiry per hash: each call from Lua costs about a microsecond.
  local counted = {}
  for marker = hash_key_count + 1, #KEYS do
    local group = groups[tonumber(ARGV[at])]
    if rcall('SET', KEYS[marker], '1', 'NX', 'PX', marker_ttl) then
      local sums = group.sums
      if sums == nil then
        sums = {}
        for index = 1, metric_count do
          sums[index] = 0
        end
        group.sums = sums
      end
      for index = 1, metric_count do
        sums[index] = sums[index] + tonumber(ARGV[at + index])
      end
      counted[#counted + 1] = '1'
    else
      counted[#counted + 1] = '0'
    end
    at = at + 1 + metric_count
  end

  local expiries = {}   -- hash key -> absolute expiry, ms
  local written = {}    -- hash keys in the order first written
  local function expire_once(key, expires_at)
    if expiries[key] == nil then
      expiries[key] = expires_at
      written[#written + 1] = key
    end
  end

  for _, group in ipairs(groups) do
    local sums = group.sums
    if sums ~= nil then
      for index = 1, metric_count do
        -- Metrics that stayed 0 take no field. Sums are exact below 2^53, as far as readers can
        -- count anyway: they parse the totals into JavaScript numbers. '%.0f' writes every digit
        -- (Lua's default keeps 14).
        if sums[index] ~= 0 then
          local field, amount = group.prefix .. metrics[index], string.format('%.0f', sums[index])
          rcall('HINCRBY', group.day, field, amount)
          rcall('HINCRBY', group.month, field, amount)
        end
      end
      -- Absolute expiries, the same for every event of the period: replays and retries agree.
      expire_once(group.day, group.day_expires_at)
      expire_once(group.month, group.month_expires_at)
    end
  end
  for _, key in ipairs(written) do
    rcall('PEXPIREAT', key, expiries[key])
  end
  return table.concat(counted)
end

return record_usage(KEYS, ARGV)
