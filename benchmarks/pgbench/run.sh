#!/usr/bin/env bash
# The SQL of a first call, without Java: pgbench (one client, prepared statements, auto-commit) runs the
# store's statements before the purge column (old.sql) and after it (ours.sql), the same with a plain
# INSERT … ON CONFLICT DO NOTHING claim (oursplain.sql), the minimal two-commit floor (floor.sql) and
# Camel's add (camel.sql), 10 s each, three rounds in turn, and prints latency and WAL bytes per first call.
# Run under the build lock: bash benchmarks/pgbench/run.sh [database]   (default idempotent_test)
set -euo pipefail
cd "$(dirname "$0")"
db="${1:-idempotent_test}"
psql=(psql -h 127.0.0.1 -U postgres -d "$db" -q)
"${psql[@]}" -f setup.sql 2>/dev/null
echo "load: $(cat /proc/loadavg)"
lsn() { "${psql[@]}" -tAc "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"; }
for round in 1 2 3; do
  for s in old ours oursplain floor camel; do
    before=$(lsn)
    out=$(pgbench -h 127.0.0.1 -U postgres -n -M prepared -c 1 -T 10 -f "$s.sql" "$db" 2>&1)
    after=$(lsn)
    tx=$(echo "$out" | sed -n 's/number of transactions actually processed: \([0-9]*\).*/\1/p')
    lat=$(echo "$out" | sed -n 's/latency average = \(.*\)/\1/p')
    echo "round $round $s: latency $lat, tx $tx, WAL/tx $(( (after - before) / (tx > 0 ? tx : 1) ))"
  done
done
echo "load: $(cat /proc/loadavg)"
"${psql[@]}" -c "DROP TABLE pgb_ours, pgb_floor, pgb_camel, pgb_old"
