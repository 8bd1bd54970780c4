"""Sums of tokens from Python: Table.sum and Table.grundy against `retrodb probe --sum --json`,
and the outcomes against a retrograde solve of the sum game written here (the product of the
token positions, solved by the queue rule: a position with a lost follower is won, one whose
followers are all won is lost, the rest drawn), which shares no code with retrodb."""

import itertools
import json
import random
from collections import deque

import pytest

import retrodb
from conftest import DATA


def edges_of(path):
    """The edges of a digraph file: 'u v' a line, '#' comments."""
    out = []
    for line in open(path):
        words = line.split("#")[0].split()
        if words:
            out.append((int(words[0]), int(words[1])))
    return out


def product_outcomes(edges, k):
    """Every tuple of k tokens on the used vertices: 'win', 'loss' or 'draw' for the player to
    move, by retrograde analysis of the explicit sum game."""
    used = sorted({v for e in edges for v in e})
    succ = {v: [b for a, b in edges if a == v] for v in used}
    states = list(itertools.product(used, repeat=k))
    children = {}
    parents = {s: [] for s in states}
    for s in states:
        kids = []
        for i, v in enumerate(s):
            for w in succ[v]:
                c = s[:i] + (w,) + s[i + 1 :]
                kids.append(c)
                parents[c].append(s)
        children[s] = kids
    value = {}
    left = {s: len(children[s]) for s in states}
    queue = deque()
    for s in states:
        if not children[s]:
            value[s] = "loss"
            queue.append(s)
    while queue:
        c = queue.popleft()
        for p in parents[c]:
            if p in value:
                continue
            if value[c] == "loss":
                value[p] = "win"
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    value[p] = "loss"
                    queue.append(p)
    return {s: value.get(s, "draw") for s in states}


def graphs(tmp_path):
    """The seed's graph and random small ones (cycles and draws among them)."""
    out = [DATA / "seed001.txt"]
    rng = random.Random(33)
    for k in range(12):
        n = rng.randrange(3, 8)
        lines = [f"{rng.randrange(n)} {rng.randrange(n)}" for _ in range(rng.randrange(n, 2 * n + 3))]
        path = tmp_path / f"g{k}.txt"
        path.write_text("\n".join(lines) + "\n")
        out.append(path)
    return out


def test_sums_agree_with_the_product_solve_and_the_cli(tmp_path, cli):
    seen = set()
    for path in graphs(tmp_path):
        table = tmp_path / (path.stem + ".rdb")
        retrodb.build(f"digraph:{path}", table, grundy=True, progress=False)
        t = retrodb.open(table)
        edges = edges_of(path)
        for k in (2, 3):
            truth = product_outcomes(edges, k)
            texts = ["+".join(map(str, s)) for s in truth]
            r = cli("probe", table, "-", "--sum", "--json", input="\n".join(texts) + "\n")
            assert r.returncode == 0, r.stderr
            lines = r.stdout.splitlines()
            assert len(lines) == len(texts)
            for (s, want), text, line in zip(truth.items(), texts, lines):
                answer = t.sum(text)
                assert answer == json.loads(line), text
                assert answer["value"] == want, (path.name, text, answer)
                seen.add(want)
                # Every winning move leaves a sum lost for the opponent.
                for m in answer["moves"]:
                    # The sum a move leaves: the answer's, its token replaced by "to".
                    after = [int(x) for x in answer["sum"].split("+")]
                    assert after[m["token"]] == int(m["from"]), (text, m)
                    after[m["token"]] = int(m["to"])
                    assert "sum" not in m, (text, m)
                    assert truth[tuple(after)] == "loss", (text, m)
                assert (want == "win") == bool(answer["moves"]), text
            # A sequence of vertex ids is the same sum.
            s = next(iter(truth))
            assert t.sum(list(s)) == t.sum("+".join(map(str, s)))
    assert seen == {"win", "loss", "draw"}


def test_grundy_values_are_the_probes(tables):
    t = retrodb.open(tables["digraph-grundy"])
    for text, _ in t.positions():
        p = t.probe(text)
        g = t.grundy(text)
        assert g["grundy"] == p["grundy"] and g.get("reach") == p.get("reach"), text
    # The seed's vertex 2 reaches value 2 only, vertex 9 has value 2: 2+9 is won by 2 -> 9.
    assert t.grundy("2") == {"grundy": "inf", "reach": [2]}
    assert t.grundy("9") == {"grundy": 2}
    s = t.sum("2+9")
    assert s["outcome"] == "first player wins"
    assert [(m["from"], m["to"]) for m in s["moves"]] == [("2", "9")]


def test_sum_errors(tables):
    t = retrodb.open(tables["digraph-grundy"])
    with pytest.raises(retrodb.PositionError, match="token 2 is empty"):
        t.sum("4++9")
    with pytest.raises(retrodb.PositionError, match="token 2 of the sum"):
        t.sum("4+99")
    with pytest.raises(TypeError):
        t.sum(4.5)
    with pytest.raises(TypeError):
        t.sum([4, 2.5])
    plain = retrodb.open(tables["digraph"])
    with pytest.raises(retrodb.RetrodbError, match="--grundy"):
        plain.sum("4+9")
    with pytest.raises(retrodb.RetrodbError, match="--grundy"):
        plain.grundy("4")
    hex3 = retrodb.open(tables["hex3"])
    with pytest.raises(retrodb.RetrodbError, match="impartial"):
        hex3.sum("1")


def test_grundy_builds_refuse_other_games(tmp_path):
    with pytest.raises(retrodb.SpecError, match="impartial"):
        retrodb.build("hex:2", tmp_path / "h.rdb", grundy=True, progress=False)
    assert not (tmp_path / "h.rdb").exists()
