#!/usr/bin/env bash
# Builds the table of a random digraph (default 10M vertices, 100M edges) with 1 thread and with
# all threads, in one run, and prints edges/s, positions/s, peak memory and the speedup.
# SINKS is the fraction of vertices without a move (0: uniform edges, nearly every position a
# draw; 0.25: every position decided in about ten rounds, every edge walked backwards).
#
#   scripts/bench-digraph.sh [VERTICES] [EDGES] [SINKS] [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
V=${1:-10000000}
E=${2:-100000000}
SINKS=${3:-0}
DIR=${4:-${TMPDIR:-/tmp}/retrodb-bench}
mkdir -p "$DIR"
cargo build --release --quiet
BIN=target/release/retrodb
GRAPH="$DIR/random-$V-$E-$SINKS.txt"
if [ ! -f "$GRAPH" ]; then
  echo "generating $GRAPH ..." >&2
  $BIN gen digraph --vertices "$V" --edges "$E" --sinks "$SINKS" --seed 1 -o "$GRAPH" >&2
fi
ALL=$(nproc)
echo "graph: $V vertices, $E edges, sinks $SINKS"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(uname -m), $(date -u +%Y-%m-%d)"
for T in 1 "$ALL"; do
  $BIN build "digraph:$GRAPH" -o "$DIR/random.rdb" --threads "$T" --quiet --json > "$DIR/build-$T.json"
done
python3 - "$DIR" "$ALL" <<'PY'
import json, sys
d, all_t = sys.argv[1], sys.argv[2]
rows = {}
for t in ("1", all_t):
    j = json.load(open(f"{d}/build-{t}.json"))
    rows[t] = j
    peak = j["peak_rss_bytes"]
    s = j["solve_seconds"]
    c = j["counts"]
    print(f"threads {t}: {c[1]} win, {c[2]} loss, {c[3]} draw, {j['rounds']} rounds")
    print(f"threads {t}: solve {s:.2f} s, {j['edges']/s/1e6:.1f}M edges/s, "
          f"{j['positions']/s/1e6:.2f}M positions/s, {j['parent_visits']/s/1e6:.1f}M parent visits/s; "
          f"graph load {j['load_seconds']:.1f} s, table build {j['total_seconds']:.1f} s, peak memory {peak/2**30:.2f} GiB "
          f"({peak/j['positions']:.1f} bytes/position)")
r = rows["1"]["solve_seconds"] / rows[all_t]["solve_seconds"]
print(f"speedup 1 -> {all_t} threads (solve): {r:.2f}x")
PY
