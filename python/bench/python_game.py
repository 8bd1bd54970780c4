"""A game written in Python, built by retrodb, against a per-position pure-Python retrograde
solver of the same game (docs/BENCHMARKS.md, "Games written in Python").

The game: three heaps of 0..H tokens, a move takes 1, 2 or 3 tokens from one heap, the player
who cannot move loses; a position is lost exactly where the heaps modulo 4 XOR to 0, which both
solvers' answers are checked against.

    python python/bench/python_game.py [H_BIG] [H_SMALL] [PAIRS]

builds H_BIG (default 271: 20,123,648 positions) with retrodb once, then runs retrodb and the
pure-Python solver alternately PAIRS times (default 3) on H_SMALL (default 63: 262,144
positions), and prints wall times and positions a second."""

import collections
import os
import sys
import tempfile
import time

import numpy as np

import retrodb


class Heaps:
    def __init__(self, h):
        self.h, self.name, self.size = h, f"heaps-{h}", (h + 1) ** 3

    def heaps(self, p):
        b = self.h + 1
        return p // (b * b), (p // b) % b, p % b

    def status(self, positions):
        a, b, c = self.heaps(positions)
        return np.where(a + b + c == 0, retrodb.LOSS, retrodb.OPEN).astype(np.uint8)

    def children(self, positions):
        b = self.h + 1
        p = positions.astype(np.int64)
        kids = np.stack([np.where(heap >= t, p - t * w, -1)
                         for heap, w in zip(self.heaps(p), (b * b, b, 1)) for t in (1, 2, 3)],
                        axis=1)
        ok = kids >= 0
        return ok.sum(axis=1).astype(np.uint32), kids[ok].astype(np.uint64)


def lost_closed_form(game):
    a, b, c = game.heaps(np.arange(game.size))
    return ((a % 4) ^ (b % 4) ^ (c % 4)) == 0


def pure_python(h):
    """Retrograde analysis a position at a time: children, parents, counters, a queue."""
    b = h + 1
    size = b ** 3

    def children(p):
        x, y, z = p // (b * b), (p // b) % b, p % b
        out = []
        for heap, w in ((x, b * b), (y, b), (z, 1)):
            for t in (1, 2, 3):
                if heap >= t:
                    out.append(p - t * w)
        return out

    parents = [[] for _ in range(size)]
    left = [0] * size
    value = [None] * size
    queue = collections.deque()
    for p in range(size):
        kids = children(p)
        left[p] = len(kids)
        for c in kids:
            parents[c].append(p)
        if not kids:
            value[p] = "loss"
            queue.append(p)
    while queue:
        c = queue.popleft()
        for p in parents[c]:
            if value[p] is not None:
                continue
            if value[c] == "loss":
                value[p] = "win"
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    value[p] = "loss"
                    queue.append(p)
    return value


def with_retrodb(game, path):
    started = time.perf_counter()
    retrodb.build(game, path, progress=False)
    seconds = time.perf_counter() - started
    t = retrodb.open(path)
    values = t.values([str(i) for i in range(min(game.size, 200_000))])
    want = lost_closed_form(game)[: len(values)]
    assert values == ["loss" if x else "win" for x in want], "retrodb disagrees"
    return seconds


def main():
    big, small = (int(a) for a in (sys.argv[1:3] + ["271", "63"][len(sys.argv[1:3]):]))
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with tempfile.TemporaryDirectory() as d:
        g = Heaps(big)
        s = with_retrodb(g, os.path.join(d, "big.rdb"))
        print(f"retrodb, {g.name}: {g.size:,} positions in {s:.1f} s "
              f"({g.size / s / 1e6:.2f}M positions/s)")
        g = Heaps(small)
        want = ["loss" if x else "win" for x in lost_closed_form(g)]
        for i in range(pairs):
            s = with_retrodb(g, os.path.join(d, f"small{i}.rdb"))
            started = time.perf_counter()
            assert pure_python(small) == want, "the pure-Python solver disagrees"
            p = time.perf_counter() - started
            print(f"{g.name}, {g.size:,} positions: retrodb {s:.2f} s "
                  f"({g.size / s / 1e6:.2f}M/s), pure Python {p:.2f} s "
                  f"({g.size / p / 1e3:.0f}k/s): {p / s:.0f}x")


if __name__ == "__main__":
    main()
