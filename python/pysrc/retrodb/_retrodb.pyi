"""Type stubs of retrodb's compiled module (re-exported by the package)."""

import os
import pathlib
from types import TracebackType
from typing import Any, Iterable, Iterator, Literal, Optional, Type, TypedDict, Union

Value = Literal["win", "loss", "draw"]
PositionLike = Union[str, int, "Position"]
# What a table's lookups take: a position text, or a Position of the table's game.
TablePosition = Union[str, "Position"]

class BadPosition(TypedDict):
    """A batch's answer in the place of a position that is not one of the game's (as the HTTP
    batch reports it)."""

    position: str
    error: Literal["bad_position"]
    detail: str

class Move(TypedDict, total=False):
    """A move from a position, from both points of view (docs/NOTATION.md, "Values of moves"):
    "move" (its name) and "id" (its machine id: the cell, vertex, edge or amount); "result" and
    "plies" for the player making it (plies count the move; None for a draw or without
    remoteness); "ends_game"; "position" (the child) with its "value" and "remoteness" for the
    child's mover (the opponent; remoteness None where there is none); and the game's
    annotations."""

    move: str
    id: int
    result: Value
    plies: Optional[int]
    ends_game: bool
    position: str
    value: Value
    remoteness: Optional[int]

class LineStep(TypedDict):
    """One ply of a principal line: the move with its "result" and "plies" for the player
    making it, and the position it reaches with that position's "value" and "remoteness" for
    its own mover."""

    move: str
    result: Value
    plies: int
    position: str
    index: int
    value: Value
    remoteness: int

__version__: str

def open(path: Union[str, os.PathLike[str]]) -> Table:
    """Opens a table file (raw or compressed) for lookups.

    Raises TableError when the file is not a table or is damaged, FileError when it cannot be
    read."""

def build(
    spec: Any,
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

    `spec` is a game spec (`"hex:3"`) or a game written in Python: an object with `name`,
    `size` and the batched callbacks `status(positions)` and `children(positions)` on NumPy
    arrays, and optionally `tier(positions)` for the tiered engine (docs/PYTHON.md, "Your own
    game in Python"), whose table's spec is
    `graph:NAME,SIZE` (reopened without the game, it answers by index).

    The interpreter is released while solving; Ctrl-C stops the build (KeyboardInterrupt).
    Raises SpecError for a bad spec or grundy=True on a game that is not impartial, GameError
    for a Python game's callback that breaks the protocol or raises (the exception its
    cause), BuildError when the build is refused (memory, disk), ValueError for a bad thread
    count."""

class Table:
    """A table opened for lookups. Values are for the player to move. Positions are texts in the
    game's notation or Position objects of the table's game. Use it in a `with` block, or
    call close(), to let it go."""

    @property
    def spec(self) -> str: ...
    @property
    def path(self) -> pathlib.Path: ...
    @property
    def game(self) -> Game: ...
    @property
    def closed(self) -> bool: ...
    def probe(self, position: TablePosition) -> dict[str, Any]:
        """Exactly the fields `retrodb probe --json` prints: position, index, value,
        remoteness (None where there is none), game_over, the game's annotations, moves best
        first (each a Move: its result and plies for the player making it, the child's value
        and remoteness for its mover) and "best" (the first of them; absent where the game is
        over)."""
    def best_move(self, position: TablePosition) -> Optional[Move]:
        """The best move (the first of probe()'s moves); None where the game is over."""
    def line(self, position: TablePosition) -> list[LineStep]:
        """The principal line: the best move ply after ply to the end of the game, the
        remoteness falling by one a ply to 0. Empty where the game is over. Raises RetrodbError
        for a table without remoteness and for a draw."""
    def game_value(self, position: TablePosition, free_moves: int = 1) -> Optional[str]:
        """The position's value as a game in CGSuite's notation (cell games' full tables, a
        finished board worth `free_moves` to its winner; Hackenbush), as `probe --value` gives
        it; None when more than 2,000,000 positions lie below. Raises RetrodbError for a game
        without values or free_moves outside 1 to 64."""
    def sum(self, tokens: Union[str, Iterable[PositionLike]]) -> dict[str, Any]:
        """A sum of tokens ("4+9+11", or a sequence of positions) on a digraph table built with
        grundy=True: exactly the fields `retrodb probe --sum --json` prints: sum, tokens (each
        with its "grundy" value, and "reach" when infinite), value for the player to move,
        outcome ("first player wins", "second player wins" or "draw"), the sum's own "grundy"
        and "reach", and moves: every winning move ("token", its place in the sum from 0,
        "move", "from", "to"; the sum it leaves is the sum with that token at "to").

        Raises PositionError for a malformed sum or a token that is no position, RetrodbError
        for a table without the values."""
    def grundy(self, position: TablePosition) -> dict[str, Any]:
        """The generalized Sprague-Grundy value of a position: {"grundy": n}, or {"grundy":
        "inf", "reach": [...]} (the finite values of its followers)."""
    def value(self, position: TablePosition) -> Value:
        """The value of one position."""
    def get(self, position: TablePosition) -> Optional[Value]:
        """The value, as value(), or None where the table does not answer for the position (a
        text that does not parse, a board that never arises, a Position of another game). A
        damaged table still raises TableError; a position of another type TypeError."""
    def values(self, positions: Iterable[TablePosition]) -> list[Union[Value, BadPosition]]:
        """The values of many positions, in order; parallel, with the interpreter released. A
        position that is not one of the game's gets a BadPosition dict in its place; the rest
        are answered. A damaged table raises TableError."""
    def remoteness(self, position: TablePosition) -> Optional[int]:
        """Plies to the end under best play; None for a draw or a table without remoteness."""
    def info(self) -> dict[str, Any]:
        """What `retrodb info --json` prints."""
    def positions(self) -> Positions:
        """Every position with its value, as (text, value) pairs in index order."""
    def close(self) -> None:
        """Lets the table go; lookups afterwards raise ValueError. Closing twice is allowed."""
    def __enter__(self) -> Table: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...
    def __getitem__(self, position: TablePosition) -> Value:
        """The value, as value(); PositionError when it is not a position of the table."""
    def __contains__(self, position: TablePosition) -> bool:
        """Whether the table answers for the position."""
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
