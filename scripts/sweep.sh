#!/usr/bin/env bash
# The Shannon sweep to K vertices (scripts/sweep.sh K; default 7): every connected graph on 1..K
# vertices, every terminal pair up to automorphism, every position of the tables of graphs with at
# most 12 edges, 10,000 random positions of each larger table and the empty position's class of
# all, against Lehman's criterion. Release build; exits non-zero on any disagreement. The report
# (text and JSON, the wall time and peak memory) goes to target/sweepK/.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
k="${1:-7}"
out="target/sweep$k"
mkdir -p "$out"

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "memory: $(free -h | awk '/^Mem:/ {print $2}')"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
} | tee "$out/machine.txt"

status=0
/usr/bin/time -f "wall %e s, peak RSS %M KB" -o "$out/time.txt" \
    ./target/release/retrodb sweep shannon --max-vertices "$k" --all-positions-max-edges 12 \
    --random-positions 10000 --json > "$out/sweep$k.json" || status=$?
cat "$out/time.txt"

# The counts table, from the JSON (one run, two views).
python3 - "$out/sweep$k.json" <<'PY' | tee "$out/sweep$k.txt"
import json, sys
r = json.load(open(sys.argv[1]))
cols = ["vertices", "graphs", "terminal_pairs", "short", "cut", "first", "positions_checked", "disagreements"]
print("| " + " | ".join(c.replace("_", " ") for c in cols) + " |")
print("|" + "---:|" * len(cols))
for row in r["rows"] + [dict(r["total"], vertices="all")]:
    print("| " + " | ".join(f"{row[c]:,}" if isinstance(row[c], int) else str(row[c]) for c in cols) + " |")
print(f"\n{r['seconds']:.1f} s; every position compared up to {r['all_positions_max_edges']} edges")
for p in r["disagreeing"]:
    print("DISAGREEMENT", p)
PY
exit "$status"
