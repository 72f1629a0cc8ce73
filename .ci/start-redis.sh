#!/usr/bin/env bash
# Starts the Redis server the idempotent-redis tests use (127.0.0.1:6379, no persistence), unless one
# already answers there. Safe to run any number of times.
set -euo pipefail

if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Redis already answers on 127.0.0.1:6379"
  exit 0
fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server is not installed; installing it" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

mkdir -p /var/lib/redis /var/log/redis
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
  --dir /var/lib/redis --logfile /var/log/redis/ci.log

for _ in $(seq 1 50); do
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "Redis started on 127.0.0.1:6379"
    exit 0
  fi
  sleep 0.2
done
echo "Redis did not answer on 127.0.0.1:6379 within 10 s; see /var/log/redis/ci.log" >&2
exit 1
