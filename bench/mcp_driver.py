#!/usr/bin/env python3
"""Whole-process MCP benchmark driver: raw JSON-RPC over a child's stdin/stdout pipes.

Used by bench/mcp.sh for both servers, so both are timed by the same client code.

For one server command it measures, over N runs (fresh process each run), the median of
(each taken when the response's last byte has been read, before this driver decodes it):
  init    spawn -> initialize response
  list    spawn -> first full tools/list response (eager server)
  relist  one repeat tools/list round trip
  search  one ToolSearch round trip (a --progressive server: `select:` of one tool)
and the peak RSS (max resident set size) of an eager server that answered initialize,
two lists and exited, measured with /usr/bin/time -v.

Output: one JSON object on stdout.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

PROTOCOL = "2025-06-18"


class Server:
    def __init__(self, argv, env):
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.next_id = 1

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params=None):
        """Sends a request and waits for its response (notifications in between are skipped).

        Sets `self.received` to the time the response's last byte was read, before the client
        decodes it: the steps time the server and the pipe, not this driver's JSON decoding."""
        rid = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.proc.stdout.readline()
            self.received = time.perf_counter()
            if not line:
                raise SystemExit(f"server closed stdout while waiting for {method}")
            reply = json.loads(line)
            if reply.get("id") == rid:
                if "error" in reply:
                    raise SystemExit(f"{method} failed: {reply['error']}")
                return reply["result"]

    def initialize(self):
        result = self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def ms(seconds):
    return seconds * 1000.0


def eager_run(argv, env):
    server = Server(argv, env)
    server.initialize()
    t_init = server.received - server.t0
    tools = server.request("tools/list")["tools"]
    t_list = server.received - server.t0
    t = time.perf_counter()
    again = server.request("tools/list")["tools"]
    t_relist = server.received - t
    server.close()
    if len(again) != len(tools):
        raise SystemExit("the repeat list differs from the first")
    return t_init, t_list, t_relist, len(tools), len(json.dumps(tools))


def search_run(argv, env, query):
    server = Server(argv, env)
    server.initialize()
    listed = server.request("tools/list")["tools"]
    if not any(t["name"] == "ToolSearch" for t in listed):
        raise SystemExit("the progressive server does not list ToolSearch")
    t = time.perf_counter()
    result = server.request("tools/call", {"name": "ToolSearch", "arguments": {"query": query}})
    t_search = server.received - t
    if result.get("isError"):
        raise SystemExit(f"ToolSearch failed: {result}")
    grown = server.request("tools/list")["tools"]
    server.close()
    if len(grown) <= len(listed):
        raise SystemExit("ToolSearch loaded nothing")
    return t_search


def peak_rss_kib(argv, env):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        server = Server(["/usr/bin/time", "-v", "-o", report.name] + argv, env)
        server.initialize()
        server.request("tools/list")
        server.request("tools/list")
        server.close()
        text = open(report.name).read()
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if not match:
        raise SystemExit("no RSS in /usr/bin/time -v output:\n" + text)
    return int(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rss-runs", type=int, default=3)
    parser.add_argument("--query", default="select:github_issues_list")
    parser.add_argument("--eager", required=True, help="eager server command (a JSON list)")
    parser.add_argument("--progressive", required=True, help="progressive server command (a JSON list)")
    args = parser.parse_args()
    eager = json.loads(args.eager)
    progressive = json.loads(args.progressive)
    env = dict(os.environ)

    # One warm-up of each, so the page cache holds the binaries / modules for every timed run.
    eager_run(eager, env)
    search_run(progressive, env, args.query)

    inits, lists, relists, searches = [], [], [], []
    tools = size = 0
    for _ in range(args.runs):
        t_init, t_list, t_relist, tools, size = eager_run(eager, env)
        inits.append(t_init)
        lists.append(t_list)
        relists.append(t_relist)
        searches.append(search_run(progressive, env, args.query))
    rss = [peak_rss_kib(eager, env) for _ in range(args.rss_runs)]
    print(
        json.dumps(
            {
                "runs": args.runs,
                "tools": tools,
                "list_bytes": size,
                "init_ms": ms(statistics.median(inits)),
                "list_ms": ms(statistics.median(lists)),
                "relist_ms": ms(statistics.median(relists)),
                "search_ms": ms(statistics.median(searches)),
                "rss_mib": statistics.median(rss) / 1024.0,
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
