#!/usr/bin/env bash
# Whole-process MCP benchmark: charter (this workspace, release build) against the Python
# library it descends from, charter-ai 0.5.2 (PyPI), on the same steps with the same driver.
#
#   bench/mcp.sh                        # every shipped pack, 20 runs each
#   RUNS=50 PACKS=github,stripe bench/mcp.sh   # more runs, fewer packs
#
# Steps (medians over RUNS fresh processes): spawn -> initialize, spawn -> first full
# tools/list (eager), one repeat tools/list, one ToolSearch round trip (--progressive,
# `select:` of one github issues tool), the CPU time the eager server used for initialize and two
# lists (not inflated by a busy machine), and peak RSS of an eager server (/usr/bin/time -v).
# Ours serves every shipped pack; the Python library serves the same pack labels (those it has).
# Its packs hold more tools than ours, so the table prints both tool counts and list sizes:
# compare per step, not per tool.
#
# Ours is also measured per mode: the first tools/list of an eager, a list-changed
# (--progressive) and a search-and-call (--progressive=search-and-call) server (tools, bytes,
# tokens = bytes / 4), and a search -> call round trip (ToolSearch `select:`, then CallTool of the
# tool against a stub API on 127.0.0.1). SKIP_PY=1 skips the Python comparison (slow to install
# and run) and prints only our figures.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-20}"
PY_VERSION="0.5.2"
VENV="${VENV:-/tmp/charter-bench-venv-$PY_VERSION}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

echo "building charter (release)..." >&2
cargo build --release --quiet -p charter-cli --bin charter --manifest-path "$ROOT/Cargo.toml"
CHARTER="$CARGO_TARGET_DIR/release/charter"

# Every shipped pack of ours (the Python library serves the same labels, those it has).
TOOLS_JSON="$("$CHARTER" tools --json)"
RUST_PACKS="${PACKS:-$(python3 -c 'import json,sys; ps=[]
for t in json.load(sys.stdin):
    ps.append(t["pack"]) if t["pack"] not in ps else None
print(",".join(ps))' <<<"$TOOLS_JSON")}"
EAGER_CMD="[\"$CHARTER\", \"mcp\", \"--pack\", \"$RUST_PACKS\"]"
LC_CMD="[\"$CHARTER\", \"mcp\", \"--pack\", \"$RUST_PACKS\", \"--progressive\"]"
SAC_CMD="[\"$CHARTER\", \"mcp\", \"--pack\", \"$RUST_PACKS\", \"--progressive=search-and-call\"]"

if [ "${SKIP_PY:-0}" = 1 ]; then
  unset GITHUB_TOKEN STRIPE_API_KEY || true
  MODES_JSON="$(python3 "$ROOT/bench/mcp_driver.py" --runs "$RUNS" --modes-only \
    --eager "$EAGER_CMD" --progressive "$LC_CMD" --search-and-call "$SAC_CMD")"
  python3 "$ROOT/bench/mcp_modes.py" "$MODES_JSON" "$RUST_PACKS" "$RUNS"
  exit 0
fi

if [ ! -x "$VENV/bin/charter-mcp" ]; then
  echo "installing charter-ai[mcp]==$PY_VERSION into $VENV..." >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "charter-ai[mcp]==$PY_VERSION"
fi
PY_SERVER="$VENV/bin/charter-mcp"

PY_ALL="$("$VENV/bin/python" -c 'from charter.mcp import PACKS; print(",".join(PACKS))')"
PY_PACKS="$(python3 -c 'import sys; ours=sys.argv[1].split(","); py=sys.argv[2].split(",")
print(",".join(p for p in ours if p in py))' "$RUST_PACKS" "$PY_ALL")"
ONLY_RUST="$(python3 -c 'import sys; ours=sys.argv[1].split(","); py=sys.argv[2].split(",")
print(",".join(p for p in ours if p not in py))' "$RUST_PACKS" "$PY_ALL")"

# The github issues tool to load with ToolSearch: our first one, and Python's own.
RUST_TOOL="$(python3 -c 'import json,sys
print(next(t["name"] for t in json.load(sys.stdin) if t["name"].startswith("github_issues")))' <<<"$TOOLS_JSON")"
PY_TOOL="github_issues_list_for_repo"

# No credentials: nothing is called, and a pack without them is still served.
unset GITHUB_TOKEN STRIPE_API_KEY || true

DRIVER="$ROOT/bench/mcp_driver.py"
echo "charter (Rust): $CHARTER mcp --pack $RUST_PACKS ($RUNS runs)..." >&2
RUST_JSON="$(python3 "$DRIVER" --runs "$RUNS" --query "select:$RUST_TOOL" \
  --eager "$EAGER_CMD" --progressive "$LC_CMD" --search-and-call "$SAC_CMD")"
echo "charter-ai $PY_VERSION (Python): $PY_SERVER --pack $PY_PACKS ($RUNS runs)..." >&2
PY_JSON="$(python3 "$DRIVER" --runs "$RUNS" --query "select:$PY_TOOL" \
  --eager "[\"$PY_SERVER\", \"--pack\", \"$PY_PACKS\"]" \
  --progressive "[\"$PY_SERVER\", \"--pack\", \"$PY_PACKS\", \"--progressive\"]")"

python3 - "$RUST_JSON" "$PY_JSON" "$RUST_PACKS" "$PY_PACKS" "$ONLY_RUST" <<'EOF'
import json, sys
rust, py = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"MCP over stdio, median of {rust['runs']} runs")
print(f"  packs:         Rust {sys.argv[3]}; Python {sys.argv[4]}"
      + (f" (Python has no {sys.argv[5]})" if sys.argv[5] else ""))
print(f"  tools listed:  Rust {rust['tools']} ({rust['list_bytes']} bytes), "
      f"Python {py['tools']} ({py['list_bytes']} bytes)")
print(f"{'step':<34}{'charter (Rust)':>16}{'charter-ai (Py)':>18}{'Py / Rust':>12}{'target':>10}")
rows = [
    ("spawn -> initialize", "init_ms", "ms", 10),
    ("spawn -> first full tools/list", "list_ms", "ms", 25),
    ("repeat tools/list", "relist_ms", "ms", None),
    ("ToolSearch round trip", "search_ms", "ms", None),
    ("server CPU time (init + 2 lists)", "cpu_ms", "ms", None),
    ("peak RSS (eager, 2 lists)", "rss_mib", "MiB", 20),
]
for label, key, unit, target in rows:
    r, p = rust[key], py[key]
    ok = "" if target is None else (f"<= {target}" + (" ok" if r <= target else " MISSED"))
    print(f"{label:<34}{r:>12.2f} {unit:<3}{p:>14.2f} {unit:<3}{p / r:>11.1f}x{ok:>14}")
EOF
python3 "$ROOT/bench/mcp_modes.py" "$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["modes"]))' "$RUST_JSON")" "$RUST_PACKS" "$RUNS"
