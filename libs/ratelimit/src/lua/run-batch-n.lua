--[[
  Runs a batch of limiter operations of one tenant, in order, as one script call: a process
  sends together what it asks of the limiter in one turn of its event loop, so that a request
  costs a share of a round trip instead of one per operation (docs/performance.md). Each
  operation sees the effects of the ones before it, exactly as separate calls in that order.

  KEYS     the operations' keys, one after another (all hash-tagged to the one tenant)
  ARGV[1]  the operation codes, one character each:
             a  admit      8 keys, 14 arguments, 12 replies (includes/admit.lua)
             r  release    2 keys,  1 argument,   1 reply   (includes/release.lua)
             c  reconcile  4 keys,  7 arguments,  no reply  (includes/reconcile.lua)
           and in upper case the same operation on the keys and arguments of the last one in
           lower case before it, but for what is its own:
             A  admit      0 keys,  2 arguments: request id, cost
             R  release    0 keys,  1 argument:  request id
             C  reconcile  0 keys,  2 arguments: delta tokens, admitted at
           A busy replica's batch is mostly one tenant's key admitting under the same limits:
           sent once, its 8 keys and 12 shared arguments are not encoded, sent and parsed again
           for every request.
  ARGV[2..] the operations' arguments, one after another

  Returns the operations' replies, one after another, as one string of integers separated by
  commas: a client decodes one bulk reply much faster than twelve integer replies an admission.
  The number of keys is variable: the caller passes it first (the `-n` of the file name).
  The last line names the entry, so that bindScript can load the file as a Redis Function
  (libs/redis-scripts): nothing above it may keep a call's state or call Redis.
]]

--- @include "constants"
--- @include "now"
--- @include "expiry"
--- @include "sliding-window"
--- @include "budget"
--- @include "admit"
--- @include "release"
--- @include "reconcile"
--- @include "begin-call"

local function repeats_before_first(codes, upper, lower)
  local repeated = string.find(codes, upper, 1, true)
  if repeated == nil then return false end
  local first = string.find(codes, lower, 1, true)
  return first == nil or first > repeated
end

local function run_batch(KEYS, ARGV)
  begin_call()
  local codes = ARGV[1]
  -- Refused before any operation runs: a script's writes are not undone by an error reply.
  if string.find(codes, '[^arcARC]') or repeats_before_first(codes, 'A', 'a') or repeats_before_first(codes, 'R', 'r')
    or repeats_before_first(codes, 'C', 'c') then
    return redis.error_reply('unknown limiter operation in ' .. codes)
  end
  local replies = {}
  local key_base, argument_base = 0, 1
  -- Where the last operation of each kind in lower case found its keys and arguments.
  local admit_kb, admit_ab, release_kb, reconcile_kb, reconcile_ab
  for index = 1, #codes do
    local code = string.sub(codes, index, index)
    if code == 'A' then
      admit(KEYS, admit_kb, ARGV, admit_ab, ARGV[argument_base + 1], tonumber(ARGV[argument_base + 2]), replies)
      argument_base = argument_base + 2
    elseif code == 'a' then
      admit_kb, admit_ab = key_base, argument_base
      admit(KEYS, key_base, ARGV, argument_base, ARGV[argument_base + 2], tonumber(ARGV[argument_base + 3]), replies)
      key_base, argument_base = key_base + 8, argument_base + 14
    elseif code == 'R' then
      replies[#replies + 1] = release(KEYS, release_kb, ARGV[argument_base + 1])
      argument_base = argument_base + 1
    elseif code == 'r' then
      release_kb = key_base
      replies[#replies + 1] = release(KEYS, key_base, ARGV[argument_base + 1])
      key_base, argument_base = key_base + 2, argument_base + 1
    elseif code == 'C' then
      reconcile(KEYS, reconcile_kb, ARGV, reconcile_ab, tonumber(ARGV[argument_base + 1]), ARGV[argument_base + 2])
      argument_base = argument_base + 2
    else
      reconcile_kb, reconcile_ab = key_base, argument_base
      reconcile(KEYS, key_base, ARGV, argument_base, tonumber(ARGV[argument_base + 2]), ARGV[argument_base + 3])
      key_base, argument_base = key_base + 4, argument_base + 7
    end
  end
  flush_windows()
  flush_expiries()
  -- table.concat writes numbers with 14 significant digits, which every reply fits: limits and
  -- what is left of them stay within MAX_LIMIT and a reconcile's debt, times are ms since the epoch.
  return table.concat(replies, ',')
end

return run_batch(KEYS, ARGV)
