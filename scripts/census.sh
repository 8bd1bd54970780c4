#!/usr/bin/env bash
# The vertex census of every connected graph on N vertices, in MOD pieces:
#
#   scripts/census.sh N MOD [DIR]        (DIR: default docs/census/vertexN/pieces)
#
# Piece RES is `nauty-geng -cq N RES/MOD` checked by `retrodb sweep shannon-vertex --piece
# RES/MOD`, whose results go to DIR/piece-RES-of-MOD.json (RES and MOD zero-padded to the same
# width). A piece whose file exists is finished and skipped, so the script can be stopped at any
# time (Ctrl-C, a lost session) and run again to go on; the piece that was running starts over.
# The existing piece files are checked first (`--merge DIR --partial`): a damaged one stops the
# script, naming it (delete it to run that piece again). Each finished piece appends its time to
# DIR/times.tsv (wall, user and system seconds, peak memory, from /usr/bin/time). When every
# piece is done, the merged census goes to DIR/../census.json and DIR/../census.txt.
#
# Environment: RETRODB, the binary (default: a release build made here, told the commit it was
# built from, which every piece file records); GENG, nauty's geng (default nauty-geng, else geng);
# LIST_DIR, where to write each piece's --list (default: none; each piece file records its list's
# line count and xxh3 either way); CENSUS_ARGS, more options for every piece (they must be the
# same for every piece of a census: the merge refuses pieces run with other options).
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: scripts/census.sh N MOD [DIR]" >&2
    exit 2
fi
n="$1"
mod="$2"
case "$n$mod" in
    *[!0-9]*) echo "census.sh: N and MOD must be numbers, got '$n' and '$mod'" >&2; exit 2 ;;
esac
if [ "$mod" -lt 1 ]; then
    echo "census.sh: MOD must be at least 1" >&2
    exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${3:-$root/docs/census/vertex$n/pieces}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

if [ -z "${RETRODB:-}" ]; then
    commit="$(git -C "$root" describe --always --dirty --abbrev=10 2>/dev/null || echo unknown)"
    (cd "$root" && RETRODB_COMMIT="$commit" cargo build --release --quiet --bin retrodb)
    RETRODB="$root/target/release/retrodb"
fi
# A relative RETRODB (./target/release/retrodb) still names the binary after the merge's cd.
case "$RETRODB" in
    */*) [ "${RETRODB#/}" = "$RETRODB" ] && RETRODB="$PWD/$RETRODB" ;;
esac
GENG="${GENG:-$(command -v nauty-geng || command -v geng || true)}"
if [ -z "$GENG" ]; then
    echo "census.sh: nauty's geng is not installed (Debian: apt-get install nauty)" >&2
    exit 1
fi
read -r -a extra <<< "${CENSUS_ARGS:-}"

width=${#mod}
name() { printf 'piece-%0*d-of-%0*d.json' "$width" "$1" "$width" "$mod"; }

# The pieces already there must read back whole, with their checksums.
if compgen -G "$dir/*.json" > /dev/null; then
    "$RETRODB" sweep shannon-vertex --merge "$dir" --partial > /dev/null
fi

if [ ! -e "$dir/times.tsv" ]; then
    printf 'piece\twall_s\tuser_s\tsys_s\tmax_rss_kb\n' > "$dir/times.tsv"
fi

done_before=0
for ((res = 0; res < mod; res++)); do
    out="$dir/$(name "$res")"
    if [ -e "$out" ]; then
        done_before=$((done_before + 1))
        continue
    fi
    list=()
    if [ -n "${LIST_DIR:-}" ]; then
        mkdir -p "$LIST_DIR"
        list=(--list "$LIST_DIR/list-$(name "$res" | sed 's/\.json$/.txt/')")
    fi
    echo "census.sh: piece $res/$mod of the graphs on $n vertices ($(date -u '+%H:%M:%S UTC'))"
    times="$(mktemp)"
    timed=()
    if [ -x /usr/bin/time ]; then
        timed=(/usr/bin/time -f $'%e\t%U\t%S\t%M' -o "$times")
    else
        printf -- '-\t-\t-\t-\n' > "$times"
    fi
    "$GENG" -cq "$n" "$res/$mod" \
        | "${timed[@]}" "$RETRODB" sweep shannon-vertex --graph6 - --piece "$res/$mod" \
            --out "$out" "${list[@]}" "${extra[@]}" > /dev/null
    printf '%s\t%s\n' "$res/$mod" "$(tail -n 1 "$times")" >> "$dir/times.tsv"
    rm -f "$times"
done
echo "census.sh: all $mod pieces done ($done_before were done before this run)"

# The merge exits non-zero when a piece recorded a disagreement; its report is written anyway.
# It runs from DIR's parent and names DIR by its own name, so that census.json names the piece
# files relative to it (the same on every machine), not by this machine's paths.
status=0
parent="$(dirname "$dir")"
base="$(basename "$dir")"
(cd "$parent" && "$RETRODB" sweep shannon-vertex --merge "$base" --json > census.json) || status=$?
(cd "$parent" && "$RETRODB" sweep shannon-vertex --merge "$base" > census.txt) || status=$?
cat "$parent/census.txt"
exit "$status"
