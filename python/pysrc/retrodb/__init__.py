"""retrodb from Python: build win/loss/draw tables of finite two-player games, probe them,
and test conjectures over every position.

    import retrodb
    retrodb.build("bridgit:3", "bridgit3.rdb", compress=True)
    t = retrodb.open("bridgit3.rdb")
    t.value(".............")          # 'win': the first player wins Bridg-It 3
    t.probe(".............")["moves"]  # every move with the child's value
    for text, value in t.positions():  # every position, in index order
        ...

Values are for the player to move: "win", "loss" or "draw". Position texts are in the game's
notation (docs/NOTATION.md). Every error is a RetrodbError (a subclass by kind) carrying the
message the command line prints.
"""


class RetrodbError(Exception):
    """Base class of every error retrodb raises."""


class SpecError(RetrodbError, ValueError):
    """A game spec that names no game, or a game input file that does not parse."""


class PositionError(RetrodbError, ValueError):
    """A position text (or index) that is malformed or is not a position of the game."""


class TableError(RetrodbError):
    """A file that is not a table, has another format version, or is damaged."""


class BuildError(RetrodbError):
    """A build refused before it started (memory or disk) or that failed."""


class FileError(RetrodbError, OSError):
    """A file that cannot be read or written."""


class GameError(RetrodbError):
    """A game written in Python whose callbacks broke the protocol (docs/PYTHON.md): the
    message names the callback and the position; an exception the callback raised is the
    cause (``__cause__``), with its traceback."""


# The status codes a Python game's `status` callback answers (uint8), for the player to move.
OPEN = 0
WIN = 1
LOSS = 2
DRAW = 3
UNUSED = 4


import os  # noqa: E402

from ._retrodb import Game, Position, Positions, Table, __version__, build, open  # noqa: E402
from .pygames import GameTable, verify  # noqa: E402


def open_dir(path: "str | os.PathLike[str]") -> "dict[str, Table]":
    """Every table of a directory, by game: a dict from each table's game spec to the table.

    Every file of `path` (not its subdirectories) named `*.rdb` is opened, except hidden ones
    (a build's or compression's work files start with a dot). Where several tables are of the
    same game, the one that answers most is kept: with remoteness before without, with
    Sprague-Grundy values before without, then the first by file name; the others are closed.
    A file that is not a table, or is damaged, raises TableError naming it, as open() does.
    """
    tables = {}
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if name.startswith(".") or not name.endswith(".rdb") or not os.path.isfile(full):
            continue
        table = open(full)
        info = table.info()
        rank = (info.get("remoteness_bytes", 0) == 0, not info.get("grundy"))
        kept = tables.get(table.spec)
        if kept is None or rank < kept[0]:
            if kept is not None:
                kept[1].close()
            tables[table.spec] = (rank, table)
        else:
            table.close()
    return {spec: table for spec, (_, table) in tables.items()}

__all__ = [
    "BuildError",
    "DRAW",
    "FileError",
    "GameError",
    "GameTable",
    "LOSS",
    "OPEN",
    "UNUSED",
    "WIN",
    "Game",
    "Position",
    "PositionError",
    "Positions",
    "RetrodbError",
    "SpecError",
    "Table",
    "TableError",
    "__version__",
    "build",
    "open",
    "open_dir",
    "verify",
]
