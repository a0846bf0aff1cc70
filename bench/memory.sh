#!/usr/bin/env bash
# Memory and start-up of `charter mcp` over stdio beside the reference MCP servers, fresh
# processes, side by side in one run (interleaved, so the machine's load falls on all alike):
#
#   bench/memory.sh              # 20 runs of each
#   RUNS=50 bench/memory.sh
#   BUILD=workspace bench/memory.sh   # the binary as `cargo build --release --workspace` makes it
#
# BUILD picks how the binary is built, since a user may build it either way and both must meet
# the targets: `package` (the default, the README's command: `-p charter-cli --features
# shipped-packs`) or `workspace` (`--workspace --bin charter --features
# charter-cli/shipped-packs`, in a target directory of its own: other features of shared
# dependencies are on).
#
# Servers: charter (release build) with one pack (slack, notion) and with every shipped pack,
# the floor (bench/hello_mcp.c, a C program that answers each request at once: what spawning
# a process and speaking to it costs, under the same cold caches as the servers beside it), and
# the reference servers of the same APIs from npm, installed pinned under
# target/npm/reference-servers: @modelcontextprotocol/server-slack and
# @notionhq/notion-mcp-server, on the `node` found on the PATH. Each run spawns the server,
# sends initialize and two tools/list (bench/memory_driver.py), and reads the process's peak
# resident memory (VmHWM, what `/usr/bin/time -v` calls maximum resident set size) before
# closing its stdin. Medians. No credentials are real and no API is called: listing needs none
# (the Slack server wants a token and team id set, so fake ones are).
#
# Also prints the binary's ELF type (`DYN`: position-independent, as it must stay).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-20}"
SLACK_REF="@modelcontextprotocol/server-slack@2025.4.25"
NOTION_REF="@notionhq/notion-mcp-server@2.5.2"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PREFIX="$CARGO_TARGET_DIR/npm/reference-servers"

case "${BUILD:-package}" in
  package)
    echo "building charter (release, -p charter-cli)..." >&2
    cargo build --release --quiet -p charter-cli --features shipped-packs --bin charter \
      --manifest-path "$ROOT/Cargo.toml"
    CHARTER="$CARGO_TARGET_DIR/release/charter" ;;
  workspace)
    echo "building charter (release, --workspace)..." >&2
    CARGO_TARGET_DIR="$CARGO_TARGET_DIR/workspace-build" cargo build --release --quiet --workspace \
      --bin charter --features charter-cli/shipped-packs --manifest-path "$ROOT/Cargo.toml"
    CHARTER="$CARGO_TARGET_DIR/workspace-build/release/charter" ;;
  *) echo "BUILD is package or workspace" >&2; exit 2 ;;
esac
FLOOR="$CARGO_TARGET_DIR/hello-mcp"
if [ ! -x "$FLOOR" ] || [ "$ROOT/bench/hello_mcp.c" -nt "$FLOOR" ]; then
  "${CC:-cc}" -O2 -o "$FLOOR" "$ROOT/bench/hello_mcp.c"
fi

installed() { [ -f "$PREFIX/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$PREFIX/node_modules/$1/package.json"; }
if ! installed @modelcontextprotocol/server-slack 2025.4.25 || ! installed @notionhq/notion-mcp-server 2.5.2; then
  echo "installing $SLACK_REF $NOTION_REF into $PREFIX..." >&2
  mkdir -p "$PREFIX"
  npm install --no-audit --no-fund --loglevel=error --prefix "$PREFIX" "$SLACK_REF" "$NOTION_REF" >&2
fi
SLACK_JS="$PREFIX/node_modules/@modelcontextprotocol/server-slack/dist/index.js"
NOTION_JS="$PREFIX/node_modules/@notionhq/notion-mcp-server/bin/cli.mjs"
NODE="$(command -v node)"

# Fake credentials: nothing is called, and each server starts without a real one.
export SLACK_BOT_TOKEN=xoxb-bench-not-a-token SLACK_TEAM_ID=T0BENCH NOTION_TOKEN=ntn_bench_not_a_token
unset GITHUB_TOKEN STRIPE_API_KEY LINEAR_API_KEY || true

echo "measuring ($RUNS runs each, node $("$NODE" --version))..." >&2
JSON="$(python3 "$ROOT/bench/memory_driver.py" --runs "$RUNS" \
  --server "charter mcp --pack slack" "[\"$CHARTER\", \"mcp\", \"--pack\", \"slack\"]" \
  --server "server-slack 2025.4.25" "[\"$NODE\", \"$SLACK_JS\"]" \
  --server "charter mcp --pack notion" "[\"$CHARTER\", \"mcp\", \"--pack\", \"notion\"]" \
  --server "notion-mcp-server 2.5.2" "[\"$NODE\", \"$NOTION_JS\"]" \
  --server "C floor (hello_mcp.c)" "[\"$FLOOR\"]" \
  --server "charter mcp (every pack)" "[\"$CHARTER\", \"mcp\"]")"

python3 - "$JSON" "$CHARTER" "${BUILD:-package}" <<'EOF'
import json, subprocess, sys
d = json.loads(sys.argv[1])
runs = next(iter(d.values()))["runs"]
elf = subprocess.run(["readelf", "-h", sys.argv[2]], capture_output=True, text=True).stdout
kind = next((l.split(":", 1)[1].split()[0] for l in elf.splitlines() if l.strip().startswith("Type:")), "?")
print(f"MCP over stdio: initialize + 2 tools/list, fresh processes, median of {runs} runs "
      f"(binary: BUILD={sys.argv[3]}, ELF type {kind})")
print(f"{'server':<28}{'tools':>6}{'spawn->init':>13}{'spawn->list':>13}{'peak RSS':>11}{'  (files + own)':<18}{'target':>16}")
targets = {
    "charter mcp --pack slack": [("rss_mib", 6.0, "MiB")],
    "charter mcp (every pack)": [("rss_mib", 10.0, "MiB")],
}
for label, r in d.items():
    ok = " ".join(
        f"{key.split('_')[0]}<={limit}{unit}:" + ("ok" if r[key] <= limit else "MISSED")
        for key, limit, unit in targets.get(label, [])
    )
    print(f"{label:<28}{int(r['tools']):>6}{r['init_ms']:>10.2f} ms{r['list_ms']:>10.2f} ms{r['rss_mib']:>7.2f} MiB"
          f"  ({r['file_mib']:.1f} + {r['anon_mib']:.1f}){'':<5}{ok:>16}")
for ours, theirs in (("charter mcp --pack slack", "server-slack 2025.4.25"), ("charter mcp --pack notion", "notion-mcp-server 2.5.2")):
    a, b = d[ours], d[theirs]
    print(f"{theirs} / {ours}: peak RSS {b['rss_mib'] / a['rss_mib']:.1f}x, spawn->init {b['init_ms'] / a['init_ms']:.1f}x")
floor = d["C floor (hello_mcp.c)"]
over = d["charter mcp --pack slack"]["init_ms"] - floor["init_ms"]
print(f"charter mcp --pack slack over the C floor: spawn->init +{over:.2f} ms (target <= 1 ms: "
      + ("ok" if over <= 1.0 else "MISSED") + ")")
EOF
