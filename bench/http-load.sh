#!/usr/bin/env bash
# Load test of `charter mcp --http` on loopback (release build): SESSIONS concurrent MCP sessions
# (1000) making CALLS tool calls each (20), ROUNDS times (3), against a 127.0.0.1 API stub, with
# the server's limits on (its defaults; SERVER_FLAGS adds flags). Prints, per round: ramp-up,
# calls/s, p50/p99 latency, lost and mixed-up answers (each call must get its own input back), and
# the server's RSS with the sessions open and SETTLE_SECS (80) after they closed. Bounded by
# DEADLINE_SECS (600).
#
#   bench/http-load.sh
#   SESSIONS=200 CALLS=50 bench/http-load.sh
#   PROFILE=dev bench/http-load.sh     # unoptimised build, quicker to build, slower to run
#   CHARTER=path/to/charter bench/http-load.sh   # a binary already built (two side by side)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROFILE="${PROFILE:-release}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
dir="$PROFILE"; [ "$PROFILE" = dev ] && dir=debug

# Each session holds up to two connections on each side (its POSTs and its event stream).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
need=$(( ${SESSIONS:-1000} * 4 + 256 ))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
  echo "ulimit -n is $(ulimit -n); $need file descriptors are needed: lower SESSIONS or raise the hard limit" >&2
  exit 1
fi

CHARTER="${CHARTER:-}"
if [ -n "$CHARTER" ]; then
  echo "building the load driver ($PROFILE)..." >&2
  cargo build --profile "$PROFILE" --quiet -p charter-cli --features shipped-packs \
    --example http_load --manifest-path "$ROOT/Cargo.toml"
else
  echo "building charter and the load driver ($PROFILE)..." >&2
  cargo build --profile "$PROFILE" --quiet -p charter-cli --features shipped-packs \
    --bin charter --example http_load --manifest-path "$ROOT/Cargo.toml"
  CHARTER="$CARGO_TARGET_DIR/$dir/charter"
fi
CHARTER_BIN="$CHARTER" exec "$CARGO_TARGET_DIR/$dir/examples/http_load"
