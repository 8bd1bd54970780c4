"""A game written in Python and its table together (docs/PYTHON.md, "Your own game in Python"):
`GameTable` answers by position and by the game's own texts and moves, and `verify` re-checks
a sample of the table against the game's callbacks."""

import numpy as np

from ._retrodb import Table
from ._retrodb import open as _open

WORDS = {1: "win", 2: "loss", 3: "draw"}


def _error(message):
    from . import GameError

    return GameError(message)


def _table_of(table, game):
    t = table if isinstance(table, Table) else _open(table)
    want = f"graph:{game.name},{game.size}"
    if t.spec != want:
        raise _error(f"the table is of {t.spec}, not of this game ({want})")
    return t


def _children(game, p):
    counts, kids = game.children(np.array([p], np.uint64))
    return [int(c) for c in np.asarray(kids)[: int(np.asarray(counts)[0])]]


class GameTable:
    """A Python game's table opened with its game: positions are indices or, where the game
    has `parse(text) -> position` and `text(position) -> str`, its texts; moves are named by
    `move_name(position, child)` where the game has it, else by the child's index."""

    def __init__(self, table, game):
        self.game = game
        self.table = _table_of(table, game)

    def index(self, position):
        if isinstance(position, str) and hasattr(self.game, "parse"):
            return int(self.game.parse(position))
        return int(position)

    def text(self, position):
        p = self.index(position)
        return self.game.text(p) if hasattr(self.game, "text") else str(p)

    def value(self, position):
        return self.table.value(str(self.index(position)))

    def remoteness(self, position):
        return self.table.remoteness(str(self.index(position)))

    def moves(self, position):
        """Every move from `position`: (name, child, the child's value for its player)."""
        p = self.index(position)
        if int(np.asarray(self.game.status(np.array([p], np.uint64)))[0]) != 0:
            return []
        name = getattr(self.game, "move_name", lambda _, c: str(c))
        return [(name(p, c), c, self.table.value(str(c))) for c in _children(self.game, p)]


def verify(table, game, sample=4096):
    """Re-checks `sample` positions spread over a Python game's table against its callbacks: an
    ended position's value is the one `status` gives, an open one's follows from its children's
    (won if one child is lost, lost if every child is won, else drawn; remoteness too, where the
    table has it), an unused index is none. Returns the number of positions checked; raises
    GameError naming the first that disagrees."""
    t = _table_of(table, game)
    n = game.size
    positions = np.unique(np.linspace(0, n - 1, min(n, sample)).astype(np.uint64))
    codes = np.asarray(game.status(positions))
    for p, code in zip(positions.tolist(), codes.tolist()):
        if code == 4:
            if str(p) in t:
                raise _error(f"verify: position {p} is unused for the game but in the table")
            continue
        got = t.value(str(p))
        if code in WORDS:
            want = WORDS[code]
        else:
            kids = [t.value(str(c)) for c in _children(game, p)]
            want = "win" if "loss" in kids else "loss" if all(k == "win" for k in kids) else "draw"
            rem = t.remoteness(str(p))
            if rem is not None and want != "draw":
                pick = min if want == "win" else max
                wanted_kids = [c for c, k in zip(_children(game, p), kids)
                               if want == "loss" or k == "loss"]
                best = pick(t.remoteness(str(c)) for c in wanted_kids)
                if rem != best + 1:
                    raise _error(f"verify: position {p} has remoteness {rem}; its children "
                                 f"give {best + 1}")
        if got != want:
            raise _error(f"verify: position {p} is a {got} in the table; the game's rules "
                         f"give {want}")
    return len(positions)
