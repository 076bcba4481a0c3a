#!/usr/bin/env bash
# The step of action.yml: installs taskcheck unless it is on PATH (built from the action's own
# checkout, $GITHUB_ACTION_PATH), runs it with the INPUT_* settings, writes the Markdown report
# to $GITHUB_STEP_SUMMARY and the JSON and HTML reports into INPUT_REPORTS_DIR, and sets the
# outputs in $GITHUB_OUTPUT. Its exit code is taskcheck's.
set -uo pipefail
: "${GITHUB_STEP_SUMMARY:?runs as a GitHub Actions step}" "${GITHUB_OUTPUT:?runs as a GitHub Actions step}"
if ! command -v taskcheck >/dev/null; then
  root=${RUNNER_TEMP:-/tmp}/taskcheck
  cargo install --locked --quiet --path "${GITHUB_ACTION_PATH:?}/harness" --root "$root" || exit 3
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
