--[[
  Takes the movers' lock and reads the oldest staged batches, in one step.

  KEYS[1]  the staged list      KEYS[2]  the movers' lock
  ARGV[1]  this mover's token   ARGV[2]  lease in ms   ARGV[3]  most entries to read

  Returns the entries, oldest first, holding the lock until finish-move-2.lua; an empty array
  (and no lock held) when nothing is staged; false while another mover holds the lock.
]]
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
local entries = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
if #entries == 0 then redis.call('DEL', KEYS[2]) end
return entries
