"""The MCP client the bench scripts drive a spawned server with, over its stdin/stdout.

One request at a time, each answered before the next (what a client does at start): used by
bench/memory_driver.py (start-up and memory), bench/resident_pages.py (what is resident) and
bench/mcp_driver.py (modes, search, calls).
"""

import json
import os
import subprocess
import time

PROTOCOL = "2025-06-18"


class Server:
    """A server process spawned with pipes for stdin and stdout (stderr discarded)."""

    def __init__(self, argv, env=None):
        self.argv = argv
        # When it was spawned, and when the last answer's last byte was read (perf_counter).
        self.t0 = time.perf_counter()
        self.received = self.t0
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.next_id = 1

    @property
    def pid(self):
        return self.proc.pid

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params=None):
        """The result of one request, when its answer's last byte was read
        (`time.perf_counter()`), and the answer's size in bytes; exits on an error answer."""
        rid = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.proc.stdout.readline()
            received = self.received = time.perf_counter()
            if not line:
                raise SystemExit(f"{self.argv[0]}: closed stdout while answering {method}")
            reply = json.loads(line)
            if reply.get("id") == rid:
                if "error" in reply:
                    raise SystemExit(f"{self.argv[0]}: {method} failed: {reply['error']}")
                return reply["result"], received, len(line)

    def call(self, method, params=None):
        """Only the result of one request (its time is in `self.received`)."""
        return self.request(method, params)[0]

    def initialize(self, client="bench"):
        """`initialize` then `notifications/initialized`; as `request` answers, for initialize."""
        answer = self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": client, "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self):
        """Closes the server's stdin (a stdio server's end of session) and waits for it to exit."""
        self.proc.stdin.close()
        self.proc.wait()

    def reap(self):
        """As `close`, returning the CPU time the server used (user + system, seconds)."""
        self.proc.stdin.close()
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime
