#!/usr/bin/env python3
"""Prints bench/mcp_driver.py's per-mode figures (its `modes` object) as a table."""

import json
import sys

modes, packs, runs = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
print(f"charter (Rust), every mode, packs {packs}")
print(f"{'first tools/list':<34}{'tools':>8}{'bytes':>12}{'tokens':>10}")
for key, label in (("eager", "eager"), ("list_changed", "--progressive (list-changed)"),
                   ("search_and_call", "--progressive=search-and-call")):
    m = modes[key]
    print(f"{label:<34}{m['tools']:>8}{m['bytes']:>12}{m['tokens']:>10}")
print(f"search -> call round trip (median of {runs}, stub API on 127.0.0.1): "
      f"{modes['search_call_ms']:.2f} ms warm, {modes['search_call_first_ms']:.2f} ms for a "
      "process's first (HTTP client built, first connection)")
