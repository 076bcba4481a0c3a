"""Measures a stdio relay: starts the command given (an echo server, directly or behind
`taskcheck watch --`), then either sends N one-line messages one at a time, each waiting for
its echo (`latency`: median and 99th percentile round trip, in microseconds), or all at once
while reading their echoes (`throughput`: messages per second)."""

import json
import statistics
import subprocess
import sys
import threading
import time

mode, n, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
line = lambda i: (json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}) + "\n").encode()
if mode == "latency":
    rounds = []
    for i in range(n):
        start = time.perf_counter()
        server.stdin.write(line(i))
        server.stdout.readline()
        rounds.append((time.perf_counter() - start) * 1e6)
    rounds.sort()
    print(f"median {statistics.median(rounds):.0f} us, p99 {rounds[int(n * 0.99)]:.0f} us")
else:
    def write():
        batch = b"".join(line(i) for i in range(1000))
        for _ in range(n // 1000):
            server.stdin.write(batch)
        server.stdin.close()
    start = time.perf_counter()
    threading.Thread(target=write).start()
    got = sum(1 for _ in server.stdout)
    print(f"{got / (time.perf_counter() - start):,.0f} messages/s ({got} relayed)")
if server.stdin and not server.stdin.closed:
    server.stdin.close()
server.wait()
