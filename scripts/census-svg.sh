#!/usr/bin/env bash
# Pictures of the smallest graphs where the Shannon game's vertex and edge versions differ:
# scripts/census-svg.sh OUTDIR REPORT.json... reads the `crossings` of `retrodb sweep
# shannon-vertex --json` reports (e.g. one of --max-vertices 7 and one each of geng's 8 and 9
# vertices), takes for each pair of differing classes (vertex class, edge class) the smallest
# example with the terminals apart (fewest vertices, then edges, then graph6 text, then
# terminals; adjacent terminals are the vertex game's Short before a move), and draws it with
# `retrodb show shannon-vertex:FILE --svg` (terminals dark) as OUTDIR/vertex-V-edge-E.svg. It
# prints one Markdown table row per picture.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
    echo "usage: scripts/census-svg.sh OUTDIR REPORT.json..." >&2
    exit 2
fi
out="$1"
shift
cargo build --release --quiet
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One line per picture: vertex-class edge-class pairs graph6 a b vertices edges.
python3 - "$@" > "$work/picks.txt" <<'PY'
import json, sys
best, pairs = {}, {}
for path in sys.argv[1:]:
    for c in json.load(open(path))["crossings"]:
        key = (c["vertex"], c["edge"])
        if c["vertex"] == c["edge"]:
            continue
        pairs[key] = pairs.get(key, 0) + c["pairs"]
        e = c["smallest_apart"]
        if e is None:
            continue
        rank = (e["vertices"], e["edges"], e["graph6"], e["a"], e["b"])
        if key not in best or rank < best[key]:
            best[key] = rank
for key in sorted(best):
    v, m, g6, a, b = best[key]
    print(key[0], key[1], pairs[key], g6, a, b, v, m)
PY

# graph6 to the graph file of `shannon-vertex:` (edges u < v, then the terminals).
graph_file() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys
g6, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
n = ord(g6[0]) - 63
bits = "".join(format(ord(c) - 63, "06b") for c in g6[1:])
k = 0
edges = []
for j in range(1, n):
    for i in range(j):
        if bits[k] == "1":
            edges.append((i, j))
        k += 1
for u, v in edges:
    print(u, v)
print("terminals", a, b)
PY
}

echo "| vertex class | edge class | pairs | smallest, terminals apart | picture |"
echo "|---|---|---:|---|---|"
while read -r vc ec pairs g6 a b v m; do
    file="$work/$vc-$ec.txt"
    graph_file "$g6" "$a" "$b" > "$file"
    empty="$(printf '%*s' $((v - 2)) '' | tr ' ' '.')/L"
    svg="$out/vertex-$vc-edge-$ec.svg"
    ./target/release/retrodb show "shannon-vertex:$file" "$empty" --no-value --svg "$svg" > /dev/null
    echo "| $vc | $ec | $pairs | \`\` $g6 \`\` terminals $a, $b ($v vertices, $m edges) | [$(basename "$svg")]($(basename "$out")/$(basename "$svg")) |"
done < "$work/picks.txt"
