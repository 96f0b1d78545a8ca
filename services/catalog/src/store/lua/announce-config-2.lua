--[[
  Records the fingerprint of the config file a replica serves. Bumps the version when it
  differs from the one announced last (a restart with the same file changes nothing), or
  always when forced (the replica's own content changed). Key layout in keys.ts.

  KEYS[1] config fingerprint        KEYS[2] version counter
  ARGV[1] changes channel           ARGV[2] fingerprint
  ARGV[3] '1' to bump even when the fingerprint is the one announced last

  Returns { changed (1/0), version }.
]]

local rcall = redis.call
--- @include "bump-version"

if ARGV[3] ~= '1' and rcall('GET', KEYS[1]) == ARGV[2] and rcall('EXISTS', KEYS[2]) == 1 then
  return { 0, tonumber(rcall('GET', KEYS[2])) }
end
rcall('SET', KEYS[1], ARGV[2])
return { 1, bump_version(KEYS[2], ARGV[1]) }
