#!/usr/bin/env python3
"""Drives an MCP server over stdio as a client would: `initialize`, `notifications/initialized`,
`tools/list`, then closes its stdin. Prints what it got and exits non-zero when the server does
not answer both requests with results.

usage: scripts/mcp-smoke.py [--timeout SECONDS] -- COMMAND [ARGS...]

The timeout covers the first answer too, so COMMAND may build the server first (`cargo run`).
"""

import json
import os
import select
import subprocess
import sys
import time


def main() -> int:
    args = sys.argv[1:]
    timeout = 3600.0
    if args[:1] == ["--timeout"]:
        timeout, args = float(args[1]), args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    server = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    buffer = b""

    def send(message: dict) -> None:
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    def answer(id_: int) -> dict:
        nonlocal buffer
        while True:
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if not line.strip():
                    continue
                message = json.loads(line)
                if message.get("id") == id_:
                    return message
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to request {id_} within {timeout:.0f} s")
            ready, _, _ = select.select([server.stdout], [], [], left)
            if ready:
                chunk = os.read(server.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError(f"the server closed stdout before answering request {id_}")
                buffer += chunk

    started = time.monotonic()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "fresh-clone-check", "version": "1"}}})
    init = answer(1)
    if "result" not in init:
        print(f"initialize failed: {init}", file=sys.stderr)
        return 1
    info = init["result"].get("serverInfo", {})
    print(f"initialize: {info.get('name')} {info.get('version')}, protocol "
          f"{init['result'].get('protocolVersion')} ({time.monotonic() - started:.1f} s after spawn, build included)")
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    listed = answer(2)
    tools = listed.get("result", {}).get("tools")
    if not tools:
        print(f"tools/list failed: {listed}", file=sys.stderr)
        return 1
    packs = sorted({t["name"].split("_", 1)[0] for t in tools})
    print(f"tools/list: {len(tools)} tools from {', '.join(packs)}")
    server.stdin.close()
    status = server.wait(timeout=60)
    print(f"server exited with status {status} when its stdin closed")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
