#!/usr/bin/env bash
# For each game: build its raw table, compress it, check the compressed table answers exactly as
# the raw one (decompress must give back the raw file byte for byte: every position's value goes
# through the compressed lookup path), then print raw size, compressed size, bits per position,
# probe latencies (hot, cold, batch) and the median time of `probe` in a fresh process on a cold
# block. REMOTENESS=1 builds the tables with remoteness.
#
#   scripts/bench-tables.sh [GAME...]        (default: hex:4 bridgit:3 and the data/ examples)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN=$PWD/target/release/retrodb
DIR=${TMPDIR:-/tmp}/retrodb-tables
mkdir -p "$DIR"
if [ $# -eq 0 ]; then
  set -- hex:4 bridgit:3 digraph:data/seed001.txt shannon:data/shannon/k4.txt hackenbush:data/hackenbush-house.txt
fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(uname -m), $(date -u +%Y-%m-%d)"
printf '%-28s %12s %12s %10s %10s %10s %12s %12s %14s\n' game positions raw zstd bits/pos hot_ns cold_us batch_M/s fresh_probe_ms
for GAME in "$@"; do
  NAME=$(echo "$GAME" | tr ':/' '__')
  RAW="$DIR/$NAME.rdb"; Z="$DIR/$NAME.z.rdb"; BACK="$DIR/$NAME.back.rdb"
  "$BIN" build "$GAME" -o "$RAW" --quiet ${REMOTENESS:+--remoteness} > /dev/null
  "$BIN" compress "$RAW" "$Z" --quiet > /dev/null
  "$BIN" decompress "$Z" "$BACK" --quiet > /dev/null
  cmp -s "$RAW" "$BACK" || { echo "$GAME: the compressed table does not answer as the raw one" >&2; exit 1; }
  "$BIN" bench probe "$Z" --json --samples 20000 > "$DIR/$NAME.probe.json"
  python3 - "$BIN" "$GAME" "$RAW" "$Z" "$DIR/$NAME.probe.json" <<'PY'
import json, os, subprocess, sys, time
bin_, game, raw, z, probe = sys.argv[1:]
p = json.load(open(probe))
# A fresh process per probe: open, check the header, decode one frame, answer.
times = []
for pos in p["sample_positions"]:
    s = time.perf_counter()
    subprocess.run([bin_, "probe", z, pos], capture_output=True, check=True)
    times.append((time.perf_counter() - s) * 1000)
times.sort()
print(f"{game:<28} {p['positions']:>12} {os.path.getsize(raw):>12} {os.path.getsize(z):>10} "
      f"{p['bits_per_position']:>10.3f} {p['hot_value_ns']:>10.0f} {p['cold_value_ns']/1000:>12.1f} "
      f"{p['batch_per_second']/1e6:>12.2f} {times[len(times)//2]:>14.2f}")
PY
done
