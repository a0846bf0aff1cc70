#!/usr/bin/env python3
"""Which sections of the `charter` binary a server holds in memory once it has listed its tools.

    python3 bench/resident_pages.py target/release/charter mcp --pack slack
    MAP=.rodata,.data.rel.ro python3 bench/resident_pages.py target/release/charter mcp

Spawns the server, sends initialize and two tools/list (as bench/memory_driver.py does), then
reads which pages of the binary's mappings are resident from /proc/PID/pagemap (the "present"
bit, readable without privileges) and attributes them to the ELF sections `readelf -SW` lists.
With MAP set, prints each named section as a row of 64 KiB chunks (the kernel maps file pages
64 KiB around a fault): `@` a chunk wholly resident, a blank none of it. docs/mcp.md, "Memory".
"""

import os
import struct
import subprocess
import sys

from stdio_client import Server

PAGE = 4096


def sections(binary):
    """(name, address, size) of every section loaded at an address."""
    out = []
    text = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    for line in text.splitlines():
        p = line.replace("[ ", "[").split()
        if len(p) > 6 and p[0].startswith("[") and p[0].endswith("]") and p[1][:1] in "._abcdefghijklmnopqrstuvwxyz":
            name, addr, size = p[1], int(p[3], 16), int(p[5], 16)
            if addr:
                out.append((name, addr, size))
    return out


def listed_server(argv):
    """The server after initialize and two tools/list, and how many tools it listed."""
    server = Server(argv)
    server.initialize(client="pages")
    listed, _, _ = server.request("tools/list")
    server.request("tools/list")
    return server, len(listed.get("tools", []))


def resident_pages(pid, binary):
    """Page numbers (link-time address / 4096, as `readelf -S` gives them) of the binary's
    mappings that are resident. A position-independent binary is loaded at a random base: the
    mapping of file offset 0 is at that base, so addresses are taken relative to it."""
    resident, base = set(), None
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap, open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            p = line.split()
            if len(p) < 6 or os.path.realpath(p[5]) != os.path.realpath(binary):
                continue
            lo, hi = (int(x, 16) for x in p[0].split("-"))
            if base is None:
                # The first mapping is the file's start: load base = its address - its offset.
                base = lo - int(p[2], 16) if is_pie(binary) else 0
            pagemap.seek(lo // PAGE * 8)
            data = pagemap.read((hi - lo) // PAGE * 8)
            for k in range((hi - lo) // PAGE):
                if struct.unpack_from("<Q", data, k * 8)[0] >> 63:
                    resident.add((lo - base) // PAGE + k)
    return resident


def is_pie(binary):
    """Whether the ELF file is position-independent (`e_type` ET_DYN)."""
    with open(binary, "rb") as f:
        header = f.read(18)
    return int.from_bytes(header[16:18], "little" if header[5] == 1 else "big") == 3


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, args = sys.argv[1], sys.argv[2:]
    proc, tools = listed_server([binary] + args)
    status = {}
    with open(f"/proc/{proc.pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            status[key] = value.strip()
    resident = resident_pages(proc.pid, binary)
    proc.close()
    print(f"charter {' '.join(args)}: {tools} tools; VmHWM {status['VmHWM']}, RssFile {status['RssFile']}, RssAnon {status['RssAnon']}")
    print(f"{'section':<24}{'size KiB':>10}{'resident KiB':>14}")
    chosen = [m for m in os.environ.get("MAP", "").split(",") if m]
    for name, addr, size in sections(binary):
        pages = set(range(addr // PAGE, (addr + size + PAGE - 1) // PAGE))
        kib = len(pages & resident) * PAGE // 1024
        if size >= 64 * 1024:
            print(f"{name:<24}{size // 1024:>10}{kib:>14}")
    print(f"{'binary':<24}{'':>10}{len(resident) * PAGE // 1024:>14}")
    for name, addr, size in sections(binary):
        if name in chosen:
            row = ""
            for chunk in range(addr // 65536, (addr + size - 1) // 65536 + 1):
                n = sum(1 for page in range(chunk * 16, chunk * 16 + 16) if page in resident)
                row += " " if n == 0 else "@" if n == 16 else ".:-=+*#%"[min(n // 2, 7)]
            print(f"{name}: |{row}|")


if __name__ == "__main__":
    main()
