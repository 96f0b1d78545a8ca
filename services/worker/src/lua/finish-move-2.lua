--[[
  Ends a move: drops the entries now carried by a job from the head of the staged list and
  lets go of the lock, but only while the lock is still this mover's. A mover whose lease ran
  out trims nothing: the next mover reads the same entries, and their job gets the same id.
  Routers only append, so the head is still what the claim read.

  KEYS[1]  the staged list      KEYS[2]  the movers' lock
  ARGV[1]  this mover's token   ARGV[2]  entries moved (0 only lets go of the lock)

  Returns 1 when the move was ended, 0 when the lock was no longer this mover's.
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
local moved = tonumber(ARGV[2])
if moved > 0 then redis.call('LTRIM', KEYS[1], moved, -1) end
redis.call('DEL', KEYS[2])
return 1
