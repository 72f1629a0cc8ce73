#!/usr/bin/env bash
# Builds the benchmarks and runs them with a profile, then writes the tables:
#   bash benchmarks/run.sh quick   # a few minutes: short iterations, 200,000 expired rows for the purge
#   bash benchmarks/run.sh short   # between the two: 2 warm-up and 6 measured iterations of 1 s, one fork
#   bash benchmarks/run.sh full    # the committed results: the iterations set in the benchmarks
# Output: benchmarks/results/<profile>.json (JMH), <profile>-heap.json, <profile>-environment.txt and
# <profile>.md (the tables, made from the JSON by ResultsTable), and redraws results/chart.png (ResultsChart,
# from the files named in BENCH_CHART, default "full"). Extra arguments go to JMH, e.g. a
# benchmark name pattern: bash benchmarks/run.sh quick InMemoryBenchmark
# BENCH_RESULTS=<name> writes benchmarks/results/<name>.* instead of <profile>.* (a run of some benchmarks
# only, kept apart from the complete runs): BENCH_RESULTS=http bash benchmarks/run.sh full HttpFilterBenchmark
set -euo pipefail
profile="${1:-quick}"
shift || true
cd "$(dirname "$0")/.."
case "$profile" in
  quick) options=(-f 1 -wi 1 -w 1s -i 2 -r 1s -p expiredRows=200000) ;;
  short) options=(-f 1 -wi 2 -w 1s -i 6 -r 1s -p expiredRows=200000) ;;
  full) options=() ;;
  *) echo "usage: $0 quick|short|full [JMH arguments]" >&2; exit 2 ;;
esac
if [ "${BENCH_NO_BUILD:-}" != "1" ]; then
  mvn -B -q clean package -pl benchmarks -am -DskipTests
fi
jar=benchmarks/target/benchmarks.jar
out=benchmarks/results
name="${BENCH_RESULTS:-$profile}"
mkdir -p "$out"
{
  echo "profile:  $profile"
  echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine:  $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(free -g | awk '/^Mem:/ {print $2}') GiB"
  echo "jdk:      $(java -version 2>&1 | head -1)"
  echo "postgres: $(PGPASSWORD=idempotent psql -h 127.0.0.1 -U idempotent -d idempotent_test -tAc 'SHOW server_version' 2>/dev/null || echo unknown)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/$name-environment.txt"
java -jar "$jar" -prof gc -rf json -rff "$out/$name.json" "${options[@]}" "$@" | tee "$out/$name.log"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/$name-environment.txt"
java -Xms1g -Xmx1g -XX:+UseSerialGC -cp "$jar" io.idempotent.benchmarks.RetainedHeap > "$out/$name-heap.json"
java -cp "$jar" io.idempotent.benchmarks.ResultsTable "$out/$name.json" "$out/$name-heap.json" \
  "$out/$name-environment.txt" > "$out/$name.md"
echo "tables: $out/$name.md"
# The chart, from the result files named in BENCH_CHART (default: the complete run), in that order: a
# result in a later file replaces the same result in an earlier one.
chart_files=()
for f in ${BENCH_CHART:-full}; do
  if [ -f "$out/$f.json" ]; then chart_files+=("$out/$f.json"); fi
done
if [ ${#chart_files[@]} -gt 0 ]; then
  java -Djava.awt.headless=true -cp "$jar" io.idempotent.benchmarks.ResultsChart "$out/chart.png" "${chart_files[@]}"
  echo "chart: $out/chart.png (from ${chart_files[*]})"
fi
