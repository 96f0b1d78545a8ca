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
  ARGV[2..] the operations' arguments, one after another

  Returns the operations' replies, one after another, as one flat array of integers.
  The number of keys is variable: the caller passes it first (the `-n` of the file name).
]]

--- @include "constants"
--- @include "now"
--- @include "expiry"
--- @include "sliding-window"
--- @include "budget"
--- @include "admit"
--- @include "release"
--- @include "reconcile"

local codes = ARGV[1]
-- Refused before any operation runs: a script's writes are not undone by an error reply.
if string.find(codes, '[^arc]') then
  return redis.error_reply('unknown limiter operation in ' .. codes)
end
local replies = {}
local key_base, argument_base = 0, 1
for index = 1, #codes do
  local code = string.sub(codes, index, index)
  if code == 'a' then
    admit(KEYS, key_base, ARGV, argument_base, replies)
    key_base, argument_base = key_base + 8, argument_base + 14
  elseif code == 'r' then
    replies[#replies + 1] = release(KEYS, key_base, ARGV, argument_base)
    key_base, argument_base = key_base + 2, argument_base + 1
  else
    reconcile(KEYS, key_base, ARGV, argument_base)
    key_base, argument_base = key_base + 4, argument_base + 7
  end
end
flush_expiries()
return replies
