#!/usr/bin/env bash
# `retrodb serve` under 200 concurrent clients on 127.0.0.1 (benches/serve_load/stress.rs):
# single lookups, value lookups (value=true), batches, stalled readers that never read their
# answer, clients that send their headers a line a second. It prints the server's peak memory
# (from /proc/PID/status), /health's latency throughout (median, 99th percentile), the time
# SIGTERM takes with the clients still at work, and the panics in the server's stderr; it
# fails when the server panicked, did not exit 0 within 10 s, or left /health unanswered.
#
#   scripts/serve-stress.sh                          # hex:4, built with --compress into target/serve-stress/
#   scripts/serve-stress.sh 'hex:5,start=L,sym'      # another spec, built with --compress
#   scripts/serve-stress.sh path/to/table.rdb        # a table as it is
#   SECS=120 scripts/serve-stress.sh                 # longer (default 60 s)
#   SERVER_ARGS='--max-value-requests 2' scripts/serve-stress.sh
#
# Value lookups need a table with game values (a cell game's full table, Hackenbush); when the
# table has none, hex:4 --compress is served beside it for them. The stalled readers hold
# their connection 15 s; the server is given --write-timeout 10 (unless SERVER_ARGS says
# otherwise) so that it cuts them within the run.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-hex:4}
dir=target/serve-stress
mkdir -p "$dir"
cargo build --release --quiet --bin retrodb
bin=target/release/retrodb
# A spec's compressed table in $dir, built once.
table_of() {
  local out="$dir/$(printf '%s' "$1" | tr -c 'A-Za-z0-9' '_').rdb"
  if [ ! -f "$out" ]; then
    echo "building $1 --compress into $out ..." >&2
    "$bin" build "$1" --compress --quiet -o "$out" >&2
  fi
  printf '%s\n' "$out"
}
if [ -f "$what" ]; then table=$what; else table=$(table_of "$what"); fi
STRESS_TABLE="$table" \
STRESS_VALUE_TABLE="$(table_of hex:4)" \
STRESS_SECS="${SECS:-60}" \
STRESS_SERVER_ARGS="${SERVER_ARGS:---write-timeout 10}" \
  cargo bench --quiet --bench serve_load -- stress
