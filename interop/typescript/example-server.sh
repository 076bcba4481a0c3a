#!/usr/bin/env bash
# Serves the TypeScript SDK's published example task server, unmodified:
# @modelcontextprotocol/sdk 1.32.2's dist/esm/examples/server/simpleTaskInteractive.js, over
# Streamable HTTP on a free loopback port, for `taskcheck --url-from` (which reads the endpoint
# URL from the first stdout line: the example prints "Starting server on URL" once it listens,
# and this turns that line into the bare URL, passing every other line on).
set -euo pipefail
here=$(dirname "$0")
# a free port below the kernel's ephemeral range, which every outgoing connection of the
# other runs draws from: one drawn there could be taken again before the example binds it, and
# the example, whose listen callback ignores a bind error, would print its URL and exit
port=$(python3 -c '
import random, socket
for _ in range(100):
    port = random.randint(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        break
    except OSError:
        continue
    finally:
        s.close()
print(port)')
PORT=$port node "$here/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleTaskInteractive.js" |
  sed -u -e 's#^Starting server on \(http://.*\)$#\1#'
