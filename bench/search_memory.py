#!/usr/bin/env python3
"""What ToolSearch's ranking costs a progressive server, in memory and time, fresh processes.

For each binary and ranking given, and each of --runs fresh processes of
`BINARY mcp --pack PACK --progressive=search-and-call --ranking RANKING`, it reads the peak
resident memory (VmHWM) once the server has answered initialize and tools/list, then again
after one ToolSearch call (the first keyword query builds the session's search index: the
semantic layer's token table and tool vectors are first touched there), and the time of that
call. Medians; one JSON object on stdout. A server that never searches pays only the first
figure: the second is what searching adds.

    python3 bench/search_memory.py --runs 20 --pack slack \
        --server hybrid '["target/release/charter"]' hybrid \
        --server relevance '["target/release/charter"]' relevance
"""

import argparse
import json
import os
import statistics
import time

from stdio_client import Server
from memory_driver import status_kib

QUERY = "post a message to a channel"


def one_run(binary, pack, ranking):
    argv = binary + ["mcp", "--pack", pack, "--progressive=search-and-call", "--ranking", ranking]
    server = Server(argv, dict(os.environ))
    server.initialize()
    server.request("tools/list")
    listed = status_kib(server.pid)["VmHWM"]
    t0 = time.perf_counter()
    result, t1, _ = server.request("tools/call", {"name": "ToolSearch", "arguments": {"query": QUERY}})
    searched = status_kib(server.pid)["VmHWM"]
    server.close()
    if result.get("isError"):
        raise SystemExit(f"ToolSearch failed: {result}")
    return {"listed_mib": listed / 1024.0, "searched_mib": searched / 1024.0, "search_ms": (t1 - t0) * 1000.0}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--pack", default="slack")
    parser.add_argument("--server", nargs=3, action="append", metavar=("LABEL", "ARGV_JSON", "RANKING"), required=True)
    args = parser.parse_args()
    servers = [(label, json.loads(argv), ranking) for label, argv, ranking in args.server]
    for _, binary, ranking in servers:
        one_run(binary, args.pack, ranking)
    samples = {label: [] for label, _, _ in servers}
    # Interleaved, so a change in the machine's load falls on every server alike.
    for _ in range(args.runs):
        for label, binary, ranking in servers:
            samples[label].append(one_run(binary, args.pack, ranking))
    out = {}
    for label, runs in samples.items():
        out[label] = {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]}
        out[label]["binary_bytes"] = os.path.getsize(next(b for l, b, _ in servers if l == label)[0])
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
