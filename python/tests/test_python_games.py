"""Games written in Python: retrodb.build with a game object whose batched NumPy callbacks
give each position's status and children (docs/PYTHON.md, "Your own game in Python"). Their
tables equal the built-in games' on the same graph, reopen without the game by index, and a
callback that breaks the protocol is refused naming it, with nothing left behind."""

import numpy as np
import pytest

import retrodb


class Token:
    """The token game on a directed graph, the digraph game's rules: a position is the vertex
    holding the token, a move follows an out-edge, the player who cannot move loses; a vertex
    no edge touches is no position. Cycles give draws."""

    def __init__(self, n, edges):
        self.name = "token"
        self.size = n
        order = np.lexsort((edges[:, 1], edges[:, 0]))
        src, dst = edges[order, 0], edges[order, 1]
        self.deg = np.bincount(src, minlength=n).astype(np.uint32)
        self.off = np.concatenate(([0], np.cumsum(self.deg))).astype(np.uint64)
        self.to = dst.astype(np.uint64)
        touched = np.zeros(n, bool)
        touched[src] = True
        touched[dst] = True
        self.codes = np.where(self.deg > 0, retrodb.OPEN, retrodb.LOSS).astype(np.uint8)
        self.codes[~touched] = retrodb.UNUSED

    def status(self, positions):
        return self.codes[positions]

    def children(self, positions):
        counts = self.deg[positions]
        starts = np.repeat(self.off[positions], counts)
        within = np.arange(counts.sum(), dtype=np.uint64) - np.repeat(
            np.cumsum(counts, dtype=np.uint64) - counts, counts)
        return counts, self.to[starts + within]


def random_graph(seed, n, m):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(m, 2), dtype=np.int64)


def test_a_loopy_game_equals_the_digraph_on_every_position(tmp_path):
    n, edges = 3000, random_graph(7, 3000, 7000)
    text = tmp_path / "g.txt"
    text.write_text("".join(f"{u} {v}\n" for u, v in edges))
    s = retrodb.build(Token(n, edges), tmp_path / "py.rdb", remoteness=True, progress=False)
    assert s["spec"] == f"graph:token,{n}" and s["engine"] == "counter"
    d = retrodb.build(f"digraph:{text}", tmp_path / "dg.rdb", remoteness=True, progress=False)
    # [unused, win, loss, draw]: the digraph's ids end at its largest vertex.
    assert s["counts"][1:] == d["counts"][1:] and s["counts"][3] > 0, (s["counts"], d["counts"])
    py, dg = retrodb.open(tmp_path / "py.rdb"), retrodb.open(tmp_path / "dg.rdb")
    for v in range(n):
        if str(v) in dg:
            assert py.value(str(v)) == dg.value(str(v)), v
            assert py.remoteness(str(v)) == dg.remoteness(str(v)), v


class Heaps:
    """Three heaps of 0..H tokens; a move takes 1, 2 or 3 tokens from one heap; the player who
    cannot move loses. A position is lost exactly where the heaps' sizes modulo 4 XOR to 0."""

    def __init__(self, h):
        self.h = h
        self.name = f"heaps-{h}"
        self.size = (h + 1) ** 3

    def heaps(self, p):
        b = self.h + 1
        return p // (b * b), (p // b) % b, p % b

    def status(self, positions):
        a, b, c = self.heaps(positions)
        return np.where(a + b + c == 0, retrodb.LOSS, retrodb.OPEN).astype(np.uint8)

    def children(self, positions):
        base = self.h + 1
        heaps = self.heaps(positions.astype(np.int64))
        weights = (base * base, base, 1)
        kids = []
        for heap, w in zip(heaps, weights):
            for take in (1, 2, 3):
                kids.append(np.where(heap >= take, positions.astype(np.int64) - take * w, -1))
        kids = np.stack(kids, axis=1)
        ok = kids >= 0
        return ok.sum(axis=1).astype(np.uint32), kids[ok].astype(np.uint64)


def test_a_vectorised_game_has_its_closed_form(tmp_path):
    game = Heaps(24)
    retrodb.build(game, tmp_path / "h.rdb", progress=False)
    t = retrodb.open(tmp_path / "h.rdb")
    assert t.spec == f"graph:heaps-24,{25 ** 3}"
    p = np.arange(game.size)
    a, b, c = game.heaps(p)
    lost = ((a % 4) ^ (b % 4) ^ (c % 4)) == 0
    got = t.values([str(i) for i in range(game.size)])
    assert got == ["loss" if x else "win" for x in lost]


def test_a_table_reopens_without_the_game_by_index(tmp_path, cli):
    retrodb.build(Heaps(5), tmp_path / "h.rdb", remoteness=True, progress=False)
    t = retrodb.open(tmp_path / "h.rdb")
    # Position 3 is one heap of 3 (taken at once), 4 one of 4 (lost in two plies).
    assert t.value("0") == "loss" and t.value("3") == "win" and t.remoteness("3") == 1
    assert t.value("4") == "loss" and t.remoteness("4") == 2
    out = cli("probe", str(tmp_path / "h.rdb"), "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("3\t") and "win" in out.stdout, out.stdout
    # The command line's info, compress and decompress take it like any table.
    info = cli("info", str(tmp_path / "h.rdb"), "--json")
    assert info.returncode == 0 and '"graph:heaps-5,216"' in info.stdout, info.stderr
    z, back = tmp_path / "z.rdb", tmp_path / "back.rdb"
    assert cli("compress", str(tmp_path / "h.rdb"), str(z)).returncode == 0
    assert cli("decompress", str(z), str(back)).returncode == 0
    assert back.read_bytes() == (tmp_path / "h.rdb").read_bytes()
    every = [str(p) for p in range(216)]
    assert retrodb.open(z).values(every) == t.values(every)
    # Compressed while the graph is at hand, read without it: every position is stored, none
    # left to rules the reader does not have (a drawn or won end read back as lost before).
    hex3, raw, packed = Hex3(), tmp_path / "hex-raw.rdb", tmp_path / "hex-z.rdb"
    retrodb.build(hex3, raw, progress=False)
    retrodb.build(hex3, packed, compress=True, progress=False)
    every = [str(p) for p in range(hex3.size)]
    assert retrodb.open(packed).values(every) == retrodb.open(raw).values(every)


def connects(cells, who, across):
    """Whether `who`'s cells of a 3 x 3 Hex board (row-major) join its two sides: columns 0 and
    2 for Left (1), rows 0 and 2 for Right (2)."""
    start = [i for i in range(9) if cells[i] == who and (i % 3 if across == "cols" else i // 3) == 0]
    seen, todo = set(start), list(start)
    while todo:
        r, c = divmod(todo.pop(), 3)
        if (c if across == "cols" else r) == 2:
            return True
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0), (-1, 1), (1, -1)):
            rr, cc = r + dr, c + dc
            j = rr * 3 + cc
            if 0 <= rr < 3 and 0 <= cc < 3 and cells[j] == who and j not in seen:
                seen.add(j)
                todo.append(j)
    return False


class Hex3:
    """Hex on the 3 x 3 rhombus written in Python, with tiers (the stones on the board): index
    2 * board + mover, the board's cell i a base-3 digit (0 empty, 1 Left's, 2 Right's), mover 0
    for Left; every configuration with either player to move, as the built-in hex:3 has."""

    def __init__(self):
        self.name, self.size = "hex3", 2 * 3 ** 9
        boards = np.arange(3 ** 9)
        self.digits = (boards[:, None] // 3 ** np.arange(9)) % 3
        left = np.array([connects(d, 1, "cols") for d in self.digits])
        right = np.array([connects(d, 2, "rows") for d in self.digits])
        codes = np.full((3 ** 9, 2), retrodb.OPEN, np.uint8)
        codes[left] = (retrodb.WIN, retrodb.LOSS)
        codes[right] = (retrodb.LOSS, retrodb.WIN)
        self.codes = codes.ravel()

    def status(self, positions):
        return self.codes[positions]

    def children(self, positions):
        b, m = positions // 2, positions % 2
        rows, cols = np.nonzero(self.digits[b] == 0)
        boards = b[rows] + (m[rows] + 1) * 3 ** cols.astype(np.uint64)
        counts = np.bincount(rows, minlength=len(positions)).astype(np.uint32)
        return counts, (2 * boards + 1 - m[rows]).astype(np.uint64)

    def tier(self, positions):
        return (self.digits[positions // 2] != 0).sum(axis=1).astype(np.uint32)

    def text(self, p):
        return "".join(".LR"[x] for x in self.digits[p // 2]) + ("/L", "/R")[p % 2]


def test_an_acyclic_game_with_tiers_equals_its_built_in_counterpart(tmp_path):
    game = Hex3()
    s = retrodb.build(game, tmp_path / "py.rdb", remoteness=True, progress=False)
    assert s["engine"] == "tiered" and s["kernel"] == "per-position", s
    retrodb.build("hex:3", tmp_path / "hex.rdb", remoteness=True, progress=False)
    py, hx = retrodb.open(tmp_path / "py.rdb"), retrodb.open(tmp_path / "hex.rdb")
    every = range(game.size)
    assert py.values([str(p) for p in every]) == hx.values([game.text(p) for p in every])
    for p in range(0, game.size, 7):
        assert py.remoteness(str(p)) == hx.remoteness(game.text(p)), game.text(p)


def test_tiers_that_a_move_goes_down_are_refused(tmp_path):
    class Upside(Hex3):
        def tier(self, positions):
            return (9 - super().tier(positions)).astype(np.uint32)

    with pytest.raises(retrodb.GameError, match="tier: position .* not a higher one"):
        retrodb.build(Upside(), tmp_path / "t.rdb", progress=False)
    assert list(tmp_path.iterdir()) == []


class Broken(Heaps):
    """Heaps with one planted fault in its answers."""

    def __init__(self, fault):
        super().__init__(6)
        self.fault = fault
        self.calls = 0

    def status(self, positions):
        codes = super().status(positions)
        if self.fault == "dtype":
            return codes.astype(np.int64)
        if self.fault == "length":
            return codes[:-1]
        if self.fault == "unused":
            codes[positions == 1] = retrodb.UNUSED
        self.calls += 1
        if self.fault == "changes" and self.calls > 1:
            codes[positions == 0] = retrodb.DRAW
        return codes

    def children(self, positions):
        if self.fault == "raises":
            raise ZeroDivisionError("planted")
        counts, kids = super().children(positions)
        if self.fault == "out of range":
            kids[5] = self.size + 10
        if self.fault == "counts":
            counts[0] += 1
        return counts, kids


@pytest.mark.parametrize("fault, says", [
    ("dtype", "status (the batch from position 0): expected a NumPy array of uint8, got int64"),
    ("length", "expected 343 uint8 values"),
    ("out of range", "has child 353, outside 0..343"),
    ("counts", "the counts add up to"),
    ("raises", "children raised an exception on the batch from position 0"),
    ("unused", "position 2 has child 1, which status calls UNUSED"),
    ("changes", "status answered for position 0 otherwise when asked again"),
])
def test_a_broken_callback_is_named_and_leaves_nothing(tmp_path, fault, says):
    out = tmp_path / "t.rdb"
    with pytest.raises(retrodb.GameError) as e:
        retrodb.build(Broken(fault), out, progress=False)
    assert says in str(e.value), str(e.value)
    if fault == "raises":
        assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert list(tmp_path.iterdir()) == []


def test_an_open_position_without_children_is_refused(tmp_path):
    class Stuck(Heaps):
        def status(self, positions):
            codes = super().status(positions)
            codes[positions == 0] = retrodb.OPEN
            return codes

    with pytest.raises(retrodb.GameError, match="position 0 is open .* but has no children"):
        retrodb.build(Stuck(3), tmp_path / "t.rdb", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_reading_stops_with_nothing_left(tmp_path):
    import signal

    class Interrupted(Heaps):
        def children(self, positions):
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C would, inside the callback
            return super().children(positions)

    with pytest.raises(KeyboardInterrupt):
        retrodb.build(Interrupted(6), tmp_path / "t.rdb", progress=False)
    assert list(tmp_path.iterdir()) == []


class TakeTwo(Heaps):
    """The heaps under other rules (a move takes 1 or 2 tokens), under the same name."""

    def children(self, positions):
        b, p = self.h + 1, positions.astype(np.int64)
        kids = np.stack([np.where(heap >= t, p - t * w, -1)
                         for heap, w in zip(self.heaps(p), (b * b, b, 1)) for t in (1, 2)],
                        axis=1)
        ok = kids >= 0
        return ok.sum(axis=1).astype(np.uint32), kids[ok].astype(np.uint64)


def test_verify_checks_a_sample_against_the_game(tmp_path):
    game = Heaps(20)
    retrodb.build(game, tmp_path / "h.rdb", remoteness=True, progress=False)
    assert retrodb.verify(tmp_path / "h.rdb", game) == 4096
    with pytest.raises(retrodb.GameError, match="verify: position "):
        retrodb.verify(tmp_path / "h.rdb", TakeTwo(20))
    with pytest.raises(retrodb.GameError, match="not of this game"):
        retrodb.verify(tmp_path / "h.rdb", Heaps(5))


def test_a_table_with_its_game_answers_by_text_and_names_moves(tmp_path):
    class Named(Hex3):
        def parse(self, text):
            cells, mover = text.split("/")
            board = sum(".LR".index(ch) * 3 ** i for i, ch in enumerate(cells))
            return 2 * board + "LR".index(mover)

        def move_name(self, p, child):
            return "abc"[int(np.flatnonzero(self.digits[child // 2] != self.digits[p // 2])[0]) % 3] + \
                str(int(np.flatnonzero(self.digits[child // 2] != self.digits[p // 2])[0]) // 3 + 1)

    game = Named()
    retrodb.build(game, tmp_path / "x.rdb", progress=False)
    t = retrodb.GameTable(tmp_path / "x.rdb", game)
    assert t.value("........./L") == "win" and t.text(0) == "........./L"
    moves = t.moves("........./L")
    assert len(moves) == 9 and {m[0] for m in moves} == {c + r for c in "abc" for r in "123"}
    # The centre wins for Left: the child is lost for Right.
    assert ("b2", 2 * 3 ** 4 + 1, "loss") in moves
