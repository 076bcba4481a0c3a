#!/usr/bin/env bash
# The step of action.yml: finds taskcheck (INPUT_TASKCHECK_BIN, else one on PATH, else one an
# earlier run built into INPUT_INSTALL_DIR, of this action's version), or else builds it from
# the action's own checkout ($GITHUB_ACTION_PATH) with cargo, saying so; runs it with the
# INPUT_* settings, writes the Markdown report to $GITHUB_STEP_SUMMARY and the JSON and HTML
# reports into INPUT_REPORTS_DIR, and sets the outputs in $GITHUB_OUTPUT. Its exit code is
# taskcheck's (3 when no taskcheck can be had).
set -uo pipefail
: "${GITHUB_STEP_SUMMARY:?runs as a GitHub Actions step}" "${GITHUB_OUTPUT:?runs as a GitHub Actions step}"
say() { echo "taskcheck action: $*" >&2; }
give_up() {
  say "$*"
  echo "exit-code=3" >>"$GITHUB_OUTPUT"
  exit 3
}
given=${INPUT_TASKCHECK_BIN:-}
root=${INPUT_INSTALL_DIR:-$HOME/.cache/taskcheck-action}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "${GITHUB_ACTION_PATH:?}/harness/Cargo.toml" | head -1)
if [[ -n $given ]]; then
  [[ -f $given && -x $given ]] || give_up "taskcheck-bin $given is not an executable file"
  taskcheck() { "$given" "$@"; }
elif command -v taskcheck >/dev/null; then
  :
elif [[ $("$root/bin/taskcheck" --version 2>/dev/null) == "taskcheck $version" ]]; then
  say "reusing taskcheck $version built in $root"
  PATH=$root/bin:$PATH
elif ! command -v cargo >/dev/null; then
  give_up "no taskcheck to run: give taskcheck-bin (a prebuilt binary), or install Rust 1.89 or later (rustup, or dtolnay/rust-toolchain) so that the action builds taskcheck $version"
else
  say "building taskcheck $version with cargo install (Rust 1.89 or later; a release build, minutes, not seconds) into $root; cache that folder (actions/cache, keyed by this action's ref) or give taskcheck-bin to skip this"
  cargo install --locked --quiet --path "$GITHUB_ACTION_PATH/harness" --root "$root" ||
    give_up "cargo install of taskcheck $version failed (above)"
  PATH=$root/bin:$PATH
fi
dir=${INPUT_REPORTS_DIR:-taskcheck-reports}
mkdir -p "$dir" || exit 3
args=(run --report-md "$GITHUB_STEP_SUMMARY" --report-json "$dir/report.json" --report-html "$dir/report.html")
# each input that is set becomes its flag
for pair in stdio:STDIO url:URL url-from:URL_FROM profile:PROFILE config:CONFIG fixtures:FIXTURES \
  expected-failures:EXPECTED_FAILURES fail-on:FAIL_ON require-judged:REQUIRE_JUDGED; do
  value=$(printenv "INPUT_${pair#*:}" || true)
  [[ -n $value ]] && args+=("--${pair%%:*}" "$value")
done
taskcheck "${args[@]}"
code=$?
{
  echo "exit-code=$code"
  echo "report-json=$dir/report.json"
  echo "report-html=$dir/report.html"
} >>"$GITHUB_OUTPUT"
exit "$code"
