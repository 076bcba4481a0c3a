#!/usr/bin/env bash
# Prints the numbers of docs/performance.md on this machine: the full suite over stdio (wall,
# taskcheck's own CPU, peak RSS), offline checking of a 200,000-message trace beside a bare
# parse of the same file (the ratio is the figure), a 10,000-task load, the offline bench, and
# what `taskcheck watch` adds to a stdio conversation (latency, throughput, memory) and to HTTP
# traffic through its proxy (latency, throughput, its CPU per message).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin taskcheck --example bare_parse
B=target/release/taskcheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the whole command's wall time, in seconds, and its peak RSS
timed() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }

echo "== full suite against the reference over stdio (3 runs)"
for _ in 1 2 3; do
  /usr/bin/time -f "peak RSS %M KiB" "$B" run --stdio "$B reference" --report-json "$work/r.json" \
    --trace "$work/run.jsonl" >/dev/null 2>"$work/time" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"wall {d['durationMs']} ms, taskcheck CPU {d['harnessCpuMs']} ms\")" "$work/r.json"
  tail -1 "$work/time"
done

echo "== offline checking: a real run's trace repeated to 200,000 messages, each copy its own sessions"
# repeat TRACE OUT N: the run's trace repeated to N messages, each copy its own sessions
repeat() {
  python3 - "$@" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as out:
    n = copy = 0
    while n < int(sys.argv[3]):
        for line in lines:
            e = json.loads(line)
            e["scenario"] = f"{e['scenario']}-{copy}"
            out.write(json.dumps(e, separators=(",", ":")) + "\n")
            n += 1
        copy += 1
print(f"{n} messages")
PY
}
repeat "$work/run.jsonl" "$work/big.jsonl" 200000
# five runs of each, interleaved, so that a machine whose speed drifts weighs on both alike
for _ in 1 2 3 4 5; do
  echo "parse $(timed target/release/examples/bare_parse "$work/big.jsonl")"
  echo "check $(timed "$B" check "$work/big.jsonl")"
done >"$work/offline"
python3 - "$work/offline" <<'PY'
import statistics, sys
runs = {"parse": [], "check": []}
for line in open(sys.argv[1]):
    what, s, kib = line.split()
    runs[what].append((float(s), int(kib)))
parse = statistics.median(s for s, _ in runs["parse"])
check = statistics.median(s for s, _ in runs["check"])
kib = max(k for _, k in runs["check"])
n = 200_000
print(f"bare parse into serde_json::Value: median {parse:.2f} s ({n / parse:,.0f} messages/s)")
print(f"taskcheck check: median {check:.2f} s ({n / check:,.0f} messages/s), peak RSS {kib / 1024:.0f} MB")
print(f"ratio check / bare parse (medians of 5): {check / parse:.2f}")
PY

echo "== offline checking in constant memory: 5x the trace, with every report written"
repeat "$work/run.jsonl" "$work/huge.jsonl" 1000000
ls -l "$work/huge.jsonl" | awk '{printf "%.0f MB of trace\n", $5 / 1048576}'
for reports in "" "--report-json $work/c.json --report-junit $work/c.xml --report-md $work/c.md --checks-json $work/k.json"; do
  # shellcheck disable=SC2086
  read -r s kib < <(timed "$B" check "$work/huge.jsonl" $reports)
  echo "check ${reports:+with every report but HTML }: $s s, peak RSS $((kib / 1024)) MB"
done
rm -f "$work/huge.jsonl"

echo "== watch over stdio: an echo server (cat), directly and through watch"
for via in "" "$B watch -q --"; do
  echo "-- ${via:-direct}"
  # shellcheck disable=SC2086
  python3 scripts/relay_bench.py latency 2000 $via cat 2>/dev/null
  # shellcheck disable=SC2086
  /usr/bin/time -f "peak RSS %M KiB (whole pipeline's largest process)" \
    python3 scripts/relay_bench.py throughput 1000000 $via cat 2>&1 | grep -v '^taskcheck\|^ *\(UNTESTABLE\|rules\|checks\|exit\|no tool\)' || true
done

echo "== watch as an HTTP proxy: an echo endpoint, directly and through watch --listen"
for via in "" "$B"; do
  echo "-- ${via:-direct}"
  # shellcheck disable=SC2086
  python3 scripts/proxy_bench.py latency 2000 $via
  # shellcheck disable=SC2086
  python3 scripts/proxy_bench.py throughput 20000 $via
done

echo "== load: 10,000 tasks at concurrency 64"
/usr/bin/time -f "peak RSS %M KiB" "$B" load --stdio "$B reference" --tasks 10000 --concurrency 64
echo "== offline checking (criterion)"
cargo bench --quiet -p mcp-taskcheck --bench offline 2>&1 | grep -E "^offline|thrpt:  \[" | grep -v "%"
