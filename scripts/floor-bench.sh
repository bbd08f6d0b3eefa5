#!/usr/bin/env bash
# Runs the load generator's floor benchmarks in one go, to repeat on a
# machine with more cores what BENCHMARKS.md measured on a 2-vCPU VM
# ("The generator at the machine's floor", "Load generator timing
# precision"): the 5,000-stream timing precision with the canned server in
# a process of its own, the paced and bulk closed loops on the event loop,
# the start-up burst, and the floors of a read and of a burst of writes.
# About five minutes on 16 cores; every benchmark has a time limit, so one
# that hangs costs its limit, not the rest.
#
#   bash scripts/floor-bench.sh OUT             # build and run (needs Go)
#   bash scripts/floor-bench.sh build BIN       # only build the test binaries
#   bash scripts/floor-bench.sh run BIN OUT     # only run them (no Go needed)
#
# OUT gets machine.txt (cores, CPU, kernel, load) and one file per
# benchmark in the format benchstat reads. COUNT (default 3) sets the runs
# of each single-run benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."

build() {
  mkdir -p "$1"
  go test -c -o "$1/load.test" ./load
  go test -c -o "$1/transport.test" ./transport
}

# failed counts the benchmarks that did not finish well.
failed=0

# bench LIMIT OUTFILE BINARY PATTERN BENCHTIME COUNT runs one benchmark
# pattern, its output kept whatever happens; a run past LIMIT seconds is
# stopped and noted, and any failure counted.
bench() {
  local limit=$1 out=$2 bin=$3 pattern=$4 benchtime=$5 count=$6 rc=0
  echo "== $(basename "$bin") $pattern (-benchtime $benchtime, -count $count, at most ${limit}s)"
  timeout --kill-after=10 "$limit" "$bin" -test.run '^$' -test.bench "$pattern" \
    -test.benchtime "$benchtime" -test.count "$count" >"$out" 2>&1 || rc=$?
  grep '^Benchmark' "$out" || true
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    case $rc in
    124 | 137) echo "   exit $rc: stopped at the ${limit}s limit" | tee -a "$out" ;;
    *) echo "   exit $rc; its output is in $out" | tee -a "$out" ;;
    esac
  fi
}

run() {
  local bin=$1 out=$2 count=${COUNT:-3} t
  for t in load.test transport.test; do
    if [ ! -x "$bin/$t" ]; then
      echo "floor-bench: $bin/$t: no such test binary (build them with: bash scripts/floor-bench.sh build $bin)" >&2
      exit 1
    fi
  done
  mkdir -p "$out"
  # 5,000 streams hold 5,000 sockets in each of the two processes.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  {
    echo "date: $(date -u +%FT%TZ)"
    echo "cores: $(nproc)"
    grep -m1 'model name' /proc/cpuinfo || true
    echo "kernel: $(uname -sr)"
    echo "load average: $(cat /proc/loadavg)"
    echo "open files: $(ulimit -n)"
  } | tee "$out/machine.txt"
  bench 240 "$out/precision.txt" "$bin/load.test" 'TimingPrecision/server-process' 1x "$count"
  bench 300 "$out/generator.txt" "$bin/load.test" 'Generator/.*/.*/eventloop' 1x "$count"
  bench 120 "$out/startburst.txt" "$bin/load.test" 'StartBurst' 20x 1
  bench 120 "$out/sendfloor.txt" "$bin/transport.test" 'SendFloor' 20x 1
  bench 180 "$out/readfloor.txt" "$bin/transport.test" 'ReadFloor/^(parked|parked-stamped|uring)$' 1x "$count"
  if [ "$failed" -gt 0 ]; then
    echo "floor-bench: $failed of 5 benchmarks failed; their output is in $out" >&2
    exit 1
  fi
}

case "${1:-}" in
build) build "${2:?build needs a directory for the binaries}" ;;
run) run "${2:?run needs the directory of the binaries}" "${3:?run needs a directory for the results}" ;;
"" | -h | --help)
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  exit 2
  ;;
*)
  bin=$(mktemp -d)
  trap 'rm -rf "$bin"' EXIT
  build "$bin"
  run "$bin" "$1"
  ;;
esac
