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


from ._retrodb import Game, Position, Positions, Table, __version__, build, open  # noqa: E402

__all__ = [
    "BuildError",
    "FileError",
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
]
