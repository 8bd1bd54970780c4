#!/usr/bin/env bash
# retrodb against the plain C peer programs, on the same work, in one run.
#
#   scripts/bench-peers.sh [PEER_DIR] [PAIRS]
#   scripts/bench-peers.sh PAIRS
#
# PEER_DIR (relative to the repository's root) defaults to benches/peers, the peers that ship
# with retrodb (benches/peers/README.md; the integration tests check their answers against
# retrodb's). Compiles the peers found in PEER_DIR (hex_peer.c, plain and -DREMOTENESS;
# digraph_queue.c) with their documented flags, builds retrodb in release mode, then runs
# retrodb and the peer alternately on each case, PAIRS times (default 5), and prints the medians
# of wall time and peak memory and the retrodb/peer ratios (below 1: retrodb is faster or
# smaller). Cases:
#
#   hex4        retrodb build hex:4 (values) against hex_peer 4 OUT, 1 and 2 threads
#   hex4-rem    the same with --remoteness against hex_peer built with -DREMOTENESS
#   digraph     10M vertices, 100M edges, 25% sinks (the peer's own generator): retrodb's whole
#               command with all threads against the peer's; retrodb's one-thread solve time
#               (its --json solve_seconds) against the peer's queue loop (its printed solve time)
#
# Work files go to $BENCH_WORK (default bench-work/peers, which git ignores); the edge list (over
# a gigabyte) is generated once per version of the generator and kept. CASES="hex4 hex4-rem"
# runs a subset. CI does not run this: docs/BENCHMARKS.md keeps its output.
set -euo pipefail

case ${1:-} in
  -h | --help) echo "usage: scripts/bench-peers.sh [PEER_DIR] [PAIRS]"; exit 0 ;;
  *[!0-9]* | '') ;;
  *) set -- benches/peers "$1" ;; # a number alone is PAIRS
esac
peer_dir=${1:-benches/peers}
pairs=${2:-5}
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_WORK:-$root/bench-work/peers}
cases=${CASES:-hex4 hex4-rem digraph}
mkdir -p "$work"
peers=$(cd "$peer_dir" && pwd) || { echo "no peer directory $peer_dir" >&2; exit 2; }

echo "== building retrodb and the peers"
cargo build --release --quiet
rdb=$root/target/release/retrodb
have() { [ -f "$peers/$1" ]; }
if have hex_peer.c; then
  gcc -O3 -march=native -fopenmp -o "$work/hex_peer" "$peers/hex_peer.c"
  gcc -O3 -march=native -fopenmp -DREMOTENESS -o "$work/hex_peer_rem" "$peers/hex_peer.c"
fi
if have digraph_queue.c; then
  gcc -O3 -march=native -o "$work/digraph_queue" "$peers/digraph_queue.c"
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

div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# pair NAME RETRODB_CMD -- PEER_CMD: PAIRS alternating runs, then one result line per figure.
# Extra figures: RDB_SOLVE and PEER_SOLVE, if set, are commands that read a solve time from the
# run's log ($log).
results=()
pair() {
  local name=$1; shift
  local rcmd=() pcmd=()
  while [ "$1" != "--" ]; do rcmd+=("$1"); shift; done
  shift
  pcmd=("$@")
  local rw=() rm=() pw=() pm=() rs=() ps=()
  for i in $(seq "$pairs"); do
    read -r w m < <(measure "$work/r.log" "${rcmd[@]}")
    rw+=("$w"); rm+=("$m")
    if [ -n "${RDB_SOLVE:-}" ]; then rs+=("$(log=$work/r.log; eval "$RDB_SOLVE")"); fi
    read -r w m < <(measure "$work/p.log" "${pcmd[@]}")
    pw+=("$w"); pm+=("$m")
    if [ -n "${PEER_SOLVE:-}" ]; then ps+=("$(log=$work/p.log; eval "$PEER_SOLVE")"); fi
  done
  local a b
  a=$(printf '%s\n' "${rw[@]}" | median); b=$(printf '%s\n' "${pw[@]}" | median)
  results+=("$(printf '%-28s %-10s %10.3f %10.3f %8.2f' "$name" "wall s" "$a" "$b" "$(div "$a" "$b")")")
  a=$(printf '%s\n' "${rm[@]}" | median); b=$(printf '%s\n' "${pm[@]}" | median)
  results+=("$(printf '%-28s %-10s %10.1f %10.1f %8.2f' "$name" "peak MiB" "$(div "$a" 1024)" "$(div "$b" 1024)" "$(div "$a" "$b")")")
  if [ ${#rs[@]} -gt 0 ] && [ ${#ps[@]} -gt 0 ]; then
    a=$(printf '%s\n' "${rs[@]}" | median); b=$(printf '%s\n' "${ps[@]}" | median)
    results+=("$(printf '%-28s %-10s %10.3f %10.3f %8.2f' "$name" "solve s" "$a" "$b" "$(div "$a" "$b")")")
  fi
  echo "   $name: done ($pairs pairs)"
}

json_solve='python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])[\"solve_seconds\"])" "$log"'

echo "== $pairs alternating pairs per case, retrodb first; $(nproc) cores"
for c in $cases; do
  case $c in
    hex4 | hex4-rem)
      have hex_peer.c || { echo "   $c: no hex_peer.c in $peers, skipped"; continue; }
      flag=(); peer=$work/hex_peer
      if [ "$c" = hex4-rem ]; then flag=(--remoteness); peer=$work/hex_peer_rem; fi
      for t in 1 2; do
        RDB_SOLVE=$json_solve PEER_SOLVE="sed -n 's/.*solve \\([0-9.]*\\)s.*/\\1/p' \"\$log\"" \
          pair "$c, $t thread(s)" \
          "$rdb" --threads "$t" build hex:4 "${flag[@]}" --json -o "$work/hex4.rdb" -- \
          env OMP_NUM_THREADS="$t" "$peer" 4 "$work/hex4.peer"
      done
      ;;
    digraph)
      have digraph_queue.c || { echo "   $c: no digraph_queue.c in $peers, skipped"; continue; }
      # One edge list per generator: its name carries the checksum of the peer's source.
      edges=$work/digraph-10M-100M-25-$(cksum <"$peers/digraph_queue.c" | cut -d' ' -f1).txt
      if [ ! -f "$edges" ]; then
        echo "   generating $edges"
        "$work/digraph_queue" --gen 10000000 100000000 1 "$edges.partial" 25
        mv "$edges.partial" "$edges"
      fi
      RDB_SOLVE=$json_solve PEER_SOLVE="sed -n 's/.*solve \\([0-9.]*\\)s.*/\\1/p' \"\$log\"" \
        pair "digraph, retrodb 1 thread" \
        "$rdb" --threads 1 build "digraph:$edges" --json -o "$work/digraph.rdb" -- \
        "$work/digraph_queue" "$edges"
      RDB_SOLVE= PEER_SOLVE= \
        pair "digraph, retrodb $(nproc) threads" \
        "$rdb" build "digraph:$edges" --json -o "$work/digraph.rdb" -- \
        "$work/digraph_queue" "$edges"
      ;;
    *) echo "unknown case $c (cases: hex4 hex4-rem digraph)" >&2; exit 2 ;;
  esac
done

echo
echo "retrodb $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), $(date -u +%Y-%m-%d), medians of $pairs alternating pairs"
printf '%-28s %-10s %10s %10s %8s\n' case figure retrodb peer ratio
printf '%s\n' "${results[@]}"
rm -f "$work/hex4.rdb" "$work/hex4.peer" "$work/hex4.peer.rem" "$work/digraph.rdb" "$work/r.log" "$work/p.log"
