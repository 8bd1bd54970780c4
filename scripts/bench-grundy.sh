#!/usr/bin/env bash
# The generalized Sprague-Grundy labelling (`build --grundy`, docs/SUMS.md) against the
# single-token build it extends, then the labelling's stages on graphs with larger values.
#
#   scripts/bench-grundy.sh PEER_DIR [PAIRS]
#
# 1. On the benchmark digraph of scripts/bench-peers.sh (10M vertices, 100M edges, 25% sinks,
#    the peer's own generator `digraph_queue --gen 10000000 100000000 1 OUT 25` from
#    PEER_DIR/digraph_queue.c), runs `retrodb build digraph:G --json` and the same with
#    --grundy alternately, PAIRS times (default 3), with all threads and with one, and prints
#    the medians of wall time and peak memory of the whole command and their ratios.
# 2. Builds with --grundy acyclic graphs, whose values are all finite and larger: the edges of
#    `retrodb gen digraph` graphs (1M vertices, 2M to 40M edges, and the benchmark graph)
#    pointed from the larger id to the smaller, and prints the largest value, the stages, the
#    labelling's time and parent visits, and each stage of the largest graph.
#
# Work files go to $BENCH_WORK (default bench-work/peers, which git ignores); the edge lists are
# generated once and kept (1.6 GB for the benchmark graph, about as much for its acyclic copy).
set -euo pipefail

peers=${1:?usage: scripts/bench-grundy.sh PEER_DIR [PAIRS]}
pairs=${2:-3}
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_WORK:-$root/bench-work/peers}
mkdir -p "$work"
peers=$(cd "$peers" && pwd)

echo "== building retrodb"
cargo build --release --quiet
rdb=$root/target/release/retrodb
edges=$work/digraph-10M-100M-25.txt
if [ ! -f "$edges" ]; then
  gcc -O3 -march=native -o "$work/digraph_queue" "$peers/digraph_queue.c"
  echo "   generating $edges"
  "$work/digraph_queue" --gen 10000000 100000000 1 "$edges.partial" 25
  mv "$edges.partial" "$edges"
fi

# measure LOG CMD...: runs CMD with its stdout to LOG, prints "wall_seconds peak_kib".
measure() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
log, cmd = sys.argv[1], sys.argv[2:]
t = time.monotonic()
with open(log, "w") as out:
    p = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT)
wall = time.monotonic() - t
if p.returncode != 0:
    sys.exit(f"{' '.join(cmd)} failed ({p.returncode}); see {log}")
print(f"{wall:.4f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "== $pairs alternating pairs, the single-token build first; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for t in "$(nproc)" 1; do
  pw=(); pm=(); gw=(); gm=()
  for i in $(seq "$pairs"); do
    read -r w m < <(measure "$work/plain.log" "$rdb" --threads "$t" build "digraph:$edges" --json -o "$work/plain.rdb")
    pw+=("$w"); pm+=("$m")
    read -r w m < <(measure "$work/grundy.log" "$rdb" --threads "$t" build "digraph:$edges" --grundy --json -o "$work/grundy.rdb")
    gw+=("$w"); gm+=("$m")
    echo "   $t thread(s), pair $i: ${pw[-1]} s and ${gw[-1]} s (ratio $(div "${gw[-1]}" "${pw[-1]}")); load $(cut -d' ' -f1 /proc/loadavg)"
  done
  a=$(printf '%s\n' "${pw[@]}" | median); b=$(printf '%s\n' "${gw[@]}" | median)
  echo "   $t thread(s): wall s     single $a   --grundy $b   ratio $(div "$b" "$a")"
  a=$(printf '%s\n' "${pm[@]}" | median); b=$(printf '%s\n' "${gm[@]}" | median)
  echo "   $t thread(s): peak MiB   single $(div "$a" 1024)   --grundy $(div "$b" 1024)   ratio $(div "$b" "$a")"
  python3 - "$work/grundy.log" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
g = j["grundy"]
print(f"   last --grundy run: solve {j['solve_seconds']:.2f} s of which labelling {g['seconds']:.2f} s; "
      f"load {j['load_seconds']:.2f} s; largest {g['largest']}, {g['infinite']:,} infinite, "
      f"{g['reach_sets']} reach sets, {g['stages']} stages, {g['parent_visits']:,} parent visits")
PY
done

echo "== stages against the largest value: acyclic graphs (edges from the larger id to the smaller)"
acyclic() {
  # The edges of $1 pointed downwards (loops dropped), into $2.
  awk '/^#/ {next} $1 > $2 {print $1, $2} $1 < $2 {print $2, $1}' "$1" > "$2.partial"
  mv "$2.partial" "$2"
}
report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
name, log = sys.argv[1], sys.argv[2]
j = json.loads(open(log).read().splitlines()[-1])
g = j["grundy"]
print(f"   {name:<28} largest {g['largest']:>3}  stages {g['stages']:>3}  labelling {g['seconds']:7.2f} s  "
      f"parent visits {g['parent_visits']:>13,} ({g['parent_visits'] / j['edges']:.2f} an edge)  "
      f"solve without it {j['solve_seconds'] - g['seconds']:.2f} s")
PY
}
for e in 2000000 5000000 10000000 20000000 40000000; do
  g=$work/dag-1M-$e.txt
  if [ ! -f "$g" ]; then
    "$rdb" gen digraph --vertices 1000000 --edges "$e" --sinks 0 --seed 1 -o "$work/rand-1M-$e.txt" > /dev/null
    acyclic "$work/rand-1M-$e.txt" "$g"
    rm "$work/rand-1M-$e.txt"
  fi
  "$rdb" build "digraph:$g" --grundy --json -o "$work/dag.rdb" -q > "$work/dag.log"
  report "1M vertices, $((e / 1000000))M edges" "$work/dag.log"
done
dag=$work/dag-10M-100M.txt
[ -f "$dag" ] || acyclic "$edges" "$dag"
"$rdb" build "digraph:$dag" --grundy --json -o "$work/dag.rdb" -q > "$work/dag.log"
report "benchmark graph, acyclic" "$work/dag.log"
python3 - "$work/dag.log" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print("   its stages (stage 0 is the single-token solve):")
print("   value        open    labelled    infinite  parent visits  seconds")
for s in j["grundy"]["per_stage"]:
    print(f"   {s['value']:>5} {s['open']:>11,} {s['labelled']:>11,} {s['infinite']:>11,} {s['parent_visits']:>14,} {s['seconds']:8.2f}")
PY
rm -f "$work/plain.rdb" "$work/grundy.rdb" "$work/dag.rdb"
