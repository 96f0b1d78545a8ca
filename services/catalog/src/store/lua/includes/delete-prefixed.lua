-- Deletes the fields of a hash that start with a prefix (a tenant's keys); returns how many.
local function delete_prefixed(hash_key, prefix)
  local deleted = 0
  for _, field in ipairs(rcall('HKEYS', hash_key)) do
    if string.sub(field, 1, #prefix) == prefix then
      deleted = deleted + rcall('HDEL', hash_key, field)
    end
  end
  return deleted
end
