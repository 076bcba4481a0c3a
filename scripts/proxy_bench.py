"""Measures the HTTP proxy of `taskcheck watch`: starts an echo endpoint (each POST answered with
its own JSON body), directly or behind `taskcheck watch --listen 127.0.0.1:0 --upstream URL`
(the taskcheck binary given), then either POSTs N messages one at a time on one keep-alive
connection (`latency`: median and 99th percentile round trip, in microseconds) or from 4
connections at once (`throughput`: messages per second); through the proxy, it prints the proxy's
CPU per message and its peak memory.

    python3 scripts/proxy_bench.py latency|throughput N [TASKCHECK]
"""

import http.client
import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse


class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out as written, with no wait for an acknowledgement
    disable_nagle_algorithm = True

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


mode, n = sys.argv[1], int(sys.argv[2])
echo = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
threading.Thread(target=echo.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{echo.server_port}/mcp"
proxy = None
if len(sys.argv) > 3:
    proxy = subprocess.Popen([sys.argv[3], "watch", "-q", "--listen", "127.0.0.1:0", "--upstream", url],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = proxy.stdout.readline().strip()
target = urllib.parse.urlparse(url)


def post(conn, i):
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"})
    conn.request("POST", target.path, body, {"Content-Type": "application/json", "Accept": "application/json"})
    conn.getresponse().read()


def connection():
    conn = http.client.HTTPConnection(target.hostname, target.port)
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


if mode == "latency":
    conn = connection()
    rounds = []
    for i in range(n):
        start = time.perf_counter()
        post(conn, i)
        rounds.append((time.perf_counter() - start) * 1e6)
    rounds.sort()
    print(f"median {statistics.median(rounds):.0f} us, p99 {rounds[int(n * 0.99)]:.0f} us")
else:
    def client(k):
        conn = connection()
        for i in range(n // 4):
            post(conn, k * n + i)

    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"{n / (time.perf_counter() - start):,.0f} messages/s")
if proxy:
    # the proxy's own CPU (user and system), per message relayed
    fields = open(f"/proc/{proxy.pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    print(f"proxy CPU {cpu:.2f} s, {cpu / n * 1e6:.0f} us per message")
    relaying = next(l for l in open(f"/proc/{proxy.pid}/status") if l.startswith("VmHWM")).split()[1]
    print(f"proxy peak RSS while relaying {int(relaying) / 1024:.0f} MB")
    proxy.send_signal(2)
    # its peak memory, the judging after the signal included
    _, _, usage = os.wait4(proxy.pid, 0)
    print(f"proxy peak RSS {usage.ru_maxrss / 1024:.0f} MB")
