-- Claims KEYS[1] for an owner unless a live record holds it.
-- ARGV[1] fingerprint, ARGV[2] owner, ARGV[3] lease, ARGV[4] how long to keep the hash (lease + grace),
-- ARGV[5] the grace, in ms, ARGV[6] an id of this claim, new for every claim the store sends. An IN_PROGRESS hash expires a grace period after its lease ends; during it a
-- PTTL of at most grace_ms means the lease itself has run out, so the claim is a takeover (the owner
-- died), while the late owner, if nobody takes over, can still complete. Hashes written before grace_ms
-- existed kept one lease of grace: lease_ms stands in for it.
-- A fresh claim's first write is HSET, so a Redis that is out of memory under noeviction refuses it
-- (the call fails closed) instead of letting it in.
-- A claim that finds an IN_PROGRESS hash with its own id is the same claim sent again (the store resends a
-- claim whose connection dropped before the answer came): it is ACQUIRED again, with a fresh lease.
-- Returns {'ACQUIRED'}, {'TAKEN_OVER'}, or {'EXISTING', state, fingerprint, owner, kind, json,
-- failure_type, failure_message, remaining ms}.
local key = KEYS[1]
local f = redis.call('HMGET', key, 'state', 'fingerprint', 'owner', 'lease_ms',
  'kind', 'json', 'failure_type', 'failure_message', 'grace_ms', 'claim_id')
local status = 'ACQUIRED'
if f[1] == 'COMPLETED' then
  return {'EXISTING', f[1], f[2], f[3], f[5], f[6], f[7], f[8], redis.call('PTTL', key)}
elseif f[1] == 'IN_PROGRESS' and f[10] == ARGV[6] then
  status = 'ACQUIRED'
elseif f[1] == 'IN_PROGRESS' then
  local remaining = redis.call('PTTL', key)
  if remaining < 0 or remaining > tonumber(f[9] or f[4]) then
    return {'EXISTING', f[1], f[2], f[3]}
  end
  status = 'TAKEN_OVER'
  redis.call('DEL', key)
elseif f[1] or redis.call('EXISTS', key) == 1 then
  return redis.error_reply('ERR idempotent: the key holds a record this store did not write')
end
redis.call('HSET', key, 'state', 'IN_PROGRESS', 'fingerprint', ARGV[1], 'owner', ARGV[2], 'lease_ms', ARGV[3],
  'grace_ms', ARGV[5], 'claim_id', ARGV[6])
redis.call('PEXPIRE', key, ARGV[4])
return {status}
