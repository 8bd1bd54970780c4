"""Tables from Python: every lookup against the command line's answers on thousands of
positions of every game family, and the table as a whole (info, positions, len)."""

import json
import random

import pytest

import retrodb
from conftest import TABLES

# Positions compared with `retrodb probe --json` per table (all of a smaller table).
SAMPLE = 1500


def sample(table, n=SAMPLE, seed=15):
    """Every position of a small table; `n` random ones of a large one."""
    if len(table) <= n:
        return [text for text, _ in table.positions()]
    rng, game, texts = random.Random(seed), table.game, set()
    while len(texts) < n:
        try:
            texts.add(game.text(rng.randrange(game.size)))
        except retrodb.PositionError:
            pass  # an unused index
    return sorted(texts)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_probe_equals_cli_probe_json(name, tables, cli):
    t = retrodb.open(tables[name])
    texts = sample(t)
    assert texts, "every table has positions"
    r = cli("probe", tables[name], "-", "--json", input="\n".join(texts) + "\n")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == len(texts)
    for text, line in zip(texts, lines):
        assert t.probe(text) == json.loads(line), text
    # The batch answers agree with the probes and with one-at-a-time lookups.
    values = t.values(texts)
    assert values == [json.loads(line)["value"] for line in lines]
    assert values[:50] == [t.value(x) for x in texts[:50]]


def test_thousands_of_positions_compared(tables):
    # The comparison above covers at least this many positions over all families.
    total = sum(min(len(retrodb.open(p)), SAMPLE) for p in tables.values())
    assert total >= 5000, total


@pytest.mark.parametrize("name", sorted(TABLES))
def test_info_equals_cli_info_json(name, tables, cli):
    r = cli("info", tables[name], "--json")
    assert r.returncode == 0, r.stderr
    info = retrodb.open(tables[name]).info()
    assert info == json.loads(r.stdout)


@pytest.mark.parametrize("name", ["digraph", "shannon", "hex3-startL", "hackenbush", "bridgit2"])
def test_positions_equal_cli_dump(name, tables, cli):
    t = retrodb.open(tables[name])
    r = cli("dump", tables[name])
    assert r.returncode == 0, r.stderr
    dumped = [line.split("\t")[:2] for line in r.stdout.splitlines()]
    listed = [list(p) for p in t.positions()]
    assert listed == dumped
    assert len(t) == len(listed) == t.info()["positions"]


def test_positions_stream_in_index_order(tables):
    t = retrodb.open(tables["bridgit3"])
    it = t.positions()
    assert iter(it) is it
    first = [next(it) for _ in range(3)]
    indices = [t.probe(text)["index"] for text, _ in first]
    assert indices == sorted(indices) and len(set(indices)) == 3
    # The rest streams on to the end (3,188,646 positions), then stops.
    count = 3 + sum(1 for _ in it)
    assert count == len(t) == 3_188_646
    with pytest.raises(StopIteration):
        next(it)


def test_values_batches(tables):
    t = retrodb.open(tables["hex3"])
    texts = [text for text, _ in t.positions()]
    expected = [v for _, v in t.positions()]
    assert t.values(texts) == expected
    assert t.values(iter(texts[:100])) == expected[:100]  # any iterable of texts
    assert t.values(tuple(texts[:10])) == expected[:10]
    assert t.values([]) == []
    assert set(expected) == {"win", "loss"}


def test_draws_and_remoteness(tables):
    t = retrodb.open(tables["digraph"])
    values = {v for _, v in t.positions()}
    assert values == {"win", "loss", "draw"}
    for text, v in t.positions():
        r = t.remoteness(text)
        assert (r is None) == (v == "draw")
        assert t.probe(text).get("remoteness") == r
    # A table without remoteness has none to give.
    t = retrodb.open(tables["bridgit3"])
    assert t.remoteness(".............") is None
    assert t.probe(".............")["remoteness"] is None


def test_table_properties(tables):
    t = retrodb.open(tables["bridgit3"])
    assert t.spec == "bridgit:3"
    assert str(t.path) == str(tables["bridgit3"])
    assert "bridgit:3" in repr(t)
    assert t.game.spec == "bridgit:3"
    # Gale's theorem: the first player wins Bridg-It.
    assert t.value(".............") == "win"
    start = t.game.start()
    assert start.text == t.probe(".............")["position"]


def test_get_answers_or_gives_none(tables):
    with retrodb.open(tables["hex3"]) as t:
        for text, value in list(t.positions())[:200]:
            assert t.get(text) == value == t[text]
        # Not a position: a text that does not parse, a board whose mover does not follow from
        # its stones, a Position of another game. None, where value() raises.
        for bad in ["not a board", "LLLLL...."]:
            assert t.get(bad) is None
            with pytest.raises(retrodb.PositionError):
                t.value(bad)
        other = retrodb.Game("hex:2").parse("..../L")
        assert t.get(other) is None
        with pytest.raises(TypeError):
            t.get(3.5)


def test_open_dir_gives_each_game_its_best_table(tmp_path):
    d = tmp_path / "tables"
    d.mkdir()
    retrodb.build("hex:2", d / "a-hex2.rdb", progress=False)
    retrodb.build("hex:2", d / "b-hex2-rem.rdb", remoteness=True, progress=False)
    retrodb.build("bridgit:2", d / "bridgit2.rdb", compress=True, progress=False)
    (d / "notes.txt").write_text("not a table")
    (d / ".work.rdb").write_text("a hidden work file")
    (d / "sub").mkdir()
    tables = retrodb.open_dir(d)
    assert sorted(tables) == ["bridgit:2", "hex:2"]
    # Of the two hex:2 tables, the one with remoteness.
    assert tables["hex:2"].path.name == "b-hex2-rem.rdb"
    assert tables["hex:2"].info()["remoteness_bytes"] > 0
    assert tables["bridgit:2"].value(".....") == "win"
    for t in tables.values():
        t.close()
    # A damaged table is an error naming it, not a table left out.
    (d / "broken.rdb").write_bytes(b"RETRODB" + b"\0" * 100)
    with pytest.raises(retrodb.TableError, match="broken.rdb"):
        retrodb.open_dir(d)
