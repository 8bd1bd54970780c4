"""Table.values against the library's batch call on the same position texts.

Builds (once) the compressed hex:4 table, draws N random positions of it as texts, then
alternately times, ROUNDS times each:
  - python: `retrodb.open(table).values(texts)` (a freshly opened table; the texts handed over
    from a Python list, the answers returned as a list), and
  - rust: `retrodb bench values TABLE FILE` (a fresh process; the same library call,
    `Table::values_of_texts`, on the same texts, timed around that call only),
and prints the median rates and their ratio. Run from the repository after
`pip install ./python` and `cargo build --release`:

    python python/bench/values.py [--positions 1000000] [--rounds 5] [--work bench-work]
"""

import argparse
import json
import pathlib
import random
import statistics
import subprocess
import time

import retrodb

REPO = pathlib.Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--work", type=pathlib.Path, default=REPO / "bench-work")
    ap.add_argument("--cli", type=pathlib.Path, default=REPO / "target" / "release" / "retrodb")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    table = a.work / "hex4-z.rdb"
    if not table.exists():
        retrodb.build("hex:4", table, compress=True)
    t = retrodb.open(table)
    game, rng = t.game, random.Random(1)
    texts = []
    while len(texts) < a.positions:
        try:
            texts.append(game.text(rng.randrange(game.size)))
        except retrodb.PositionError:
            pass  # an unused index
    file = a.work / f"hex4-texts-{a.positions}.txt"
    file.write_text("\n".join(texts) + "\n")

    py_rates, rust_rates = [], []
    for r in range(a.rounds):
        for side in (("python", "rust") if r % 2 == 0 else ("rust", "python")):
            if side == "python":
                fresh = retrodb.open(table)
                s = time.perf_counter()
                values = fresh.values(texts)
                seconds = time.perf_counter() - s
                assert len(values) == len(texts)
                py_rates.append(len(texts) / seconds)
            else:
                out = subprocess.run([str(a.cli), "bench", "values", str(table), str(file),
                                      "--json"], check=True, capture_output=True, text=True)
                rust_rates.append(json.loads(out.stdout)["per_second"])
    py, rust = statistics.median(py_rates), statistics.median(rust_rates)
    report = {
        "positions": len(texts),
        "rounds": a.rounds,
        "python_per_second": py_rates,
        "rust_per_second": rust_rates,
        "python_median": py,
        "rust_median": rust,
        "ratio_rust_over_python": rust / py,
    }
    if a.json:
        print(json.dumps(report))
    else:
        print(f"hex:4 compressed, {len(texts):,} random positions, {a.rounds} rounds alternating")
        print("python Table.values: " + ", ".join(f"{x / 1e6:.2f}M/s" for x in py_rates))
        print("rust values_of_texts: " + ", ".join(f"{x / 1e6:.2f}M/s" for x in rust_rates))
        print(f"medians: python {py / 1e6:.2f}M/s, rust {rust / 1e6:.2f}M/s, "
              f"rust/python {rust / py:.2f}")


if __name__ == "__main__":
    main()
