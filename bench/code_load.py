#!/usr/bin/env python3
"""100 concurrent RunCode programs over `charter mcp --http --progressive=code`: what the server's
memory does. Used by bench/code-load.sh.

A GitHub API stub on 127.0.0.1 (stdlib http.server, threaded) answers the pack's requests with
fixed payloads (a repository, 30 issues). The server is spawned with `--pack github
--progressive=code` pointed at it. Each client opens an MCP session (2025-06-18, streamable
HTTP), runs one program of three calls (two in one Promise.all batch, then one more), checks the
answer, and deletes its session. Memory is the server process's own (/proc/PID/status): VmRSS
after start, after one warm-up program ("before"), VmHWM over the run ("peak"), and VmRSS each
second for SETTLE seconds after the last program ("after", the last sample, and the lowest).
Prints one JSON object.
"""

import argparse
import http.client
import json
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "2025-06-18"

ISSUES = [
    {
        "number": n,
        "title": f"Issue {n}: the build fails on step {n % 7}",
        "state": "open",
        "labels": [{"name": "bug" if n % 3 == 0 else "triage", "color": "d73a4a"}],
        "assignees": [] if n % 2 else [{"login": f"dev{n % 5}"}],
        "user": {"login": f"user{n}"},
        "comments": n % 4,
        "created_at": "2026-11-30T12:00:00Z",
        "updated_at": "2026-12-01T08:30:00Z",
        "html_url": f"https://github.com/octo/hello/issues/{n}",
        "body": "Steps to reproduce: run the build. " * 8,
    }
    for n in range(1, 31)
]
REPO = {"id": 1, "name": "hello", "full_name": "octo/hello", "stargazers_count": 1280,
        "forks_count": 77, "open_issues_count": 30, "default_branch": "main",
        "description": "A repository for the load test.", "html_url": "https://github.com/octo/hello"}

PROGRAM = """
const [issues, repo] = await Promise.all([
  github.issues_list({owner: "octo", repo: "hello", state: "open", per_page: 30}),
  github.repos_get({owner: "octo", repo: "hello"}),
]);
const unassigned = issues.filter(i => i.assignees.length === 0);
const again = await github.repos_get({owner: "octo", repo: "hello"});
return {stars: repo.stargazers_count, unassigned: unassigned.length, same: again.full_name === repo.full_name};
"""
EXPECTED = {"stars": 1280, "unassigned": 15, "same": True}


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/repos/octo/hello/issues":
            body = ISSUES
        elif path == "/repos/octo/hello":
            body = REPO
        else:
            self.send_error(404)
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def status_kib(pid):
    out = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0])
    return out


def resident_by_kind(pid):
    """The process's resident KiB by kind of mapping (/proc/PID/smaps): the main heap, the
    anonymous mappings that start on a 64 MiB boundary (glibc's per-thread arenas: each
    reserves 64 MiB so aligned), the other anonymous ones (thread stacks, large allocations), and files (the binary, libraries)."""
    kinds = {"heap": 0, "arenas": 0, "other_anon": 0, "files": 0}
    kind = None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            first = line.split()[0]
            if "-" in first and not first.endswith(":"):
                start, end = (int(x, 16) for x in first.split("-"))
                fields = line.split()
                name = fields[5] if len(fields) > 5 else ""
                if name == "[heap]":
                    kind = "heap"
                elif name.startswith("/"):
                    kind = "files"
                elif start % (64 << 20) == 0:
                    kind = "arenas"
                else:
                    kind = "other_anon"
            elif first == "Rss:" and kind:
                kinds[kind] += int(line.split()[1])
    return {k: round(v / 1024, 2) for k, v in kinds.items()}


def rpc(host, port, session, message):
    """POSTs one JSON-RPC message; returns (the answer with the same id or None, session id)."""
    conn = http.client.HTTPConnection(host, port, timeout=120)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": PROTOCOL}
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request("POST", "/mcp", json.dumps(message), headers)
    response = conn.getresponse()
    session = response.getheader("Mcp-Session-Id") or session
    if response.status >= 300:
        raise RuntimeError(f"HTTP {response.status}: {response.read()[:200]!r}")
    answer = None
    if "id" in message:
        if response.getheader("Content-Type", "").startswith("text/event-stream"):
            while answer is None:
                line = response.fp.readline()
                if not line:
                    break
                if line.startswith(b"data:"):
                    data = line[5:].strip()
                    if data:
                        reply = json.loads(data)
                        if reply.get("id") == message["id"]:
                            answer = reply
        else:
            answer = json.loads(response.read())
    conn.close()
    return answer, session


def one_program(host, port):
    init, session = rpc(host, port, None, {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "code-load", "version": "0"}}})
    assert "result" in init, init
    rpc(host, port, session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    started = time.perf_counter()
    answer, _ = rpc(host, port, session, {
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "RunCode", "arguments": {"code": PROGRAM}}})
    took = time.perf_counter() - started
    result = answer["result"]
    text = result["content"][0]["text"]
    assert not result.get("isError"), text
    assert json.loads(text) == EXPECTED, text
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": PROTOCOL})
    conn.getresponse().read()
    conn.close()
    return took


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--charter", required=True)
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--settle", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the programs this many times, settling after each")
    parser.add_argument("--detail", action="store_true",
                        help="also where the resident memory is at the end (smaps), and the "
                             "server's last report of heap in use")
    args = parser.parse_args()

    api = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=api.serve_forever, daemon=True).start()
    env = dict(os.environ, CHARTER_GITHUB_BASE_URL=f"http://127.0.0.1:{api.server_address[1]}",
               GITHUB_TOKEN="ghp_load_test_not_a_token")
    if args.detail:
        env["RUST_LOG"] = "charter_mcp=debug"
    proc = subprocess.Popen([args.charter, "mcp", "--http", "127.0.0.1:0", "--pack", "github",
                             "--progressive=code"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    # (--detail: the server logs its heap in use each time it gives memory back)
    try:
        url = None
        while url is None:
            line = proc.stderr.readline().decode()
            if not line:
                raise SystemExit("charter exited before announcing its address")
            if line.startswith("charter: "):
                url = next(w for w in line.split() if w.startswith("http://")).rstrip("),")
        trims = []
        threading.Thread(target=lambda: [trims.append(line) for line in proc.stderr
                                         if b"gave freed memory back" in line],
                         daemon=True).start()
        host, port = url[len("http://"):].split("/")[0].split(":")
        port = int(port)
        started_kib = status_kib(proc.pid)["VmRSS"]
        one_program(host, port)
        before = status_kib(proc.pid)
        rounds = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            # --programs 0: the control run, the server left idle for the same time (the noise).
            with ThreadPoolExecutor(max_workers=max(args.programs, 1)) as pool:
                times = sorted(pool.map(lambda _: one_program(host, port), range(args.programs)))
            wall = time.perf_counter() - t0
            peak = status_kib(proc.pid)["VmHWM"]
            settle = []
            for _ in range(args.settle):
                time.sleep(1)
                settle.append(status_kib(proc.pid)["VmRSS"])
            rounds.append((wall, times, peak, settle))
        wall, times, peak, settle = rounds[0]
        out = {
            "programs": args.programs,
            "wall_s": round(wall, 2),
            "program_p50_ms": round(times[len(times) // 2] * 1000, 1) if times else None,
            "program_max_ms": round(times[-1] * 1000, 1) if times else None,
            "rss_started_mib": round(started_kib / 1024, 2),
            "rss_before_mib": round(before["VmRSS"] / 1024, 2),
            "rss_peak_mib": round(peak / 1024, 2),
            "rss_after_mib": round(settle[-1] / 1024, 2),
            "rss_after_lowest_mib": round(min(settle) / 1024, 2),
            "settle_s": args.settle,
        }
        if args.rounds > 1:
            # Whether memory grows round after round (a leak) or is held and reused.
            out["rss_after_each_round_mib"] = [round(r[3][-1] / 1024, 2) for r in rounds]
            out["rss_peak_each_round_mib"] = [round(r[2] / 1024, 2) for r in rounds]
        if args.detail:
            # Anonymous memory is the heap, the arenas, the stacks; file-backed is the binary's
            # pages read in as code runs for the first time (the kernel may drop them).
            end = status_kib(proc.pid)
            out["anon_before_after_mib"] = [round(before["RssAnon"] / 1024, 2),
                                            round(end["RssAnon"] / 1024, 2)]
            out["file_before_after_mib"] = [round(before["RssFile"] / 1024, 2),
                                            round(end["RssFile"] / 1024, 2)]
            out["resident_mib_by_kind"] = resident_by_kind(proc.pid)
            if trims:
                out["last_trim_log"] = trims[-1].decode(errors="replace").strip()[-160:]
        print(json.dumps(out))
    finally:
        proc.terminate()
        proc.wait()
        api.shutdown()


if __name__ == "__main__":
    main()
