#!/usr/bin/env python3
"""Start-up of `charter mcp --http`: from spawn to the first answer of `GET /healthz`.

Each variant is LABEL=BINARY, optionally with environment settings after it
(LABEL=BINARY,NAME=VALUE,...); the variants are run interleaved, RUNS times each, so that a
busy machine slows them alike. Prints the median, the quartiles and the fastest run of each,
and the server's peak resident memory (VmHWM) once it answered.

  python3 bench/http_start.py --runs 30 \\
      'default=target/release/charter' \\
      'cache off=target/release/charter,GLIBC_TUNABLES=glibc.malloc.tcache_count=0'
"""

import argparse
import os
import socket
import statistics
import subprocess
import time


def healthz(port):
    """True once the server answers `GET /healthz`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vmhwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def one_start(binary, env):
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "mcp", "--http", f"127.0.0.1:{port}", "--pack", "github"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    try:
        while not healthz(port):
            if proc.poll() is not None:
                raise SystemExit(f"{binary} exited with {proc.returncode}")
            time.sleep(0.0002)
        elapsed = time.perf_counter() - t0
        return elapsed, vmhwm_kib(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("variants", nargs="+", help="LABEL=BINARY[,NAME=VALUE...]")
    args = parser.parse_args()
    variants = []
    for spec in args.variants:
        label, rest = spec.split("=", 1)
        binary, *settings = rest.split(",")
        env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
        env.update(s.split("=", 1) for s in settings)
        variants.append((label, binary, env, [], []))
    for _ in range(args.runs):
        for _, binary, env, times, peaks in variants:
            t, peak = one_start(binary, env)
            times.append(t * 1000)
            peaks.append(peak / 1024)
    print(f"{args.runs} runs each, interleaved; load average {os.getloadavg()[0]:.1f}")
    print("variant | median | quartiles | fastest | peak RSS (median)")
    for label, _, _, times, peaks in variants:
        q = statistics.quantiles(times, n=4)
        print(f"{label} | {statistics.median(times):.2f} ms | {q[0]:.2f}-{q[2]:.2f} ms"
              f" | {min(times):.2f} ms | {statistics.median(peaks):.2f} MiB")


if __name__ == "__main__":
    main()
