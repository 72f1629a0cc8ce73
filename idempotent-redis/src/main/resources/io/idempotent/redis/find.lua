-- The live record at KEYS[1], or nil: an IN_PROGRESS hash in its grace period has expired (see claim.lua).
-- Returns {state, fingerprint, owner, kind, json, failure_type, failure_message, remaining ms}.
local key = KEYS[1]
local f = redis.call('HMGET', key, 'state', 'fingerprint', 'owner', 'lease_ms',
  'kind', 'json', 'failure_type', 'failure_message', 'grace_ms')
if f[1] == 'COMPLETED' then
  return {f[1], f[2], f[3], f[5], f[6], f[7], f[8], redis.call('PTTL', key)}
elseif f[1] == 'IN_PROGRESS' then
  local remaining = redis.call('PTTL', key)
  if remaining < 0 or remaining > tonumber(f[9] or f[4]) then
    return {f[1], f[2], f[3]}
  end
elseif f[1] or redis.call('EXISTS', key) == 1 then
  return redis.error_reply('ERR idempotent: the key holds a record this store did not write')
end
return false
