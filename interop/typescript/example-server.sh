#!/usr/bin/env bash
# Serves the TypeScript SDK's published example task server, unmodified:
# @modelcontextprotocol/sdk 1.32.2's dist/esm/examples/server/simpleTaskInteractive.js, over
# Streamable HTTP on a free loopback port, for `taskcheck --url-from` (which reads the endpoint
# URL from the first stdout line: the example prints "Starting server on URL" once it listens,
# and this turns that line into the bare URL, passing every other line on).
set -euo pipefail
here=$(dirname "$0")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$port node "$here/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleTaskInteractive.js" |
  sed -u -e 's#^Starting server on \(http://.*\)$#\1#'
