#!/usr/bin/env bash
# Builds the cell-game tables too large for the debug-mode tests (hex:4, 86M positions) and
# bridgit:3 with one and with two threads in one run, checks the published Hex 4x4 fact (exactly
# the four short-diagonal cells win as first moves) and prints the measurements as Markdown rows
# for docs/BENCHMARKS.md.
#
# Usage: scripts/cell-games.sh [OUTPUT_DIR]   (default: a temporary directory, removed after)
set -euo pipefail

cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/retrodb

out=${1:-}
if [[ -z "$out" ]]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "date: $(date -u +%Y-%m-%d)"
echo
echo "| game | positions | threads | solve s | positions/s | edges/s | file | peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for spec in bridgit:3 hex:4; do
    for threads in 1 2; do
        table="$out/${spec/:/-}-t$threads.rdb"
        json=$("$bin" --threads "$threads" build "$spec" -o "$table" --quiet --json)
        python3 - "$spec" "$threads" "$json" <<'PY'
import json, sys
spec, threads, s = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
secs = s["solve_seconds"]
mib = lambda b: f"{b / 2**20:.1f} MiB"
print(f"| {spec} | {s['positions']:,} | {threads} | {secs:.2f} | {s['positions'] / secs / 1e6:.2f}M | "
      f"{s['edges'] / secs / 1e6:.2f}M | {mib(s['file_bytes'])} | {mib(s['peak_rss_bytes'])} |")
PY
    done
done
echo

# The tables of one game must not depend on the thread count (headers hold no timings, so the
# whole files must agree).
for spec in bridgit-3 hex-4; do
    if ! cmp -s "$out/$spec-t1.rdb" "$out/$spec-t2.rdb"; then
        echo "FAIL: $spec tables differ between 1 and 2 threads" >&2
        exit 1
    fi
done

"$bin" probe "$out/hex-4-t2.rdb" "................" --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
wins = sorted(m["move"] for m in a["moves"] if m["value"] == "loss")
print("hex:4 empty board:", a["value"], "- winning first moves:", " ".join(wins))
want = ["12(3,0)", "3(0,3)", "6(1,2)", "9(2,1)"]
if a["value"] != "win" or wins != want:
    sys.exit(f"FAIL: expected exactly {want}")
'
"$bin" verify "$out/bridgit-3-t2.rdb" --quiet
