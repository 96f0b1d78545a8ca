-- Bumps the catalog version and announces it on the changes channel. A missing counter (a
-- new or flushed Redis) starts from the server's clock in ms: above any number handed out
-- before, so no client can mistake new content for the version it already holds.
local function bump_version(version_key, channel)
  if rcall('EXISTS', version_key) == 0 then
    local time = rcall('TIME')
    rcall('SET', version_key, tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
  end
  local version = rcall('INCR', version_key)
  rcall('PUBLISH', channel, version)
  return version
end
