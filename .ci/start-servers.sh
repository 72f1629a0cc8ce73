#!/usr/bin/env bash
# Starts the local PostgreSQL (5432), MariaDB (3306), Redis (6379), RabbitMQ (5672) and NATS with JetStream
# (4222) that the tests use, each only if
# nothing answers on its port yet. Safe to run any number of times. The tests create their own user and
# database through the servers' stock administrator accounts; nothing is provisioned here.
set -euo pipefail

WAIT_SECONDS=${WAIT_SECONDS:-60}

log() { echo "[start-servers] $*"; }

wait_for() { # name, command...
  local name=$1; shift
  for ((i = 0; i < WAIT_SECONDS * 5; i++)); do
    if "$@" >/dev/null 2>&1; then
      log "$name answers"
      return 0
    fi
    sleep 0.2
  done
  log "$name does not answer after ${WAIT_SECONDS}s"
  return 1
}

postgres_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
mariadb_up() { mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 ping; } # answers even when the login is refused
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping; }
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1"; }
rabbitmq_up() { timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5672; printf "AMQP\x00\x00\x09\x01" >&3; head -c 1 <&3 | od -An -tu1 | grep -qw 1'; }
nats_up() { timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/4222; head -n 1 <&3 | grep -q "\"jetstream\":true"'; }

status=0

if ! postgres_up >/dev/null 2>&1; then
  log "PostgreSQL does not answer on 127.0.0.1:5432; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
  wait_for PostgreSQL postgres_up || status=1
fi

if ! mariadb_up >/dev/null 2>&1; then
  log "MariaDB does not answer on 127.0.0.1:3306; starting it"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
  wait_for MariaDB mariadb_up || status=1
fi

if ! redis_up >/dev/null 2>&1; then
  log "Redis does not answer on 127.0.0.1:6379; starting it (no persistence)"
  if ! command -v redis-server >/dev/null 2>&1; then
    log "redis-server is not installed; installing it"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis redis_up || status=1
fi

if ! rabbitmq_up >/dev/null 2>&1; then
  log "RabbitMQ does not answer on 127.0.0.1:5672; starting it"
  rabbitmq-server -detached || true
  wait_for RabbitMQ rabbitmq_up || status=1
fi

if ! nats_up >/dev/null 2>&1; then
  if port_open 4222 >/dev/null 2>&1; then
    log "NATS on 127.0.0.1:4222 runs without JetStream; its tests fail under idempotent.requireServers"
    status=1
  else
    log "NATS does not answer on 127.0.0.1:4222; starting it with JetStream"
    mkdir -p /var/lib/nats-server
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
      -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log || true
    wait_for NATS nats_up || status=1
  fi
fi

exit $status
