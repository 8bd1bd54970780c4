"""A game written in Python, solved by retrodb: the token game on a random directed graph (a
position is the vertex holding the token, a move follows an out-edge, the player who cannot
move loses), which has cycles and so draws. Run: python docs/examples/python_game.py OUT.rdb"""

import sys

import numpy as np

import retrodb


class Token:
    """The protocol: `name`, `size` (positions are 0..size-1) and two callbacks that answer a
    whole NumPy array of positions at once."""

    def __init__(self, n, m, seed=1):
        edges = np.random.default_rng(seed).integers(0, n, size=(m, 2))
        edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
        self.name, self.size = f"token-{n}-{m}-{seed}", n
        self.deg = np.bincount(edges[:, 0], minlength=n).astype(np.uint32)
        self.off = np.concatenate(([0], np.cumsum(self.deg))).astype(np.uint64)
        self.to = edges[:, 1].astype(np.uint64)
        touched = np.zeros(n, bool)
        touched[edges.ravel()] = True
        # Status for the player to move: open, or over (a vertex with no way out is lost).
        self.codes = np.where(self.deg > 0, retrodb.OPEN, retrodb.LOSS).astype(np.uint8)
        self.codes[~touched] = retrodb.UNUSED  # no edge touches it: no position

    def status(self, positions):
        """uint8 codes: retrodb.OPEN, WIN, LOSS, DRAW (over) or UNUSED, one a position."""
        return self.codes[positions]

    def children(self, positions):
        """For open positions: how many children each has (uint32) and all of them, in the
        same order, concatenated (uint64)."""
        counts = self.deg[positions]
        starts = np.repeat(self.off[positions], counts)
        first = np.repeat(np.cumsum(counts, dtype=np.uint64) - counts, counts)
        return counts, self.to[starts + np.arange(counts.sum(), dtype=np.uint64) - first]


def main(out):
    game = Token(n=1_000_000, m=3_000_000)
    summary = retrodb.build(game, out, remoteness=True)
    unused, win, loss, draw = summary["counts"]
    print(f"{summary['spec']}: {win:,} won, {loss:,} lost, {draw:,} drawn, "
          f"solved in {summary['solve_seconds']:.2f} s")
    t = retrodb.open(out)  # no game needed to answer by index
    v = next(str(p) for p in range(game.size) if game.codes[p] == retrodb.OPEN)
    print(f"vertex {v}: {t.value(v)}, remoteness {t.remoteness(v)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "token.rdb")
