"""Errors: every bad input raises the package's exception of its kind with the command line's
message, and a damaged table raises TableError, never crashes."""

import os
import shutil

import pytest

import retrodb
from conftest import DATA


def cli_error(result):
    """The message the command line printed (without its `retrodb: ` prefix)."""
    assert result.returncode != 0
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("retrodb: "), result.stderr
    return line[len("retrodb: "):]


def test_exception_classes():
    for cls in (retrodb.SpecError, retrodb.PositionError, retrodb.TableError,
                retrodb.BuildError, retrodb.FileError):
        assert issubclass(cls, retrodb.RetrodbError)
    assert issubclass(retrodb.PositionError, ValueError)
    assert issubclass(retrodb.FileError, OSError)


def test_missing_and_non_table_files(tmp_path, cli):
    missing = tmp_path / "missing.rdb"
    with pytest.raises(retrodb.FileError) as e:
        retrodb.open(missing)
    assert str(e.value) == cli_error(cli("info", missing))
    with pytest.raises(retrodb.TableError) as e:
        retrodb.open(DATA / "seed001.txt")
    assert str(e.value) == cli_error(cli("info", DATA / "seed001.txt"))
    with pytest.raises(retrodb.TableError):
        retrodb.open(tmp_path)  # a directory
    empty = tmp_path / "empty.rdb"
    empty.write_bytes(b"")
    with pytest.raises(retrodb.TableError, match="empty"):
        retrodb.open(empty)


@pytest.mark.parametrize("bad", [
    "",                      # empty
    "LLLL",                  # too short
    "..........",            # one cell too many for Bridg-It 3? (13 cells: too short)
    "x" * 13,                # not a cell character
    "L" * 13,                # impossible counts
    "." * 13 + "/Q",         # not a mover
    "." * 100_000,           # very long: the message is cut
    "\u00e9" * 13,           # not ASCII
])
def test_bad_positions(bad, tables, cli):
    t = retrodb.open(tables["bridgit3"])
    with pytest.raises(retrodb.PositionError) as e:
        t.value(bad)
    message = str(e.value)
    assert len(message) < 300
    with pytest.raises(retrodb.PositionError) as e2:
        t.probe(bad)
    assert str(e2.value) == message
    if bad:  # the command line skips blank lines
        assert message == cli_error(cli("probe", tables["bridgit3"], "-", input=bad + "\n"))
    # A batch answers the good positions and reports the bad one in its place.
    answers = t.values([".............", bad])
    assert answers == ["win", {"position": bad, "error": "bad_position", "detail": message}]
    with pytest.raises(retrodb.PositionError):
        t.game.parse(bad)


def test_unreachable_and_unused_positions(tables, cli, tmp_path):
    # Only the positions reachable from the empty board with Left first are in this table.
    t = retrodb.open(tables["hex3-startL"])
    unreachable = "LL......./L"
    with pytest.raises(retrodb.PositionError, match="not reachable") as e:
        t.value(unreachable)
    assert str(e.value) == cli_error(cli("probe", tables["hex3-startL"], unreachable))
    with pytest.raises(retrodb.PositionError):
        t.game.parse(unreachable)
    # A digraph whose vertex ids leave gaps: the gaps are indices of no position.
    graph = tmp_path / "gaps.txt"
    graph.write_text("0 5\n5 7\n")
    retrodb.build(f"digraph:{graph}", tmp_path / "gaps.rdb", progress=False)
    t = retrodb.open(tmp_path / "gaps.rdb")
    assert [text for text, _ in t.positions()] == ["0", "5", "7"] and len(t) == 3
    with pytest.raises(retrodb.PositionError) as e:
        t.value("3")
    assert str(e.value) == cli_error(cli("probe", tmp_path / "gaps.rdb", "3"))
    for index in (1, 3, 6):
        with pytest.raises(retrodb.PositionError, match="can never arise"):
            t.game.parse(index)


def test_bad_batches(tables):
    t = retrodb.open(tables["hex3"])
    with pytest.raises(TypeError):
        t.values(".........")  # one text, not a sequence
    with pytest.raises(TypeError):
        t.values([".........", 3])
    with pytest.raises(TypeError):
        t.values(None)


def test_bad_indices():
    g = retrodb.Game("hex:3,start=L")
    with pytest.raises(retrodb.PositionError, match="outside"):
        g.text(g.size)
    with pytest.raises((TypeError, OverflowError)):
        g.text(-1)
    with pytest.raises((TypeError, OverflowError)):
        g.text(2**70)
    with pytest.raises((TypeError, OverflowError)):
        g.moves(-5)
    with pytest.raises(retrodb.PositionError):
        g.svg(g.size + 10)


@pytest.mark.parametrize("spec", [
    "nope:3", "hex", "hex:x", "hex:0", "bridgit:-1", "hackenbush-stalk:BXQ",
    "hackenbush-tree:l(l;", "shannon:" + str(DATA / "seed001.txt"),
])
def test_bad_specs(spec, cli, tmp_path):
    with pytest.raises(retrodb.SpecError) as e:
        retrodb.Game(spec)
    assert str(e.value) == cli_error(cli("build", spec, "-o", tmp_path / "x.rdb"))
    with pytest.raises(retrodb.SpecError):
        retrodb.build(spec, tmp_path / "x.rdb", progress=False)


def test_missing_input_file(tmp_path, cli):
    spec = f"digraph:{tmp_path}/missing.txt"
    with pytest.raises(retrodb.FileError) as e:
        retrodb.Game(spec)
    assert str(e.value) == cli_error(cli("build", spec, "-o", tmp_path / "x.rdb"))


def _flip(src, dst, at):
    data = bytearray(src.read_bytes())
    data[at % len(data)] ^= 0x5A
    dst.write_bytes(bytes(data))


def _read_everything(path):
    t = retrodb.open(path)
    for text, _ in t.positions():
        t.remoteness(text)
    t.values([text for text, _ in t.positions()])


@pytest.mark.parametrize("name", ["hex3", "bridgit2", "hackenbush-tree", "shannon"])
def test_damaged_tables_raise_table_error(name, tables, tmp_path):
    src = tables[name]
    size = src.stat().st_size
    # Bytes all over the file: header, cells or frames, remoteness, checksums, the end.
    offsets = sorted({0, 5, 17, 64, 200, size // 3, size // 2, size - 9, size - 1}
                     | {size * k // 23 for k in range(23)})
    for at in offsets:
        bad = tmp_path / f"bad-{at}.rdb"
        _flip(src, bad, at)
        with pytest.raises(retrodb.TableError):
            _read_everything(bad)
    # Truncated and extended files too.
    cut = tmp_path / "cut.rdb"
    cut.write_bytes(src.read_bytes()[: size - 100])
    with pytest.raises(retrodb.TableError):
        retrodb.open(cut)
    longer = tmp_path / "longer.rdb"
    longer.write_bytes(src.read_bytes() + b"\0")
    with pytest.raises(retrodb.TableError):
        retrodb.open(longer)
    # The undamaged copy reads in full.
    ok = tmp_path / "ok.rdb"
    shutil.copy(src, ok)
    _read_everything(ok)


def test_damaged_table_probe_message_equals_cli(tables, tmp_path, cli):
    src = tables["bridgit3"]
    t = retrodb.open(src)
    bad = tmp_path / "bad.rdb"
    _flip(src, bad, src.stat().st_size // 2)
    try:
        damaged = retrodb.open(bad)
    except retrodb.TableError as e:
        assert str(e) == cli_error(cli("probe", bad, "............."))
        return
    # Some position's frame is damaged: find it through the batch, then compare messages.
    texts = [text for text, _ in t.positions()]
    with pytest.raises(retrodb.TableError) as e:
        damaged.values(texts)
    assert "damaged" in str(e.value) and str(bad) in str(e.value)


def test_build_refusals(tmp_path, cli):
    out = tmp_path / "hex3.rdb"
    with pytest.raises(retrodb.BuildError) as e:
        retrodb.build("hex:3", out, progress=False, max_memory=1000)
    assert str(e.value) == cli_error(cli("build", "hex:3", "-o", out, "--max-memory", "1000"))
    assert not out.exists()
    with pytest.raises(ValueError):
        retrodb.build("hex:3", out, threads=0, progress=False)
    with pytest.raises(ValueError):
        retrodb.build("hex:3", out, threads=100_000, progress=False)
    with pytest.raises(retrodb.FileError) as e:
        retrodb.build("hex:2", tmp_path, progress=False)  # a directory
    assert str(e.value) == cli_error(cli("build", "hex:2", "-o", tmp_path))
    assert not list(tmp_path.iterdir())  # nothing left behind


@pytest.mark.parametrize("token", [2**70, -1, 2**64, 10**5000],
                         ids=["2**70", "-1", "2**64", "10**5000"])
def test_sum_of_ints_that_are_no_vertex_ids(token, tables):
    """An int beyond 2^64 - 1 or below 0 in a sum is a bad position (PositionError naming the
    token), not a TypeError "got int" (issue 44); the message is cut like every echoed input."""
    t = retrodb.open(tables["digraph-grundy"])
    with pytest.raises(retrodb.PositionError) as e:
        t.sum([4, token])
    message = str(e.value)
    assert "token 2" in message and "not a vertex id" in message, message
    assert len(message) < 200, message
    assert t.sum([4, 8])["sum"] == "4+8"  # ints that are vertex ids still work
