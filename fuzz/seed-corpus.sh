#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the scenario library and from a trace of the reference
# receiver running the whole suite: real scenarios, real messages, real SSE bodies.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin taskcheck
bin=target/debug/taskcheck
corpus=fuzz/corpus
mkdir -p "$corpus"/{decode_message,model_transitions,scenario_parse,sse_frames,ext_monitor}
cp scenarios/2025-11-25/server/*.yaml "$corpus/scenario_parse/"
# the extension's scenarios may share a file name with a 2025-11-25 one
for f in scenarios/ext-tasks/server/*.yaml; do cp "$f" "$corpus/scenario_parse/ext-tasks-$(basename "$f")"; done
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
"$bin" run --stdio "$bin reference" --trace "$trace" >/dev/null
python3 - "$trace" "$corpus" <<'PY'
import json, sys, collections
trace, corpus = sys.argv[1], sys.argv[2]
streams = collections.defaultdict(list)
for n, line in enumerate(open(trace)):
    entry = json.loads(line)
    if entry.get("dir") != "in" or "message" not in entry:
        continue
    text = json.dumps(entry["message"], separators=(",", ":"))
    open(f"{corpus}/decode_message/trace-{n:04}", "w").write(text)
    streams[entry["scenario"]].append(text)
for name, messages in streams.items():
    body = "".join(f"id: {i}\ndata: {m}\n\n" for i, m in enumerate(messages[:8]))
    open(f"{corpus}/sse_frames/{name}", "w").write(": primed\n\n" + body)
PY
echo "seeded $(find "$corpus" -type f | wc -l) inputs under $corpus"
