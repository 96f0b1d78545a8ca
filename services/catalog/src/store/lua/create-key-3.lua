--[[
  Creates a runtime key unless one of that id exists for the tenant. For a runtime tenant the
  tenant must still exist, checked in the same step: a key created while its tenant is being
  deleted is refused rather than left behind.

  KEYS[1] tenants hash              KEYS[3] version counter
  KEYS[2] keys hash
  ARGV[1] changes channel           ARGV[3] key field
  ARGV[2] tenant field, or '' when the tenant is defined in the config file (not checked here)
  ARGV[4] key JSON (holds the key's SHA-256, never the key)

  Returns the new version; -1 when the key exists; -2 when the tenant does not.
]]

local rcall = redis.call
--- @include "bump-version"

if ARGV[2] ~= '' and rcall('HEXISTS', KEYS[1], ARGV[2]) == 0 then return -2 end
if rcall('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then return -1 end
return bump_version(KEYS[3], ARGV[1])
