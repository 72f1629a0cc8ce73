-- Deletes KEYS[1] if ARGV[1] holds its IN_PROGRESS claim (fencing). Returns 1, or 0 when the claim was lost.
local key = KEYS[1]
local f = redis.call('HMGET', key, 'state', 'owner')
if f[1] ~= 'IN_PROGRESS' or f[2] ~= ARGV[1] then
  return 0
end
redis.call('DEL', key)
return 1
