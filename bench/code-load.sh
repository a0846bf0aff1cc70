#!/usr/bin/env bash
# Code mode under load (docs/code-mode.md): PROGRAMS (100) concurrent RunCode programs of three
# tool calls each over `charter mcp --http --progressive=code --pack github` (release build),
# against a GitHub API stub on 127.0.0.1, each in its own MCP session. Prints the server's
# resident memory after start, after one warm-up program (before), its peak, and SETTLE_SECS (100:
# the server hands freed pages back for 90 s after sessions close) after the last program;
# programs' wall clock and latency. The driver is bench/code_load.py (Python 3, stdlib only).
#
#   bench/code-load.sh
#   PROGRAMS=50 SETTLE_SECS=20 ROUNDS=4 bench/code-load.sh   # rounds: growth (a leak) or reuse
#   DETAIL=1 bench/code-load.sh   # also where the resident memory is at the end, and the heap in use
#   PROGRAMS=0 bench/code-load.sh # the control: one program, then the server idle as long (noise)
#   CHARTER=path/to/charter bench/code-load.sh   # a binary already built (two side by side)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

CHARTER="${CHARTER:-}"
if [ -z "$CHARTER" ]; then
  echo "building charter (release)..." >&2
  cargo build --release --quiet -p charter-cli --features shipped-packs --bin charter --manifest-path "$ROOT/Cargo.toml"
  CHARTER="$CARGO_TARGET_DIR/release/charter"
fi
exec python3 "$ROOT/bench/code_load.py" --charter "$CHARTER" \
  --programs "${PROGRAMS:-100}" --settle "${SETTLE_SECS:-100}" --rounds "${ROUNDS:-1}" ${DETAIL:+--detail}
