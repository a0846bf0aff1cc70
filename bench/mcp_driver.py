#!/usr/bin/env python3
"""Whole-process MCP benchmark driver: raw JSON-RPC over a child's stdin/stdout pipes.

Used by bench/mcp.sh for both servers, so both are timed by the same client code.

For one server command it measures, over N runs (fresh process each run), the median of
(each taken when the response's last byte has been read, before this driver decodes it):
  init    spawn -> initialize response
  list    spawn -> first full tools/list response (eager server)
  relist  one repeat tools/list round trip
  search  one ToolSearch round trip (a --progressive server: `select:` of one tool)
the CPU time (user + system) the eager server process used for all of that, which the
machine's load does not inflate, and the peak RSS (max resident set size) of an eager server that answered initialize,
two lists and exited, measured with /usr/bin/time -v.

With --search-and-call (a server listing ToolSearch and CallTool) it also reports the size of the
first tools/list of each mode (eager, list-changed, search-and-call: tools, bytes of compact JSON
and tokens as charter counts them, bytes / 4) and the median search -> call round trip: a
ToolSearch `select:` of --call-tool, then CallTool of it with --call-args, against a stub API on
127.0.0.1 started here (the server gets its URL through --base-url-env and a fake token through
--token-env), so the call goes over HTTP and nothing leaves the machine.

Output: one JSON object on stdout.
"""

import argparse
import http.server
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time

from stdio_client import Server


def ms(seconds):
    return seconds * 1000.0


def eager_run(argv, env):
    server = Server(argv, env)
    server.initialize()
    t_init = server.received - server.t0
    tools = server.call("tools/list")["tools"]
    t_list = server.received - server.t0
    t = time.perf_counter()
    again = server.call("tools/list")["tools"]
    t_relist = server.received - t
    cpu = server.reap()
    if len(again) != len(tools):
        raise SystemExit("the repeat list differs from the first")
    return t_init, t_list, t_relist, cpu, len(tools), len(json.dumps(tools))


def search_run(argv, env, query):
    server = Server(argv, env)
    server.initialize()
    listed = server.call("tools/list")["tools"]
    if not any(t["name"] == "ToolSearch" for t in listed):
        raise SystemExit("the progressive server does not list ToolSearch")
    t = time.perf_counter()
    result = server.call("tools/call", {"name": "ToolSearch", "arguments": {"query": query}})
    t_search = server.received - t
    if result.get("isError"):
        raise SystemExit(f"ToolSearch failed: {result}")
    grown = server.call("tools/list")["tools"]
    server.close()
    if len(grown) <= len(listed):
        raise SystemExit("ToolSearch loaded nothing")
    return t_search


def peak_rss_kib(argv, env):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        server = Server(["/usr/bin/time", "-v", "-o", report.name] + argv, env)
        server.initialize()
        server.call("tools/list")
        server.call("tools/list")
        server.close()
        text = open(report.name).read()
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if not match:
        raise SystemExit("no RSS in /usr/bin/time -v output:\n" + text)
    return int(match.group(1))


def first_list(argv, env):
    """The first tools/list of a fresh server: (tools, bytes of compact JSON, tokens)."""
    server = Server(argv, env)
    server.initialize()
    tools = server.call("tools/list")["tools"]
    server.close()
    size = len(json.dumps(tools, separators=(",", ":")))
    return len(tools), size, size // 4


class Stub(http.server.BaseHTTPRequestHandler):
    """An API stand-in: every request gets `[]`, and is counted."""

    hits = 0
    protocol_version = "HTTP/1.1"  # keep-alive, as a real API would
    disable_nagle_algorithm = True  # headers and body are two writes: no delayed-ACK stall

    def answer(self):
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        Stub.hits += 1
        body = b"[]"
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer

    def log_message(self, *args):
        pass


def search_call_run(argv, env, tool, arguments):
    """Two search -> call round trips on one search-and-call server (s each, from the search
    request to the call's answer): the first pays for the HTTP client (built on a process's
    first HTTP call) and the first connection, the second is warm."""
    server = Server(argv, env)
    server.initialize()
    listed = [t["name"] for t in server.call("tools/list")["tools"]]
    if listed[-2:] != ["ToolSearch", "CallTool"]:
        raise SystemExit(f"not a search-and-call list: {listed}")
    times = []
    for _ in range(2):
        before = Stub.hits
        t = time.perf_counter()
        found = server.call("tools/call", {"name": "ToolSearch", "arguments": {"query": f"select:{tool}"}})
        called = server.call("tools/call", {"name": "CallTool", "arguments": {"name": tool, "arguments": arguments}})
        times.append(server.received - t)
        if found.get("isError") or '"inputSchema"' not in found["content"][0]["text"]:
            raise SystemExit(f"ToolSearch found no schema: {found}")
        if called.get("isError") or Stub.hits != before + 1:
            raise SystemExit(f"CallTool did not reach the stub: {called}")
    server.close()
    return times


def modes(args, eager, progressive, env):
    """First-list sizes per mode and the search -> call round trip."""
    sac = json.loads(args.search_and_call)
    stub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    env = dict(env)
    env[args.base_url_env] = f"http://127.0.0.1:{stub.server_address[1]}"
    env[args.token_env] = "bench-token-not-real"
    arguments = json.loads(args.call_args)
    out = {}
    for name, argv in (("eager", eager), ("list_changed", progressive), ("search_and_call", sac)):
        tools, size, tokens = first_list(argv, env)
        out[name] = {"tools": tools, "bytes": size, "tokens": tokens}
    search_call_run(sac, env, args.call_tool, arguments)  # warm-up
    times = [search_call_run(sac, env, args.call_tool, arguments) for _ in range(args.runs)]
    out["search_call_first_ms"] = ms(statistics.median(t[0] for t in times))
    out["search_call_ms"] = ms(statistics.median(t[1] for t in times))
    stub.shutdown()
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rss-runs", type=int, default=3)
    parser.add_argument("--query", default="select:github_issues_list")
    parser.add_argument("--eager", required=True, help="eager server command (a JSON list)")
    parser.add_argument("--progressive", required=True, help="progressive server command (a JSON list)")
    parser.add_argument("--search-and-call", help="search-and-call server command (a JSON list)")
    parser.add_argument("--call-tool", default="github_issues_list")
    parser.add_argument("--call-args", default='{"owner": "octo", "repo": "hello"}')
    parser.add_argument("--base-url-env", default="CHARTER_GITHUB_BASE_URL")
    parser.add_argument("--token-env", default="GITHUB_TOKEN")
    parser.add_argument("--modes-only", action="store_true", help="only the per-mode figures")
    args = parser.parse_args()
    eager = json.loads(args.eager)
    progressive = json.loads(args.progressive)
    env = dict(os.environ)
    if args.modes_only:
        print(json.dumps(modes(args, eager, progressive, env)))
        return

    # One warm-up of each, so the page cache holds the binaries / modules for every timed run.
    eager_run(eager, env)
    search_run(progressive, env, args.query)

    inits, lists, relists, cpus, searches = [], [], [], [], []
    tools = size = 0
    for _ in range(args.runs):
        t_init, t_list, t_relist, cpu, tools, size = eager_run(eager, env)
        inits.append(t_init)
        lists.append(t_list)
        relists.append(t_relist)
        cpus.append(cpu)
        searches.append(search_run(progressive, env, args.query))
    rss = [peak_rss_kib(eager, env) for _ in range(args.rss_runs)]
    extra = modes(args, eager, progressive, env) if args.search_and_call else {}
    print(
        json.dumps(
            {
                **({"modes": extra} if extra else {}),
                "runs": args.runs,
                "tools": tools,
                "list_bytes": size,
                "init_ms": ms(statistics.median(inits)),
                "list_ms": ms(statistics.median(lists)),
                "relist_ms": ms(statistics.median(relists)),
                "search_ms": ms(statistics.median(searches)),
                "cpu_ms": ms(statistics.median(cpus)),
                "rss_mib": statistics.median(rss) / 1024.0,
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
