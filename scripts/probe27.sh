#!/bin/bash
# The fault probe of issue 27: every subcommand with stdout on /dev/full and into a closed pipe,
# with damaged and hostile inputs; counts exit codes. No run may exit 101 (a panic) or die by a
# signal. Usage: scripts/probe27.sh [RETRODB] (default: target/debug/retrodb).
set -u
R=$(realpath "${1:-target/debug/retrodb}")
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cd "$D"
SEED=$(dirname "$R")/../../data/seed001.txt
cp "$SEED" seed.txt
"$R" build hex:2 -o t.rdb --quiet >/dev/null
"$R" build hex:2 -o tr.rdb --quiet --remoteness >/dev/null
"$R" build hex:2 -o z.rdb --quiet --compress >/dev/null
head -c 3000 t.rdb > cut.rdb
cp t.rdb flip.rdb; printf '\x01' | dd of=flip.rdb bs=1 seek=4100 conv=notrunc status=none
printf '0 1\n1 %s\n' "$(head -c 200000 /dev/zero | tr '\0' 7)" > long.txt
cmds=(
  "info t.rdb" "info t.rdb --json" "info z.rdb" "info cut.rdb" "verify t.rdb --quiet"
  "verify flip.rdb --quiet" "dump t.rdb" "dump z.rdb" "dump flip.rdb" "probe t.rdb ...."
  "probe tr.rdb .... --json" "probe flip.rdb ...." "show hex:2 L..." "show hex:3 ........."
  "values hex:2" "values hex:2 --json" "build hex:2 -o o.rdb --quiet" "build hex:2 -o o.rdb"
  "build hex:2 -o o.rdb --json --quiet" "build hex:2 -o o.rdb --compress --quiet"
  "build digraph:seed.txt -o seed.txt" "build digraph:long.txt -o l.rdb"
  "build digraph:/dev/zero -o l.rdb" "build hex:2,start=L,sym,sym"
  "compress t.rdb c.rdb --quiet" "compress cut.rdb c.rdb" "decompress z.rdb d.rdb --quiet"
  "gen digraph --vertices 10 --edges 20 -o g.txt" "sweep shannon --max-vertices 3"
  "sweep shannon --max-vertices 3 --json" "research bridgit --size 1 --table r.rdb"
  "research bridgit --size 2 --table r2.rdb --json" "demo --dir demo" "play hex:2 --table tr.rdb"
  "--version" "help" "build --help" "info"
)
declare -A count
runs=0
for c in "${cmds[@]}"; do
  for sink in full pipe stderr-full both-full; do
    case $sink in
      full) $R $c >/dev/full 2>err </dev/null; code=$? ;;
      pipe) { $R $c 2>err </dev/null; echo $? >code; } | true; code=$(cat code) ;;
      stderr-full) $R $c >/dev/null 2>/dev/full </dev/null; code=$?; : >err ;;
      both-full) $R $c >/dev/full 2>/dev/full </dev/null; code=$?; : >err ;;
    esac
    runs=$((runs + 1))
    count[$code]=$(( ${count[$code]:-0} + 1 ))
    if [ "$code" -ge 100 ] || grep -q panicked err; then
      echo "BAD: retrodb $c ($sink): exit $code: $(head -c 300 err)"
    fi
  done
done
printf 'runs %d;' "$runs"
for k in "${!count[@]}"; do printf ' exit %s: %d;' "$k" "${count[$k]}"; done
echo
