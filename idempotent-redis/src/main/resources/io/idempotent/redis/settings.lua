-- The settings every instance under one prefix must share, kept at KEYS[1] (the prefix followed by a byte
-- 0xFF, which no store key's UTF-8 contains). ARGV[1] is a field name, ARGV[2] this instance's value: the
-- first instance writes it, every later one reads it back and compares. The hash never expires.
-- Returns the value Redis holds.
local key = KEYS[1]
local f = redis.call('HMGET', key, ARGV[1])
if f[1] then
  return f[1]
end
if redis.call('EXISTS', key) == 1 then
  return redis.error_reply('ERR idempotent: the settings key holds something this store did not write')
end
redis.call('HSET', key, ARGV[1], ARGV[2])
return ARGV[2]
