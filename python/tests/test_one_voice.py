"""One voice on every interface (docs/NOTATION.md, "Values of moves"): for 200 random positions
of three tables — a digraph with draws and remoteness, bridgit:3 with remoteness, hex:4 values
only — the command line's JSON, the HTTP API and Python give the same fields and numbers for
the position and every move; the command line's text says the same in words; and the fields
agree with each other and with a probe of each move's child."""

import json
import random
import re
import subprocess
import urllib.request

import pytest

import retrodb

POSITIONS = 200


def random_digraph(path, vertices=3000, seed=48):
    """A digraph with wins, losses and draws: the first fifth of the vertices lie on closed
    cycles of 3 to 5 (draws: no way out), the rest have 0-3 out-edges to any vertex (sinks
    lose; an edge into a cycle offers a draw)."""
    rng = random.Random(seed)
    lines = []
    v = 0
    while v < vertices // 5:
        k = rng.randint(3, 5)
        lines += [f"{v + i} {v + (i + 1) % k}" for i in range(k)]
        v += k
    for u in range(v, vertices):
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
            lines.append(f"{u} {rng.randrange(vertices)}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def voice_tables(tmp_path_factory):
    """name -> (path, 200 random position texts of the table)."""
    root = tmp_path_factory.mktemp("voice")
    random_digraph(root / "graph.txt")
    specs = {
        "graph": (f"digraph:{root / 'graph.txt'}", True),
        "bridgit3": ("bridgit:3", True),
        "hex4": ("hex:4", False),
    }
    out = {}
    for name, (spec, remoteness) in specs.items():
        path = root / f"{name}.rdb"
        retrodb.build(spec, path, remoteness=remoteness, progress=False)
        t = retrodb.open(path)
        rng = random.Random(name)
        texts = []
        while len(texts) < POSITIONS:
            try:
                p = t.game.parse(rng.randrange(t.game.size))
            except retrodb.PositionError:
                continue
            if t.get(p) is not None:
                texts.append(p.text)
        out[name] = (path, texts)
    values = [retrodb.open(p).value(x) for p, xs in out.values() for x in xs]
    assert {"win", "loss", "draw"} <= set(values), "the sample holds every value"
    return out


@pytest.fixture(scope="module")
def server(cli_binary, voice_tables):
    """`retrodb serve` on the three tables at a free port; yields the base URL."""
    directory = next(iter(voice_tables.values()))[0].parent
    proc = subprocess.Popen(
        [str(cli_binary), "serve", str(directory), "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        found = re.search(r"listening on (http://\S+?)/? ", line)
        assert found, f"no address in {line!r}: {proc.stderr.read() if proc.poll() else ''}"
        yield found.group(1).rstrip("/")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def http_batch(base, name, texts):
    req = urllib.request.Request(
        f"{base}/api/v1/tables/{name}/batch",
        data="\n".join(texts).encode(),
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return [json.loads(line) for line in r.read().decode().splitlines()]


def cli_json(cli, path, texts):
    o = cli("probe", path, "-", "--json", input="\n".join(texts) + "\n")
    assert o.returncode == 0, o.stderr
    return [json.loads(line) for line in o.stdout.splitlines()]


def words(value, plies):
    """The command line's words for a value (docs/NOTATION.md, "Values of moves")."""
    word = {"win": "wins", "loss": "loses", "draw": "draws"}[value]
    return f"{word} in {plies}" if plies is not None and value != "draw" else word


FLIP = {"win": "loss", "loss": "win", "draw": "draw"}
MOVE_FIELDS = {"move", "id", "result", "plies", "ends_game", "position", "value", "remoteness"}


def check_fields(name, p, t):
    """The fields are there, agree with each other, and with a probe of each child."""
    assert {"position", "index", "value", "remoteness", "game_over", "moves"} <= set(p)
    assert (p["remoteness"] is None) == (p["value"] == "draw" or name == "hex4"), p
    assert p["game_over"] == (p["moves"] == []), p
    for m in p["moves"]:
        assert set(m) == MOVE_FIELDS, m
        assert m["result"] == FLIP[m["value"]], m
        assert m["plies"] == (None if m["remoteness"] is None else m["remoteness"] + 1), m
        child = t.probe(m["position"])
        assert (child["value"], child["remoteness"]) == (m["value"], m["remoteness"]), m
        assert child["game_over"] == m["ends_game"], m
    ids = [m["id"] for m in p["moves"]]
    assert len(set(ids)) == len(ids), f"ids name moves apart: {p}"
    if p["moves"] and p["remoteness"] is not None and p["value"] == "win":
        assert p["moves"][0]["plies"] == p["remoteness"], p


def check_text(text, answers):
    """The command line's text: each position's line and each move's, in words, with the
    JSON's numbers."""
    lines = iter(text.splitlines())
    for p in answers:
        assert next(lines) == f"{p['position']}\t{words(p['value'], p['remoteness'])}"
        for m in p["moves"]:
            keeps = m["value"] == FLIP[p["value"]] or p["value"] == "loss"
            want = (
                f"  {'*' if keeps else ' '} {m['move']} -> {m['position']}\t"
                f"{words(m['result'], m['plies'])}\t(opponent: {words(m['value'], m['remoteness'])})"
            )
            assert next(lines) == want
    assert next(lines, None) is None


@pytest.mark.parametrize("name", ["graph", "bridgit3", "hex4"])
def test_cli_http_and_python_say_the_same(cli, voice_tables, server, name):
    path, texts = voice_tables[name]
    t = retrodb.open(path)
    from_cli = cli_json(cli, path, texts)
    from_http = http_batch(server, name, texts)
    from_python = [t.probe(x) for x in texts]
    assert len(from_cli) == len(from_http) == len(from_python) == POSITIONS
    for c, h, py in zip(from_cli, from_http, from_python):
        assert c == h == py, c["position"]
        check_fields(name, c, t)
    o = cli("probe", path, "-", input="\n".join(texts) + "\n")
    assert o.returncode == 0, o.stderr
    check_text(o.stdout, from_cli)
    moves = sum(len(p["moves"]) for p in from_cli)
    assert moves > POSITIONS, f"{name}: {moves} moves"
    # Every move of a cell game names its cell as its id; a digraph's, the vertex it goes to.
    for p in from_cli:
        for m in p["moves"]:
            want = int(m["move"]) if name == "graph" else int(re.match(r"\d+", m["move"])[0])
            assert m["id"] == want, m
