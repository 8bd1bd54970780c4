"""Lookups as people use them: moves best first (against every child probed on its own), the
best move, the principal line (replayed through the game's moves), game values (against the
command line), per-item errors in batches, Position objects wherever a text goes, close() and
`with`, t[position] and `position in t`, and FileError for a build into a missing directory."""

import json

import pytest

import retrodb
from conftest import TABLES


def sample(t, n=300):
    """Every position of a small table, about `n` spread over a large one."""
    texts = [text for text, _ in t.positions()]
    step = max(1, len(texts) // n)
    return texts[::step]


def rank(value, remoteness):
    """How good a move to a child of this value (for its mover) is; lower is better."""
    r = remoteness or 0
    return {"loss": (0, r), "draw": (1, 0), "win": (2, -r)}[value]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_moves_best_first_against_every_child(name, tables):
    t = retrodb.open(tables[name])
    reordered = 0
    for text in sample(t):
        p = t.probe(text)
        # The reference: the game's moves in its order, each child looked up on its own,
        # sorted here (Python's sort is stable: equals keep the game's order).
        children = [(move, t.value(child), t.remoteness(child))
                    for move, child in t.game.moves(text)]
        want = sorted(children, key=lambda c: rank(c[1], c[2]))
        got = [(m["move"], m["value"], m.get("remoteness")) for m in p["moves"]]
        assert got == want, text
        reordered += [c[0] for c in children] != [c[0] for c in want]
        best = t.best_move(text)
        if want:
            assert best == p["moves"][0] == p["best"]
            assert best["value"] == {"win": "loss", "loss": "win", "draw": "draw"}[p["value"]]
        else:
            assert best is None and "best" not in p
    if name in ("hex3", "bridgit2", "digraph"):
        assert reordered > 0, "the order is not the game's by accident"


@pytest.mark.parametrize("name", ["hex3", "bridgit2", "digraph", "hackenbush", "shannon"])
def test_principal_line_replays_to_a_finished_position(name, tables):
    t = retrodb.open(tables[name])
    lines = 0
    for text in sample(t, 400):
        if t.value(text) == "draw":
            with pytest.raises(retrodb.RetrodbError, match="is a draw"):
                t.line(text)
            continue
        line = t.line(text)
        r = t.remoteness(text)
        assert len(line) == r, text
        at, mover = text, t.value(text)
        for k, step in enumerate(line):
            moves = dict(t.game.moves(at))
            assert moves[step["move"]] == step["position"], (text, k)
            assert step["index"] == t.game.parse(step["position"]).index
            assert step["value"] == t.value(step["position"])
            assert step["remoteness"] == t.remoteness(step["position"]) == r - 1 - k
            assert step["value"] == {"win": "loss", "loss": "win"}[mover]
            # The mover's choice is the best child there is.
            assert step["move"] == t.best_move(at)["move"]
            at, mover = step["position"], step["value"]
        assert t.game.moves(at) == [], "the line ends where the game does"
        assert t.remoteness(at) == 0
        lines += 1
    # Every decided position of the sample had its line checked (the seed's graph has 8).
    assert lines >= 8


def test_lines_refused_without_remoteness(tables):
    t = retrodb.open(tables["bridgit3"])
    with pytest.raises(retrodb.RetrodbError, match="without remoteness"):
        t.line(".............")


def test_game_values_equal_probe_value(tables, cli):
    for name in ("hex3", "bridgit2", "hackenbush", "shannon"):
        t = retrodb.open(tables[name])
        texts = sample(t, 200)
        for free in (1, 3):
            r = cli("probe", tables[name], "-", "--json", "--value", "--free-moves", free,
                    input="\n".join(texts) + "\n")
            assert r.returncode == 0, r.stderr
            for text, line in zip(texts, r.stdout.splitlines()):
                assert t.game_value(text, free_moves=free) == json.loads(line).get("game_value")
    t = retrodb.open(tables["hex3"])
    assert t.game_value(".........") is not None
    assert t.game_value(t.game.parse(".........")) == t.game_value(".........")
    for name in ("digraph", "hex3-startL"):
        t = retrodb.open(tables[name])
        with pytest.raises(retrodb.RetrodbError, match="has no game values"):
            t.game_value(next(t.positions())[0])
    with pytest.raises(retrodb.RetrodbError, match="1 to 64"):
        retrodb.open(tables["hex3"]).game_value(".........", free_moves=0)
    with pytest.raises(retrodb.PositionError):
        retrodb.open(tables["hex3"]).game_value("nope")


def test_batch_reports_bad_positions_per_item(tables, cli):
    t = retrodb.open(tables["bridgit3"])
    bad = ["nope", "L" * 13, "." * 12]
    texts = [".............", bad[0], "L............", bad[1], bad[2], "R............/L"]
    answers = t.values(texts)
    assert len(answers) == len(texts)
    for text, a in zip(texts, answers):
        if text in bad:
            with pytest.raises(retrodb.PositionError) as e:
                t.value(text)
            assert a == {"position": text, "error": "bad_position", "detail": str(e.value)}
        else:
            assert a == t.value(text)
    # The same message the command line gives for that position.
    r = cli("probe", tables["bridgit3"], "nope")
    assert r.stderr.strip() == "retrodb: " + answers[1]["detail"]
    # A generator works as a list does.
    assert t.values(x for x in texts) == answers


def test_positions_accepted_wherever_a_text_is(tables):
    t = retrodb.open(tables["hex3"])
    text = "L...R..../L"
    p = t.game.parse(text)
    assert t.value(p) == t.value(text) == t[p] == t[text]
    assert t.probe(p) == t.probe(text)
    assert t.remoteness(p) == t.remoteness(text)
    assert t.best_move(p) == t.best_move(text)
    assert t.line(p) == t.line(text)
    assert t.values([p, text]) == [t.value(text)] * 2
    assert p in t and text in t
    g = t.game
    assert g.text(p) == g.text(text) and g.moves(p) == g.moves(text)
    assert g.parse(p) == p and g.svg(p) == g.svg(text)
    # A Position made by a Game of the same spec is the table's too.
    assert t.value(retrodb.Game("hex:3").parse(text)) == t.value(text)
    # A Position of another game is refused, naming both games; `in` says no; a batch reports it.
    other = retrodb.Game("hex:2").parse("....")
    with pytest.raises(retrodb.PositionError, match="hex:2.*hex:3"):
        t.value(other)
    with pytest.raises(retrodb.PositionError):
        g.text(other)
    assert other not in t
    answers = t.values([text, other])
    assert answers[0] == t.value(text)
    assert answers[1]["error"] == "bad_position" and answers[1]["position"] == "..../L"
    # Sums take Positions as tokens.
    s = retrodb.open(tables["digraph-grundy"])
    tokens = [s.game.parse("2"), "9"]
    assert s.sum(tokens) == s.sum("2+9")
    assert s.grundy(s.game.parse("2")) == s.grundy("2")
    # Anything else is a TypeError, never a crash.
    for bad in (3, None, 2.5, b"........."):
        with pytest.raises(TypeError):
            t.value(bad)
        with pytest.raises(TypeError):
            bad in t  # noqa: B015
    with pytest.raises(TypeError, match="item 1"):
        t.values([text, 3])


def test_getitem_and_in(tables):
    t = retrodb.open(tables["hex3-startL"])
    assert t["........."] == t.value(".........")
    assert "........." in t
    assert "LL......./L" not in t  # never arises when Left starts
    assert "nope" not in t and "" not in t
    with pytest.raises(retrodb.PositionError, match="not reachable"):
        t["LL......./L"]
    for text, value in list(t.positions())[:50]:
        assert text in t and t[text] == value


def test_close_and_with(tables):
    path = tables["hex3"]
    t = retrodb.open(path)
    it = t.positions()
    game = t.game
    assert not t.closed
    t.close()
    assert t.closed and "closed" in repr(t)
    for call in (lambda: t.value("........."), lambda: t.probe("........."), lambda: len(t),
                 lambda: t.values(["........."]), lambda: t.info(), lambda: "........." in t,
                 lambda: t["........."]):
        with pytest.raises(ValueError, match="closed"):
            call()
    t.close()  # closing twice is allowed
    assert t.path == path
    # What was made from the table before keeps its own reference.
    assert next(it)[1] in ("win", "loss", "draw")
    assert game.text(".........") == "........./L"
    with retrodb.open(path) as u:
        assert u.value(".........") == "win"
    assert u.closed
    with pytest.raises(KeyError):
        with retrodb.open(path) as w:
            raise KeyError("goes on")
    assert w.closed


def test_build_into_a_missing_directory_is_a_file_error(tmp_path, cli):
    out = tmp_path / "missing" / "hex2.rdb"
    with pytest.raises(retrodb.FileError) as e:
        retrodb.build("hex:2", out, progress=False)
    assert isinstance(e.value, OSError)
    assert "does not exist" in str(e.value)
    r = cli("build", "hex:2", "-o", out)
    assert r.returncode != 0
    assert r.stderr.strip().splitlines()[-1] == "retrodb: " + str(e.value)
    assert not out.parent.exists()
