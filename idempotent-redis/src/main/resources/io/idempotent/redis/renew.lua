-- Extends the lease of KEYS[1] to ARGV[2] ms from now if ARGV[1] holds its IN_PROGRESS claim (fencing);
-- the hash is kept ARGV[3] ms, a grace period of ARGV[4] ms after it (see claim.lua). PEXPIRE comes first: it does not
-- grow memory, and after it Redis lets the script finish even when out of memory, so a running call
-- keeps its lease. Returns 1, or 0 when the claim was lost.
local key = KEYS[1]
local f = redis.call('HMGET', key, 'state', 'owner')
if f[1] ~= 'IN_PROGRESS' or f[2] ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', key, ARGV[3])
redis.call('HSET', key, 'lease_ms', ARGV[2], 'grace_ms', ARGV[4])
return 1
