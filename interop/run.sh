#!/usr/bin/env bash
# Runs taskcheck against fixture servers written with real MCP SDKs, over stdio and Streamable
# HTTP, and compares the verdicts with the committed reports under reports/<sdk>-<transport>/:
# a changed verdict fails, with the lines that changed (committed -> now).
#   interop/run.sh             compare (what CI runs)
#   interop/run.sh --update    rewrite the committed reports instead
# TASKCHECK (default target/debug/taskcheck) is the binary used. SDK installs and the Rust
# fixture's build are cached outside the checkout, keyed by their lock files, under
# TASKCHECK_INTEROP_CACHE (default ~/.cache/taskcheck-interop), so a fresh clone (CI's) reuses
# them; delete that folder to reinstall. This run's reports go to interop/.cache/ (ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
taskcheck=${TASKCHECK:-target/debug/taskcheck}
update=0
[[ ${1:-} == --update ]] && update=1
installs=${TASKCHECK_INTEROP_CACHE:-$HOME/.cache/taskcheck-interop}
cache=interop/.cache
mkdir -p "$cache" "$installs"
rm -f "$cache/failed"

# key FILE: a short hash of a lock file, naming the install made from it
key() {
  sha256sum "$1" | cut -c1-12
}

# compare NAME TRANSPORT FILE: the committed FILE of a run against this run's, or (--update)
# the committed one rewritten; flaky.txt beside the report lists verdicts the SDK's own timing
# decides, each explained in reports/README.md
compare() {
  local committed=reports/$1-$2 now=$cache/$1-$2 file=$3
  if ((update)); then
    mkdir -p "$(dirname "$committed/$file")"
    cp "$now/$file" "$committed/$file"
    return
  fi
  local ignore=()
  if [[ -f $committed/flaky.txt ]]; then
    while read -r key _; do
      [[ -n $key && $key != \#* ]] && ignore+=(--ignore "$key")
    done <"$committed/flaky.txt"
  fi
  if [[ ! -f $committed/$file ]] || ! "$taskcheck" diff "$committed/$file" "$now/$file" "${ignore[@]}"; then
    echo "FAIL: verdicts of $1 over $2 ($file) changed (committed -> now); if intended, run interop/run.sh --update"
    touch "$cache/failed"
  fi
}

# check NAME TRANSPORT COMMAND ARGS...: one run (`run` for a server, `client` for a client),
# its reports, and the comparison; PROFILE (default 2025-11-25) is the design of Tasks judged,
# SCALE (default 3) its --timeout-scale
check() {
  local name=$1 transport=$2
  shift 2
  local now=$cache/$name-$transport
  rm -rf "$now" && mkdir -p "$now"
  local start=$SECONDS
  # stretched timeouts: an SDK server starting on a busy machine must not change a verdict;
  # each SDK release implements one design, named, so no run spends a start on detection;
  # the configurations run side by side on two cores, so each keeps to two sessions at a time
  # (eight Python servers starting at once per run starve the other runs' servers)
  "$taskcheck" "$@" --profile "${PROFILE:-2025-11-25}" --timeout-scale "${SCALE:-3}" --jobs 2 --report-json "$now/report.json" --report-md "$now/report.md" \
    --report-html "$now/report.html" >"$now/terminal.txt" 2>&1 || true
  echo "$name over $transport: $(tail -n 1 "$now/terminal.txt") [$((SECONDS - start)) s]"
  publish "$name" "$transport"
}

# publish NAME TRANSPORT: a run's reports committed (--update) or compared
publish() {
  if ((update)); then
    mkdir -p "reports/$1-$2"
    cp "$cache/$1-$2"/report.{html,md} "reports/$1-$2/"
  fi
  compare "$1" "$2" report.json
}

# first_line FILE: the first line a background command writes to FILE (its URL), waiting up
# to 60 s for it
first_line() {
  local i
  for ((i = 0; i < 600; i++)); do
    if [[ -s $1 ]] && head -n 1 "$1" | grep -q .; then
      head -n 1 "$1"
      return
    fi
    sleep 0.1
  done
  return 1
}

# pair NAME CLIENT SERVER POLL CANCEL INPUT [SUFFIX]: the SDK's own client (its requestor driver) and
# its own server talking through `taskcheck watch`, both sides judged, asked in turn (each a
# TASKCHECK_REQUEST) to follow a task to its end, to cancel one, and to answer one's
# elicitation. Over stdio each conversation is watched by a wrapper of its own, recording it
# (`--name`, `--trace`), and the three recordings are judged in one report by `check --judge
# both`, the judging watch does; over HTTP one proxy watches the three and writes the report.
# SUFFIX is added to the URL the server prints, where its client needs it (the Python fixture
# mounts its endpoint at /mcp/, and the SDK's client follows no redirect).
pair() {
  local name=$1 client=$2 server=$3 profile=${PROFILE:-2025-11-25}
  local asks=(poll "$4" cancel "$5" input "$6") i
  local now=$cache/$name-stdio start=$SECONDS
  rm -rf "$now" && mkdir -p "$now"
  for ((i = 0; i < ${#asks[@]}; i += 2)); do
    TASKCHECK_REQUEST=${asks[i + 1]} timeout 120 $client "$taskcheck" watch --profile "$profile" -q \
      --name "${asks[i]}" --trace "$now/${asks[i]}.jsonl" -- $server >>"$now/conversations.txt" 2>&1 || true
  done
  cat "$now"/{poll,cancel,input}.jsonl >"$now/trace.jsonl" 2>/dev/null || true
  "$taskcheck" check --judge both "$now/trace.jsonl" --report-json "$now/report.json" --report-md "$now/report.md" \
    --report-html "$now/report.html" >"$now/terminal.txt" 2>&1 || true
  echo "$name over stdio: $(tail -n 1 "$now/terminal.txt") [$((SECONDS - start)) s]"
  publish "$name" stdio
  now=$cache/$name-http start=$SECONDS
  rm -rf "$now" && mkdir -p "$now"
  $server --http >"$now/server-url.txt" 2>"$now/server.txt" &
  local upstream=$! url proxy proxied
  url=$(first_line "$now/server-url.txt")${7:-} || url=http://127.0.0.1:9/unstarted
  # it stops once the three sessions ended (their DELETE), or 15 s after the last request (a
  # client that leaves without a DELETE, stateless traffic): longer than a client takes to
  # start on a busy machine, so the next one finds it still there
  "$taskcheck" watch --listen 127.0.0.1:0 --upstream "$url" --profile "$profile" --sessions 3 --idle-exit 15 \
    --report-json "$now/report.json" --report-md "$now/report.md" --report-html "$now/report.html" \
    >"$now/proxy-url.txt" 2>"$now/terminal.txt" &
  proxy=$!
  proxied=$(first_line "$now/proxy-url.txt") || proxied=http://127.0.0.1:9/unstarted
  for ((i = 0; i < ${#asks[@]}; i += 2)); do
    TASKCHECK_REQUEST=${asks[i + 1]} timeout 120 $client "$proxied" >>"$now/conversations.txt" 2>&1 || true
  done
  wait "$proxy" || true
  kill "$upstream" 2>/dev/null || true
  wait "$upstream" 2>/dev/null || true
  echo "$name over http: $(tail -n 1 "$now/terminal.txt") [$((SECONDS - start)) s]"
  publish "$name" http
}

# the asks of a pair under 2025-11-25 (tool calls made as tasks) and under the extension
POLL_2025='{"tool":"required_sleep","arguments":{"ms":1500},"task":true}'
CANCEL_2025='{"tool":"optional_sleep","arguments":{"ms":5000},"task":true,"cancel_after_ms":400}'
INPUT_2025='{"tool":"elicit_input","task":true}'
POLL_EXT='{"tool":"optional_sleep","arguments":{"ms":1500}}'
CANCEL_EXT='{"tool":"optional_sleep","arguments":{"ms":5000},"cancel_after_ms":400}'
INPUT_EXT='{"tool":"elicit_input"}'

# fuzz NAME TRANSPORT TARGET ARGS...: the same server under `fuzz-wire` and `explore`, each
# with a fixed seed and a bounded count (after `check` of the same run). fuzz-wire's verdicts
# go to fuzz-wire.json; the minimal sequence explore shrinks a failure to is committed under
# explore/ and replayed by `run` into explore/report.json, so CI proves it still fails.
fuzz() {
  local name=$1 transport=$2
  shift 2
  local committed=reports/$name-$transport now=$cache/$name-$transport
  local judge=(--profile "${PROFILE:-2025-11-25}" --timeout-scale 3)
  local start=$SECONDS
  "$taskcheck" fuzz-wire "$@" "${judge[@]}" --seed 1 --cases 40 --report-json "$now/fuzz-wire.json" \
    --report-md "$now/fuzz-wire.md" >"$now/fuzz-wire.txt" 2>&1 || true
  echo "$name over $transport, fuzz-wire: $(grep -c '^\(FAIL\|WARN\) ' "$now/fuzz-wire.txt") rule(s) broken [$((SECONDS - start)) s]"
  compare "$name" "$transport" fuzz-wire.json
  ((update)) && cp "$now/fuzz-wire.md" "$committed/"
  start=$SECONDS
  if ((update)); then
    rm -rf "$committed/explore"
    "$taskcheck" explore "$@" "${judge[@]}" --seed 1 --cases 5 --max-ops 12 --shrink-runs 40 \
      --save-failures "$committed/explore" >"$now/explore.txt" 2>&1 || true
    cp "$now/explore.txt" "$committed/"
  fi
  echo "$name over $transport, explore: $(grep '^FAIL seed' "$now/explore.txt" 2>/dev/null || echo "replayed") [$((SECONDS - start)) s]"
  if [[ -d $committed/explore ]]; then
    mkdir -p "$now/explore"
    "$taskcheck" run "$@" "${judge[@]}" --scenarios "$committed/explore" --tag explore \
      --report-json "$now/explore/report.json" >"$now/explore/terminal.txt" 2>&1 || true
    compare "$name" "$transport" explore/report.json
  fi
}

# server NAME TRANSPORT TARGET ARGS...: a server's fixed scenarios, then its fuzzing
server() {
  check "$1" "$2" run "${@:3}"
  fuzz "$@"
}

# venv DIR REQUIREMENTS: a virtualenv with exactly these packages, made once
venv() {
  if [[ ! -x $1/bin/python ]]; then
    python3 -m venv "$1.partial"
    "$1.partial/bin/pip" install --quiet --disable-pip-version-check -r "$2"
    rm -rf "$1" && mv "$1.partial" "$1"
  fi
}

python_install() {
  venv "$installs/venv-python-mcp-1.30.0-$(key interop/python/requirements.txt)" interop/python/requirements.txt
  venv "$installs/venv-python-mcp-2.3.0-$(key interop/python-v2/requirements.txt)" interop/python-v2/requirements.txt
}

python_bin() {
  echo "$installs/venv-python-mcp-1.30.0-$(key interop/python/requirements.txt)/bin/python"
}

python_server() {
  echo "$(python_bin) interop/python/server.py"
}

# stdio: the fixture, and a server written without tasks
python_sdk() {
  server python-mcp-1.30.0 stdio --stdio "$(python_server)"
  check python-mcp-1.30.0+no-tasks stdio run --stdio "$(python_server) --no-tasks"
  # the SDK's ClientSession as a requestor: taskcheck's reference receiver is its server
  check python-mcp-1.30.0-requestor stdio requestor --command "$(python_bin) interop/python/requestor.py"
  check python-mcp-1.30.0-requestor http requestor --command "$(python_bin) interop/python/requestor.py" --http
  # the SDK's client and server together, through taskcheck watch
  pair python-mcp-1.30.0-pair "$(python_bin) interop/python/requestor.py" "$(python_server)" "$POLL_2025" "$CANCEL_2025" "$INPUT_2025" /
  python_init
}

# `taskcheck init` against the same fixture under other tool names
# (harness/tests/fixtures/renamed_tools.py): it must map every fixture role, and `taskcheck run`
# with the taskcheck.yaml it wrote must give the fixture's committed verdicts
python_init() {
  local now=$cache/python-mcp-1.30.0+renamed-stdio start=$SECONDS
  rm -rf "$now" && mkdir -p "$now"
  "$taskcheck" init --stdio "python3 harness/tests/fixtures/renamed_tools.py $(python_server)" \
    --profile 2025-11-25 --yes --dir "$now" >"$now/init.txt" 2>&1 || true
  "$taskcheck" run --config "$now/taskcheck.yaml" --timeout-scale 3 --jobs 2 >"$now/terminal.txt" 2>&1 || true
  echo "python-mcp-1.30.0 with renamed tools, init then run: $(tail -n 1 "$now/terminal.txt") [$((SECONDS - start)) s]"
  if [[ $(grep -c 'played by "' "$now/init.txt") != 8 ]]; then
    echo "FAIL: taskcheck init left fixture roles of the renamed Python fixture unmapped (see $now/init.txt)"
    touch "$cache/failed"
  elif ! "$taskcheck" diff reports/python-mcp-1.30.0-stdio/report.json "$now/taskcheck-report.json"; then
    echo "FAIL: the Python fixture's verdicts under renamed tools and taskcheck init's mapping differ from its own"
    touch "$cache/failed"
  fi
}

# HTTP: the fixture, and the SDK's other HTTP modes (the slowest group: run apart)
python_http_sdk() {
  server python-mcp-1.30.0 http --url-from "$(python_server) --http"
  check python-mcp-1.30.0+json-response http run --url-from "$(python_server) --http --json-response"
  check python-mcp-1.30.0+stateless http run --url-from "$(python_server) --http --stateless"
}

# the newest Python major no longer has 2025-11-25 tasks: the report must say so
python_v2_sdk() {
  local py2=$installs/venv-python-mcp-2.3.0-$(key interop/python-v2/requirements.txt)
  check python-mcp-2.3.0 stdio run --stdio "$py2/bin/python interop/python-v2/server.py"
  if ! grep -q "declares no \`tasks\` capability" "$cache/python-mcp-2.3.0-stdio/report.md"; then
    echo "FAIL: the report of mcp 2.3.0 does not say that it declares no tasks capability"
    touch "$cache/failed"
  fi
}

# npm_install DIR: DIR's locked packages installed once into the cache, linked into DIR
npm_install() {
  local modules=$installs/node-$(key "$1/package-lock.json")
  if [[ ! -d $modules/node_modules ]]; then
    rm -rf "$modules" && mkdir -p "$modules"
    cp "$1/package.json" "$1/package-lock.json" "$modules/"
    (cd "$modules" && npm ci --silent --no-audit --no-fund)
  fi
  ln -sfn "$modules/node_modules" "$1/node_modules"
}

typescript_sdk() {
  server typescript-sdk-1.32.2 stdio --stdio "node interop/typescript/server.mjs"
  check typescript-sdk-1.32.2+calls-only stdio run --stdio "node interop/typescript/server.mjs --calls-only"
  # the work written exactly as the SDK's published examples write it (the delay task's
  # unguarded storeTaskResult, collect-user-info-task's elicitation): the examples' findings
  check typescript-sdk-1.32.2+example-shapes stdio run --stdio "node interop/typescript/server.mjs --example-shapes"
  check typescript-sdk-1.32.2+no-tasks stdio run --stdio "node interop/typescript/server.mjs --no-tasks"
  # the SDK's Client as a task receiver: taskcheck plays its server
  check typescript-sdk-1.32.2-client stdio client --stdio --command "node interop/typescript/client.mjs"
  check typescript-sdk-1.32.2-client http client --command "node interop/typescript/client.mjs"
  check typescript-sdk-1.32.2-client+example-shapes stdio client --stdio --command "node interop/typescript/client.mjs --example-shapes"
  # the SDK's Client as a requestor (callToolStream): taskcheck's reference receiver is its server
  check typescript-sdk-1.32.2-requestor stdio requestor --command "node interop/typescript/requestor.mjs"
  check typescript-sdk-1.32.2-requestor http requestor --command "node interop/typescript/requestor.mjs" --http
  # the SDK's client and server together, through taskcheck watch
  pair typescript-sdk-1.32.2-pair "node interop/typescript/requestor.mjs" "node interop/typescript/server.mjs" "$POLL_2025" "$CANCEL_2025" "$INPUT_2025"
}

typescript_http_sdk() {
  server typescript-sdk-1.32.2 http --url-from "node interop/typescript/server.mjs --http"
  check typescript-sdk-1.32.2+json-response http run --url-from "node interop/typescript/server.mjs --http --json-response"
}

# a server nobody here wrote, run unmodified: the SDK's published example task server
# (interop/typescript/example-server.sh serves it), configured by `taskcheck init --yes` alone.
# Its init output is committed twice: as init gives it (confirm_delete is refused: its name
# says it deletes), and with --allow-tool confirm_delete, which the run uses (its source, read
# here, deletes nothing: it answers "Deleted '<file>'" as text). The verdicts must be the
# committed ones, as for every fixture.
typescript_example() {
  local name=typescript-sdk-1.32.2+simpleTaskInteractive now=$cache/typescript-sdk-1.32.2+simpleTaskInteractive-init
  local committed=reports/$name-http server=interop/typescript/example-server.sh
  rm -rf "$now" && mkdir -p "$now/asked" "$now/allowed"
  "$taskcheck" init --url-from "$server" --profile 2025-11-25 --yes --dir "$now/asked" >"$now/init.txt" 2>&1 || true
  "$taskcheck" init --url-from "$server" --profile 2025-11-25 --yes --allow-tool confirm_delete \
    --dir "$now/allowed" >"$now/init-allow-confirm-delete.txt" 2>&1 || true
  if ((update)); then
    mkdir -p "$committed"
    cp "$now/init.txt" "$now/init-allow-confirm-delete.txt" "$now/allowed/taskcheck.yaml" "$committed/"
  elif ! grep -q 'elicit_input     unplayed: near misses: "confirm_delete"' "$now/init.txt" ||
    ! grep -q 'elicit_input     played by "confirm_delete"' "$now/init-allow-confirm-delete.txt"; then
    echo "FAIL: taskcheck init proposed otherwise for the TypeScript example server (see $now)"
    touch "$cache/failed"
  fi
  check "$name" http run --config "$now/allowed/taskcheck.yaml"
}

# the newest TypeScript major (@modelcontextprotocol/server 2.x) has no 2025-11-25 tasks either
typescript_v2_sdk() {
  check typescript-server-2.4.0 stdio run --stdio "node interop/typescript-v2/server.mjs"
}

# the fixture as written, and built without `#[task_handler]` (cargo feature no-task-handler)
rust_build() {
  local target=$installs/rust-target
  (cd interop/rust && CARGO_TARGET_DIR=$target cargo build --release --locked --quiet &&
    cp "$target/release/taskcheck-interop-rust" "$target/fixture" &&
    CARGO_TARGET_DIR=$target cargo build --release --locked --quiet --features no-task-handler &&
    cp "$target/release/taskcheck-interop-rust" "$target/fixture-no-task-handler")
}

rust_sdk() {
  local target=$installs/rust-target
  server rust-rmcp-2.2.0 stdio --stdio "$target/fixture"
  server rust-rmcp-2.2.0 http --url-from "$target/fixture --http"
  # the capabilities #[task_handler] and #[tool_handler] declare when get_info is not written
  check rust-rmcp-2.2.0+default-capabilities stdio run --stdio "$target/fixture --default-capabilities"
  check rust-rmcp-2.2.0+no-task-handler stdio run --stdio "$target/fixture-no-task-handler"
}

# opt-in (about five minutes, not among the default groups): the soak scenarios alone, at
# scale 1 (their waits are what they prove: the store's five-minute clean-up)
rust_soak() {
  SCALE=1 check rust-rmcp-2.2.0+soak stdio run --stdio "$installs/rust-target/fixture" --tag soak
}

# rmcp 3.x implements the Tasks extension (2026-07-28), not 2025-11-25 tasks
rust_ext_build() {
  (cd interop/rust-v3 && CARGO_TARGET_DIR=$installs/rust-v3-target cargo build --release --locked --quiet)
}

rust_ext_sdk() {
  local server=$installs/rust-v3-target/release/taskcheck-interop-rust-v3
  PROFILE=ext-tasks server rust-rmcp-3.11.0-ext stdio --stdio "$server"
  PROFILE=ext-tasks server rust-rmcp-3.11.0-ext http --url-from "$server --http"
  # and what it does with 2025-11-25 tasks, which it dropped
  check rust-rmcp-3.11.0 stdio run --stdio "$server"
  # the SDK's client as a requestor (its task client example's loop): taskcheck's reference
  # receiver is its server
  local requestor=$installs/rust-v3-target/release/requestor
  PROFILE=ext-tasks check rust-rmcp-3.11.0-requestor stdio requestor --command "$requestor"
  PROFILE=ext-tasks check rust-rmcp-3.11.0-requestor http requestor --command "$requestor" --http
  # the SDK's client and server together, through taskcheck watch
  PROFILE=ext-tasks pair rust-rmcp-3.11.0-pair "$requestor" "$server" "$POLL_EXT" "$CANCEL_EXT" "$INPUT_EXT"
}

# installs and builds first (they use the cores), then the runs, which mostly wait on the
# servers, in parallel groups (every HTTP server takes a free port); each group's output
# is printed when it ends
python_install
npm_install interop/typescript
npm_install interop/typescript-v2
rust_build
rust_ext_build
# TASKCHECK_INTEROP_GROUPS="typescript_sdk rust_sdk" runs only those groups (the matrix check
# still reads every committed report)
read -ra groups <<<"${TASKCHECK_INTEROP_GROUPS:-python_http_sdk typescript_http_sdk python_sdk typescript_sdk typescript_example rust_sdk rust_ext_sdk python_v2_sdk typescript_v2_sdk}"
for group in "${groups[@]}"; do
  "$group" >"$cache/$group.log" 2>&1 &
done
wait
for group in "${groups[@]}"; do
  cat "$cache/$group.log"
done
if ((update)); then
  # the committed reports name paths as a reader of this repository has them: the checkout's
  # relative to it, the SDK installs under $TASKCHECK_INTEROP_CACHE (in commands and in traces)
  grep -rlF -e "$installs" -e "$PWD/" reports | xargs -r sed -i -e "s|$installs|\$TASKCHECK_INTEROP_CACHE|g" -e "s|$PWD/||g"
  python3 interop/matrix.py --update
elif ! python3 interop/matrix.py; then
  echo "FAIL: interop/matrix.py: the matrix in reports/README.md is not the committed reports'"
  touch "$cache/failed"
fi
# the failures again, last, where a log that shows only its end still has them
if [[ -f $cache/failed ]]; then
  echo "interop failed:"
  for group in "${groups[@]}"; do
    grep '^FAIL' "$cache/$group.log" || true
  done
  exit 1
fi
