--[[
  Creates a runtime tenant unless one of that id exists. Keys left behind under that id (by a
  tenant that was removed from the config file) are deleted: a new tenant starts with no keys.

  KEYS[1] tenants hash              KEYS[3] version counter
  KEYS[2] keys hash
  ARGV[1] changes channel           ARGV[3] tenant JSON
  ARGV[2] tenant field              ARGV[4] key field prefix of the tenant

  Returns the new version, or -1 when the tenant exists.
]]

local rcall = redis.call
--- @include "bump-version"
--- @include "delete-prefixed"

if rcall('HEXISTS', KEYS[1], ARGV[2]) == 1 then return -1 end
delete_prefixed(KEYS[2], ARGV[4])
rcall('HSET', KEYS[1], ARGV[2], ARGV[3])
return bump_version(KEYS[3], ARGV[1])
