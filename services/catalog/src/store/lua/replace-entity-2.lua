--[[
  Compare-and-set on one field of an entity hash (a tenant or a key): replaces or deletes it
  only if it still holds what the caller read, so concurrent updates never lose a write.

  KEYS[1] entity hash (tenants or keys)   KEYS[2] version counter
  ARGV[1] changes channel                 ARGV[3] expected JSON (as read)
  ARGV[2] field                           ARGV[4] new JSON, or '' to delete

  Returns the new version; -1 when the field is gone; -2 when it changed since it was read.
]]

local rcall = redis.call
--- @include "bump-version"

local current = rcall('HGET', KEYS[1], ARGV[2])
if not current then return -1 end
if current ~= ARGV[3] then return -2 end
if ARGV[4] == '' then
  rcall('HDEL', KEYS[1], ARGV[2])
else
  rcall('HSET', KEYS[1], ARGV[2], ARGV[4])
end
return bump_version(KEYS[2], ARGV[1])
