#!/usr/bin/env bash
# Calibrates taskcheck's ext-tasks verdicts against the official MCP conformance suite: both run
# against the same servers (taskcheck's extension reference over HTTP, clean, under every fault
# whose rule has an official counterpart and under every legal variant; and the rmcp 3.11.0
# fixture), and interop/calibrate.py compares them check by check. The official transport and
# lifecycle scenarios of each revision run against the reference of each profile too.
#   interop/calibrate.sh            compare: fails on a disagreement that interop/calibration.txt
#                                   does not explain (what CI runs)
#   interop/calibrate.sh --update   also rewrite reports/calibration.md
# TASKCHECK (default target/debug/taskcheck) is the binary used. The official suite and the
# Node 22 it needs come from npm (interop/conformance/package-lock.json), installed once under
# TASKCHECK_INTEROP_CACHE (default ~/.cache/taskcheck-interop); the rmcp fixture is the build
# interop/run.sh made there (built here when missing). This run's files go to
# interop/.cache/calibration/ (ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
taskcheck=$(realpath "${TASKCHECK:-target/debug/taskcheck}")
update=()
[[ ${1:-} == --update ]] && update=(--update)
installs=${TASKCHECK_INTEROP_CACHE:-$HOME/.cache/taskcheck-interop}
runs=interop/.cache/calibration
rm -rf "$runs" && mkdir -p "$runs" "$installs"

# the official suite, and a Node 22 first on PATH for it
modules=$installs/conformance-$(sha256sum interop/conformance/package-lock.json | cut -c1-12)
if [[ ! -x $modules/node_modules/.bin/conformance ]]; then
  rm -rf "$modules" && mkdir -p "$modules"
  cp interop/conformance/package.json interop/conformance/package-lock.json "$modules/"
  (cd "$modules" && npm ci --silent --no-audit --no-fund)
fi
export PATH=$modules/node_modules/.bin:$PATH
scenarios=(tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal
  tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications
  tasks-required-task-error tasks-mrtr-composition)

# official URL DIR MODE SCENARIO...: official scenarios, each into DIR/official/<scenario>/, at
# once (MODE parallel) or one after the other; SPEC_VERSION, if set, is the revision they test
official() {
  local url=$1 dir=$2/official mode=$3 pids=()
  shift 3
  mkdir -p "$dir"
  local version=(${SPEC_VERSION:+--spec-version "$SPEC_VERSION"})
  for s in "$@"; do
    if [[ $mode == parallel ]]; then
      conformance server --url "$url" --scenario "$s" "${version[@]}" -o "$dir/.$s" >"$dir/$s.log" 2>&1 &
      pids+=($!)
    else
      conformance server --url "$url" --scenario "$s" "${version[@]}" -o "$dir/.$s" >"$dir/$s.log" 2>&1 || true
    fi
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  # each run writes DIR/.<scenario>/server-<scenario>-<time>/checks.json
  for s in "$@"; do
    local out
    out=$(ls -d "$dir/.$s"/*/ 2>/dev/null | head -n 1)
    if [[ -z $out || ! -f $out/checks.json ]]; then
      echo "FAIL: the official $s wrote no checks.json (see $dir/$s.log)" >&2
      return 1
    fi
    mkdir -p "$dir/$s" && cp "$out/checks.json" "$dir/$s/"
  done
}

# the schemas of 2026-07-28 and of the extension, when the spec texts are beside the checkout
spec=${TASKCHECK_SPEC_DIR:-../shared/spec}
schemas=()
if [[ -f $spec/2026-07-28/schema.json && -f $spec/ext-tasks/schema.json ]]; then
  schemas=(--schema "$spec/2026-07-28/schema.json" --schema "$spec/ext-tasks/schema.json")
fi

# ours URL DIR: taskcheck's ext-tasks suite, its verdicts keyed by official check id
ours() {
  "$taskcheck" run --url "$1" --profile ext-tasks "${schemas[@]}" --checks-json "$2/taskcheck.json" >"$2/taskcheck.txt" 2>&1 || true
}

# start DIR COMMAND...: starts a server that prints its URL first; sets `server` and `url`
start() {
  local dir=$1
  shift
  mkdir -p "$dir"
  "$@" >"$dir/server.out" 2>"$dir/server.err" &
  server=$!
  url=""
  for _ in $(seq 100); do
    url=$(head -n 1 "$dir/server.out" 2>/dev/null || true)
    [[ $url == http* ]] && return 0
    sleep 0.1
  done
  echo "FAIL: $* printed no URL (see $dir/server.err)" >&2
  kill "$server" 2>/dev/null || true
  return 1
}

stop() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}

# calibrate NAME MODE "SCENARIO..." -- COMMAND...: runs the official scenarios (all when none
# are named) and taskcheck's suite against a server (timed when MODE is not parallel)
calibrate() {
  local name=$1 mode=$2 dir=$runs/$1
  local picked=(${3:-${scenarios[*]}})
  shift 4
  start "$dir" "$@"
  local begin=$EPOCHREALTIME
  official "$url" "$dir" "$mode" "${picked[@]}"
  local middle=$EPOCHREALTIME
  ours "$url" "$dir"
  local end=$EPOCHREALTIME
  stop
  if [[ $mode != parallel ]]; then
    awk -v a="$begin" -v b="$middle" -v c="$end" 'BEGIN { printf "official %.2f\ntaskcheck %.2f\n", b - a, c - b }' >"$dir/seconds.txt"
  fi
  echo "$name: calibrated [$(awk -v a="$begin" -v c="$end" 'BEGIN { printf "%.1f", c - a }') s]"
}

# transport NAME SPEC-VERSION "SCENARIO..." -- COMMAND...: the official transport and lifecycle
# scenarios of a revision against a reference server; interop/calibrate.py holds each to pass
transport() {
  local name=$1 dir=$runs/$1
  local picked=($3)
  SPEC_VERSION=$2
  shift 4
  start "$dir" "$@"
  official "$url" "$dir" timed "${picked[@]}"
  stop
  SPEC_VERSION=
  echo "$name: transport scenarios run"
}

reference=("$taskcheck" reference --profile ext-tasks --http)
calibrate reference timed "" -- "${reference[@]}"
# every fault whose rule names official checks, against the scenarios that hold them
while read -r fault rule _; do
  held=$(COLUMNS=100000 "$taskcheck" explain "$rule" | sed -n 's/^  official: \(.*\) (the official.*/\1/p' | tr ',' '\n' | sed 's/:.*//; s/^ *//' | sort -u)
  if [[ -n $held ]]; then
    calibrate "fault-$fault" parallel "$held" -- "${reference[@]}" --fault "$fault"
  fi
done < <("$taskcheck" reference --profile ext-tasks --list-faults)
# every legal variant, against every official scenario: both tools must pass it
for variant in $("$taskcheck" reference --profile ext-tasks --list-variants | awk '{print $1}'); do
  calibrate "variant-$variant" parallel "" -- "${reference[@]}" --variant "$variant"
done
# the rmcp 3.11.0 fixture (built by interop/run.sh, the same way)
target=$installs/rust-v3-target
(cd interop/rust-v3 && CARGO_TARGET_DIR=$target cargo build --release --locked --quiet)
calibrate rust-rmcp-3.11.0-ext timed "" -- "$target/release/taskcheck-interop-rust-v3" --http
# the reference servers themselves, under the official transport and lifecycle scenarios
transport transport-2025-11-25 2025-11-25 "server-initialize ping server-session-lifecycle server-sse-multiple-streams
  server-sse-polling dns-rebinding-protection tools-list" -- "$taskcheck" reference --http
transport transport-2026-07-28 2026-07-28 "server-stateless tools-list dns-rebinding-protection server-sse-multiple-streams
  http-header-validation" -- "${reference[@]}"
python3 interop/calibrate.py "$runs" "${update[@]}"
