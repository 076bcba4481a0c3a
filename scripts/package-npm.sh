#!/usr/bin/env bash
# Builds the npm package of taskcheck into target/packages/ (or the folder given): the release
# binary for this platform (package.json's "os" and "cpu" say which), the launcher
# harness/npm/taskcheck.js that runs it, and the licenses, packed by `npm pack`; `npx
# mcp-taskcheck run --url …` then needs no Rust and downloads nothing. harness/tests/packages.rs
# installs the tarball into a temporary prefix and runs it; a release publishes one tarball per
# platform with `npm publish` (README.md, "Releases").
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-target/packages}" && realpath "${1:-target/packages}")
cargo build --quiet --release --locked -p mcp-taskcheck --bin taskcheck
case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "package-npm.sh: no npm platform name for $(uname -s)" >&2 && exit 2 ;;
esac
case $(uname -m) in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) echo "package-npm.sh: no npm cpu name for $(uname -m)" >&2 && exit 2 ;;
esac
stage=$out/npm
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/native"
cp harness/npm/taskcheck.js "$stage/bin/"
cp target/release/taskcheck "$stage/native/"
cp README.md harness/LICENSE-MIT harness/LICENSE-APACHE "$stage/"
# package.json: the template's, with the crate's version and this platform
python3 - "$stage/package.json" "$os" "$cpu" <<'PY'
import json, sys, tomllib
with open("harness/Cargo.toml", "rb") as f:
    version = tomllib.load(f)["package"]["version"]
with open("harness/npm/package.json") as f:
    package = json.load(f)
package.update(version=version, os=[sys.argv[2]], cpu=[sys.argv[3]])
with open(sys.argv[1], "w") as f:
    json.dump(package, f, indent=2)
    f.write("\n")
PY
rm -f "$out"/mcp-taskcheck-*.tgz
(cd "$out" && npm pack --silent ./npm >/dev/null)
ls "$out"/mcp-taskcheck-*.tgz
