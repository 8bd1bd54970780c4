#!/usr/bin/env bash
# The row kernel against the plain bit-parallel kernel, measured alternately in one run (the
# ratios of the "25-cell tables in minutes" work, docs/BENCHMARKS.md "The bit-parallel row
# kernel"):
#
#   1. wall time of `build bridgit:4,start=L,sym --tiers 1` (the first key tier, 197,292,524
#      positions through the row kernel) against `build shannon:data/shannon/grid3x4.txt`
#      (774,840,978 positions through the plain kernel), both with two threads;
#   2. solve seconds (`build --json`) of `hex:4,start=L,sym` against `hex:4`, one thread.
#
# BIN=path/to/retrodb measures another binary (the previous commit's, say); ROUNDS=N (default 5)
# rounds, each running every command once in turn; the medians and their ratios are printed.
#
#   scripts/bench-kernels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/retrodb
fi
ROUNDS=${ROUNDS:-5}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/retrodb-kernels.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ); $ROUNDS rounds; $("$BIN" --version)"
wall() {
  local s e
  s=$(date +%s%N)
  "$BIN" "$@" --quiet > /dev/null 2>&1
  e=$(date +%s%N)
  awk -v ns=$((e - s)) 'BEGIN { printf "%.3f", ns / 1e9 }'
}
solve() {
  "$BIN" "$@" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["solve_seconds"])'
}
: > "$DIR/times"
for r in $(seq "$ROUNDS"); do
  rm -f "$DIR"/.b* "$DIR"/*.rdb
  echo "rows_tier1 $(wall build bridgit:4,start=L,sym --tiers 1 -o "$DIR/b.rdb" --threads 2)" >> "$DIR/times"
  rm -f "$DIR"/.b* "$DIR"/*.rdb
  echo "plain_grid3x4 $(wall build shannon:data/shannon/grid3x4.txt -o "$DIR/g.rdb" --threads 2)" >> "$DIR/times"
  rm -f "$DIR"/*.rdb
  echo "sym_hex4 $(solve build hex:4,start=L,sym -o "$DIR/s.rdb" --threads 1)" >> "$DIR/times"
  rm -f "$DIR"/*.rdb
  echo "plain_hex4 $(solve build hex:4 -o "$DIR/p.rdb" --threads 1)" >> "$DIR/times"
done
python3 - "$DIR/times" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    t.setdefault(k, []).append(float(v))
m = {k: statistics.median(v) for k, v in t.items()}
for k, v in t.items():
    print(f"{k:<14} median {m[k]:8.3f} s   runs {' '.join(f'{x:.3f}' for x in v)}")
print(f"bridgit:4,start=L,sym --tiers 1 / grid3x4 (wall, 2 threads): {m['rows_tier1'] / m['plain_grid3x4']:.2f}x")
print(f"hex:4,start=L,sym / hex:4 (solve, 1 thread): {m['sym_hex4'] / m['plain_hex4']:.2f}x")
PY
