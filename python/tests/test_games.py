"""retrodb.Game and Position: parsing, writing, moves and pictures for every game family."""

import pytest

import retrodb
from conftest import DATA, TABLES

SPECS = sorted({spec for spec, _ in TABLES.values()})


@pytest.mark.parametrize("spec", SPECS)
def test_round_trip_moves_and_pictures(spec):
    g = retrodb.Game(spec)
    assert g.spec == spec and g.size > 0 and repr(g) == f"retrodb.Game({spec!r})"
    start = g.start()
    assert start is not None and start.status == "open"
    # A walk from the start: every text parses back to its position, every move's child is a
    # position whose text the game writes, and the pictures draw.
    pos, seen = start, 0
    while True:
        assert g.parse(pos.text) == pos
        assert g.parse(pos.index) == pos
        assert g.text(pos.index) == pos.text == str(pos)
        moves = pos.moves()
        assert [(name, child.text) for name, child in moves] == g.moves(pos.text)
        svg = pos.svg()
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        assert pos._repr_svg_() == svg == g.svg(pos.text)
        picture = pos.render()
        if spec.startswith("digraph:"):
            assert picture is None
        else:
            assert isinstance(picture, str) and picture.strip()
        assert g.render(pos.text) == picture
        seen += 1
        if not moves or seen > 30:
            break
        pos = moves[len(moves) // 2][1]
    assert pos.status in ("open", "win", "loss", "draw")
    if not moves:
        assert pos.status != "open" or pos.moves() == []


def test_positions_compare_and_hash():
    g = retrodb.Game("hex:3")
    a, b = g.parse("........."), g.parse(".........")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != g.parse("L........") and a != "........."
    assert a.game.spec == "hex:3"
    assert repr(a) == "retrodb.Position('........./L', game='hex:3')"


def test_text_accepts_short_forms():
    g = retrodb.Game("hex:3")
    # Without the mover's suffix the mover follows from alternation.
    assert g.text("L........") == "L......../R"
    assert g.text(g.parse("L........").index) == "L......../R"


def test_hex_moves_and_end():
    g = retrodb.Game("hex:3")
    assert len(g.moves(".........")) == 9
    # Left joins column 0 to column 2 along the first row: the game is over, Right to move
    # has lost, and there are no moves.
    over = g.parse("LLLRR..../R")
    assert over.status == "loss" and over.moves() == [] and g.moves(over.text) == []


def test_digraph_svg_shows_neighbours():
    g = retrodb.Game(f"digraph:{DATA}/seed001.txt")
    p = g.start()
    svg = p.svg()
    for _, child in p.moves():
        assert f">{child.text}</text>" in svg
