--[[
  Deletes a runtime tenant and every key of it, so no key of the tenant can authenticate.

  KEYS[1] tenants hash              KEYS[3] version counter
  KEYS[2] keys hash
  ARGV[1] changes channel           ARGV[3] key field prefix of the tenant
  ARGV[2] tenant field

  Returns { new version, deleted keys }, or { -1, 0 } when there is no such tenant.
]]

local rcall = redis.call
--- @include "bump-version"
--- @include "delete-prefixed"

if rcall('HDEL', KEYS[1], ARGV[2]) == 0 then return { -1, 0 } end
local deleted = delete_prefixed(KEYS[2], ARGV[3])
return { bump_version(KEYS[3], ARGV[1]), deleted }
