#!/usr/bin/env bash
# Builds the Python wheel of taskcheck (harness/pyproject.toml, maturin `bindings = "bin"`) into
# target/packages/ (or the folder given): `pip install mcp_taskcheck-*.whl` puts `taskcheck` on
# PATH. maturin comes from PyPI, installed once under TASKCHECK_PACKAGING_CACHE (default
# ~/.cache/taskcheck-packaging). harness/tests/packages.rs installs the wheel into a fresh venv
# and runs it; a release publishes it with `maturin upload` (README.md, "Releases").
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/packages}
maturin_version=1.16.0
tools=${TASKCHECK_PACKAGING_CACHE:-$HOME/.cache/taskcheck-packaging}
venv=$tools/maturin-$maturin_version
if [[ ! -x $venv/bin/maturin ]]; then
  rm -rf "$venv" && mkdir -p "$tools"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$maturin_version"
fi
mkdir -p "$out"
rm -f "$out"/mcp_taskcheck-*.whl
"$venv/bin/maturin" build --quiet --release --locked -m harness/Cargo.toml -o "$out"
ls "$out"/mcp_taskcheck-*.whl
