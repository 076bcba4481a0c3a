#!/usr/bin/env bash
# Prints the numbers of docs/performance.md on this machine: the full suite over stdio (wall,
# taskcheck's own CPU, peak RSS), a 10,000-task load, and the offline-checking bench.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
B=target/release/taskcheck
report=$(mktemp)
echo "== full suite against the reference over stdio (3 runs)"
for _ in 1 2 3; do
  /usr/bin/time -f "peak RSS %M KiB" "$B" run --stdio "$B reference" --report-json "$report" >/dev/null 2>"$report.time" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"wall {d['durationMs']} ms, taskcheck CPU {d['harnessCpuMs']} ms\")" "$report"
  tail -1 "$report.time"
done
echo "== load: 10,000 tasks at concurrency 64"
/usr/bin/time -f "peak RSS %M KiB" "$B" load --stdio "$B reference" --tasks 10000 --concurrency 64
echo "== offline checking (criterion)"
cargo bench --quiet -p mcp-taskcheck --bench offline 2>&1 | grep -E "^offline|thrpt:  \[" | grep -v "%"
rm -f "$report" "$report.time"
