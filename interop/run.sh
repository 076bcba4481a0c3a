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
failed=0

# key FILE: a short hash of a lock file, naming the install made from it
key() {
  sha256sum "$1" | cut -c1-12
}

# check NAME TRANSPORT COMMAND ARGS...: one run (`run` for a server, `client` for a client),
# its reports, and the comparison; PROFILE (default 2025-11-25) is the design of Tasks judged
check() {
  local name=$1 transport=$2
  shift 2
  local committed=reports/$name-$transport now=$cache/$name-$transport
  mkdir -p "$now"
  local start=$SECONDS
  # stretched timeouts: an SDK server starting on a busy machine must not change a verdict;
  # each SDK release implements one design, named, so no run spends a start on detection
  "$taskcheck" "$@" --profile "${PROFILE:-2025-11-25}" --timeout-scale 3 --report-json "$now/report.json" --report-md "$now/report.md" \
    --report-html "$now/report.html" >"$now/terminal.txt" 2>&1 || true
  echo "$name over $transport: $(tail -n 1 "$now/terminal.txt") [$((SECONDS - start)) s]"
  if ((update)); then
    mkdir -p "$committed"
    cp "$now"/report.{json,md,html} "$committed/"
  else
    # verdicts the SDK's own timing decides, each explained in reports/README.md
    local ignore=()
    if [[ -f $committed/flaky.txt ]]; then
      while read -r key _; do
        [[ -n $key && $key != \#* ]] && ignore+=(--ignore "$key")
      done <"$committed/flaky.txt"
    fi
    if ! "$taskcheck" diff "$committed/report.json" "$now/report.json" "${ignore[@]}"; then
      echo "FAIL: verdicts of $name over $transport changed (committed -> now); if intended, run interop/run.sh --update"
      failed=1
    fi
  fi
}

# venv DIR REQUIREMENTS: a virtualenv with exactly these packages, made once
venv() {
  if [[ ! -x $1/bin/python ]]; then
    python3 -m venv "$1.partial"
    "$1.partial/bin/pip" install --quiet --disable-pip-version-check -r "$2"
    rm -rf "$1" && mv "$1.partial" "$1"
  fi
}

python_sdk() {
  local py=$installs/venv-python-mcp-1.30.0-$(key interop/python/requirements.txt)
  venv "$py" interop/python/requirements.txt
  check python-mcp-1.30.0 stdio run --stdio "$py/bin/python interop/python/server.py"
  check python-mcp-1.30.0 http run --url-from "$py/bin/python interop/python/server.py --http"
  # the newest major no longer has 2025-11-25 tasks: the report must say so
  local py2=$installs/venv-python-mcp-2.3.0-$(key interop/python-v2/requirements.txt)
  venv "$py2" interop/python-v2/requirements.txt
  check python-mcp-2.3.0 stdio run --stdio "$py2/bin/python interop/python-v2/server.py"
  if ! grep -q "declares no \`tasks\` capability" "$cache/python-mcp-2.3.0-stdio/report.md"; then
    echo "FAIL: the report of mcp 2.3.0 does not say that it declares no tasks capability"
    failed=1
  fi
}

typescript_sdk() {
  local modules=$installs/node-$(key interop/typescript/package-lock.json)
  if [[ ! -d $modules/node_modules ]]; then
    rm -rf "$modules" && mkdir -p "$modules"
    cp interop/typescript/package.json interop/typescript/package-lock.json "$modules/"
    (cd "$modules" && npm ci --silent --no-audit --no-fund)
  fi
  ln -sfn "$modules/node_modules" interop/typescript/node_modules
  check typescript-sdk-1.32.2 stdio run --stdio "node interop/typescript/server.mjs"
  check typescript-sdk-1.32.2 http run --url-from "node interop/typescript/server.mjs --http"
  # the SDK's Client as a task receiver: taskcheck plays its server
  check typescript-sdk-1.32.2-client stdio client --stdio --command "node interop/typescript/client.mjs"
  check typescript-sdk-1.32.2-client http client --command "node interop/typescript/client.mjs"
}

rust_sdk() {
  local target=$installs/rust-target
  (cd interop/rust && CARGO_TARGET_DIR=$target cargo build --release --locked --quiet)
  local server=$target/release/taskcheck-interop-rust
  check rust-rmcp-2.2.0 stdio run --stdio "$server"
  check rust-rmcp-2.2.0 http run --url-from "$server --http"
}

# rmcp 3.x implements the Tasks extension (2026-07-28), not 2025-11-25 tasks
rust_ext_sdk() {
  local target=$installs/rust-v3-target
  (cd interop/rust-v3 && CARGO_TARGET_DIR=$target cargo build --release --locked --quiet)
  local server=$target/release/taskcheck-interop-rust-v3
  PROFILE=ext-tasks check rust-rmcp-3.11.0-ext stdio run --stdio "$server"
  PROFILE=ext-tasks check rust-rmcp-3.11.0-ext http run --url-from "$server --http"
}

python_sdk
typescript_sdk
rust_sdk
rust_ext_sdk
if ((update)); then
  python3 interop/matrix.py --update
elif ! python3 interop/matrix.py; then
  failed=1
fi
exit $failed
