"""Type stubs of retrodb's compiled module (re-exported by the package)."""

import os
import pathlib
from typing import Any, Iterable, Iterator, Literal, Optional, Union

Value = Literal["win", "loss", "draw"]
PositionLike = Union[str, int]

__version__: str

def open(path: Union[str, os.PathLike[str]]) -> Table:
    """Opens a table file (raw or compressed) for lookups.

    Raises TableError when the file is not a table or is damaged, FileError when it cannot be
    read."""

def build(
    spec: str,
    path: Union[str, os.PathLike[str]],
    remoteness: bool = False,
    compress: bool = False,
    threads: Optional[int] = None,
    progress: bool = True,
    max_memory: Optional[int] = None,
    grundy: bool = False,
) -> dict[str, Any]:
    """Builds a game's table into `path` as `retrodb build` does, with the same estimates and
    refusals; returns the build's summary (the keys of `retrodb build --json`, among them
    `engine` and `kernel`, the kernel that decided the positions).

    `grundy` also stores every vertex's generalized Sprague-Grundy value (digraph games), so
    that Table.sum answers sums of tokens.

    The interpreter is released while solving; Ctrl-C stops the build (KeyboardInterrupt).
    Raises SpecError for a bad spec or grundy=True on a game that is not impartial, BuildError
    when the build is refused (memory, disk), ValueError for a bad thread count."""

class Table:
    """A table opened for lookups. Values are for the player to move."""

    @property
    def spec(self) -> str: ...
    @property
    def path(self) -> pathlib.Path: ...
    @property
    def game(self) -> Game: ...
    def probe(self, text: str) -> dict[str, Any]:
        """Exactly the fields `retrodb probe --json` prints: position, index, value,
        remoteness (where stored), the game's annotations, and moves (each with "move",
        "position", "value" for the child's mover, and remoteness where stored)."""
    def sum(self, tokens: Union[str, Iterable[PositionLike]]) -> dict[str, Any]:
        """A sum of tokens ("4+9+11", or a sequence of positions) on a digraph table built with
        grundy=True: exactly the fields `retrodb probe --sum --json` prints: sum, tokens (each
        with its "grundy" value, and "reach" when infinite), value for the player to move,
        outcome ("first player wins", "second player wins" or "draw"), the sum's own "grundy"
        and "reach", and moves: every winning move ("token", "move", "from", "to", "sum").

        Raises PositionError for a malformed sum or a token that is no position, RetrodbError
        for a table without the values."""
    def grundy(self, text: str) -> dict[str, Any]:
        """The generalized Sprague-Grundy value of a position: {"grundy": n}, or {"grundy":
        "inf", "reach": [...]} (the finite values of its followers)."""
    def value(self, text: str) -> Value:
        """The value of one position."""
    def values(self, texts: Iterable[str]) -> list[Value]:
        """The values of many positions, in order; parallel, with the interpreter released."""
    def remoteness(self, text: str) -> Optional[int]:
        """Plies to the end under best play; None for a draw or a table without remoteness."""
    def info(self) -> dict[str, Any]:
        """What `retrodb info --json` prints."""
    def positions(self) -> Positions:
        """Every position with its value, as (text, value) pairs in index order."""
    def __len__(self) -> int:
        """The number of positions the table answers for."""

class Positions(Iterator[tuple[str, Value]]):
    def __iter__(self) -> Positions: ...
    def __next__(self) -> tuple[str, Value]: ...

class Game:
    """A game's rules and notation from a game spec ("hex:3", "bridgit:3",
    "digraph:FILE", ...)."""

    def __init__(self, spec: str) -> None: ...
    @property
    def spec(self) -> str: ...
    @property
    def size(self) -> int:
        """The number of indices (some may be unused)."""
    def start(self) -> Optional[Position]:
        """The position a person starts from."""
    def parse(self, text: PositionLike) -> Position:
        """The position a text or an index names; PositionError when there is none."""
    def text(self, position: PositionLike) -> str:
        """The canonical text of a position."""
    def moves(self, position: PositionLike) -> list[tuple[str, str]]:
        """(move name, child position text) pairs; empty where the game is over."""
    def render(self, position: PositionLike) -> Optional[str]:
        """A text picture (None for a digraph)."""
    def svg(self, position: PositionLike) -> str:
        """An SVG picture."""

class Position:
    """One position of a game; draws itself in Jupyter."""

    @property
    def index(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def game(self) -> Game: ...
    @property
    def status(self) -> Literal["open", "win", "loss", "draw"]:
        """"open", or the game's end for the player to move."""
    def moves(self) -> list[tuple[str, Position]]: ...
    def render(self) -> Optional[str]: ...
    def svg(self) -> str: ...
    def _repr_svg_(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
