-- Completes KEYS[1] if ARGV[1] holds its IN_PROGRESS claim (fencing), keeping it ARGV[2] milliseconds.
-- ARGV[3] is an id of this completion, new for every one the store sends; ARGV[4..] are the outcome's field/value pairs (kind, json, failure_type, failure_message as present).
-- DEL comes first: after it Redis lets the script finish even when out of memory, so a call that ran
-- can still record its outcome. The completed hash keeps the completion's id, so the same completion sent
-- again (the store resends one whose connection dropped before the answer came) is told from a lost claim.
-- Returns 1, or 0 when the claim was lost and nothing was changed.
local key = KEYS[1]
local f = redis.call('HMGET', key, 'state', 'owner', 'fingerprint', 'completion_id')
if f[1] == 'COMPLETED' and f[4] == ARGV[3] then
  return 1
end
if f[1] ~= 'IN_PROGRESS' or f[2] ~= ARGV[1] then
  return 0
end
redis.call('DEL', key)
redis.call('HSET', key, 'state', 'COMPLETED', 'fingerprint', f[3], 'completion_id', ARGV[3], unpack(ARGV, 4))
redis.call('PEXPIRE', key, ARGV[2])
return 1
