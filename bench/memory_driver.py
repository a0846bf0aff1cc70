#!/usr/bin/env python3
"""Whole-process memory and start-up of MCP servers over stdio, fresh processes, one driver.

Used by bench/memory.sh for charter and the reference servers alike. For each server command
(`--server LABEL JSON-ARGV`, repeatable) and each of --runs fresh processes, it measures:
  init   spawn -> the initialize response's last byte read
  list   spawn -> the first tools/list response's last byte read
  rss    the process's peak resident memory (VmHWM of /proc/PID/status, what `/usr/bin/time -v`
         reports as "Maximum resident set size") once it has answered initialize and two
         tools/list, read before its stdin is closed; and the resident memory then (VmRSS)
         split into the pages of files it maps (its binary, libraries: RssFile) and its own
         (heap, stacks: RssAnon)
and reports medians. The process is the server itself (no shell or wrapper in between), so the
figures are its own. Output: one JSON object on stdout, keyed by label.
"""

import argparse
import json
import os
import statistics
import time

from stdio_client import Server


def status_kib(pid):
    """VmHWM, VmRSS, RssFile and RssAnon of a live process, in KiB."""
    out = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS", "RssFile", "RssAnon"):
                out[key] = int(value.split()[0])
    return out


def one_run(argv, env):
    t0 = time.perf_counter()
    server = Server(argv, env)
    _, t_init, _ = server.initialize()
    listed, t_list, size = server.request("tools/list")
    server.request("tools/list")
    memory = status_kib(server.pid)
    server.close()
    return {
        "init_ms": (t_init - t0) * 1000.0,
        "list_ms": (t_list - t0) * 1000.0,
        "rss_mib": memory["VmHWM"] / 1024.0,
        "file_mib": memory["RssFile"] / 1024.0,
        "anon_mib": memory["RssAnon"] / 1024.0,
        "tools": len(listed["tools"]),
        "list_bytes": size,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--server", nargs=2, action="append", metavar=("LABEL", "ARGV_JSON"), required=True)
    args = parser.parse_args()
    env = dict(os.environ)
    servers = [(label, json.loads(argv)) for label, argv in args.server]
    # One warm-up each: every timed run finds the binaries and modules in the page cache.
    for _, argv in servers:
        one_run(argv, env)
    samples = {label: [] for label, _ in servers}
    # Interleaved, so a change in the machine's load falls on every server alike.
    for _ in range(args.runs):
        for label, argv in servers:
            samples[label].append(one_run(argv, env))
    out = {}
    for label, runs in samples.items():
        out[label] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        out[label]["runs"] = len(runs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
