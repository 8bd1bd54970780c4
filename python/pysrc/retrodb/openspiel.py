"""OpenSpiel's games on retrodb's solver (an optional extra: ``pip install retrodb[openspiel]``).

    import retrodb.openspiel as ros
    ros.build("tic_tac_toe", "ttt.rdb", remoteness=True)
    t = ros.open("ttt.rdb", "tic_tac_toe")
    t.value(state), t.remoteness(state), t.best_actions(state), t.policy()

`build` takes a game that is deterministic, sequential, perfect-information, two-player and
zero-sum (or constant-sum), refuses any other with the reason, enumerates every state reachable
from the initial one, and builds its table through retrodb's Python game protocol. A state is
keyed by its text (``str(state)``), the player to move and its move number, so states reached
by different move orders are one, and a game's own turn limit stays part of its rules. Values
are for the player to move; a terminal state's player to move is the one after the last mover,
and its value is the sign of that player's return. The keys are kept beside the table in
``PATH.states`` (one JSON string a line, in index order), which `open` reads.
"""

import builtins
import collections
import json

import numpy as np

import retrodb

__all__ = ["build", "open", "Table"]


def _pyspiel():
    try:
        import pyspiel
    except ImportError as e:
        raise retrodb.GameError(
            "OpenSpiel is not installed: pip install retrodb[openspiel] (or open_spiel)") from e
    return pyspiel


def _load(game):
    """The game, loaded by name (with parameters) where a string is given, once it is one
    retrodb solves."""
    pyspiel = _pyspiel()
    if isinstance(game, str):
        game = pyspiel.load_game(game)
    t = game.get_type()
    T = pyspiel.GameType
    why = []
    if t.dynamics != T.Dynamics.SEQUENTIAL:
        why.append("its moves are simultaneous")
    if t.chance_mode != T.ChanceMode.DETERMINISTIC:
        why.append("it has chance nodes")
    if t.information != T.Information.PERFECT_INFORMATION:
        why.append("its information is imperfect")
    if game.num_players() != 2:
        why.append(f"it has {game.num_players()} players")
    if t.utility not in (T.Utility.ZERO_SUM, T.Utility.CONSTANT_SUM):
        why.append("it is not zero-sum")
    if why:
        raise retrodb.GameError(
            f"{t.short_name}: retrodb solves deterministic, perfect-information, two-player, "
            f"zero-sum games; this one is not: {'; '.join(why)}")
    return game


def _key(state, to_move):
    return json.dumps([str(state), to_move, state.move_number()])


class _Graph:
    """Every state reachable from the initial one, numbered in the order found, as retrodb's
    Python game protocol asks for it (status and children callbacks on arrays)."""

    def __init__(self, game, progress=False):
        self.name = str(game)
        root = game.new_initial_state()
        self.keys, self.codes, self.kids, self.actions = [], [], [], []
        index = {}

        def number(state, to_move):
            k = _key(state, to_move)
            if k not in index:
                index[k] = len(self.keys)
                self.keys.append(k)
                self.codes.append(None)
                self.kids.append(())
                self.actions.append(())
                todo.append((index[k], state, to_move))
            return index[k]

        todo = collections.deque()
        number(root, root.current_player())
        while todo:
            i, state, to_move = todo.popleft()
            if state.is_terminal():
                r = state.returns()[to_move] - state.returns()[1 - to_move]
                self.codes[i] = retrodb.WIN if r > 0 else retrodb.LOSS if r < 0 else retrodb.DRAW
                continue
            self.codes[i] = retrodb.OPEN
            kids, actions = [], []
            for a in state.legal_actions():
                child = state.child(a)
                nxt = 1 - to_move if child.is_terminal() else child.current_player()
                if nxt == to_move:
                    raise retrodb.GameError(
                        f"{self.name}: player {to_move} moves twice in a row after action {a}; "
                        "retrodb's values are for players who alternate")
                kids.append(number(child, nxt))
                actions.append(a)
            self.kids[i], self.actions[i] = tuple(kids), tuple(actions)
            if progress and len(self.keys) % 100_000 == 0:
                print(f"\r{self.name}: {len(self.keys):,} states", end="", flush=True)
        self.size = len(self.keys)
        self.codes = np.array(self.codes, np.uint8)
        self.counts = np.array([len(k) for k in self.kids], np.uint32)

    def status(self, positions):
        return self.codes[positions]

    def children(self, positions):
        kids = [c for p in positions.tolist() for c in self.kids[p]]
        return self.counts[positions], np.array(kids, np.uint64)


def build(game, path, remoteness=False, compress=False, progress=True):
    """Builds the table of every state reachable in an OpenSpiel game (a `pyspiel` game, or its
    name with parameters: ``"hex(board_size=3)"``) into `path`, and its keys into
    ``PATH.states``; returns the build's summary with ``states`` (the number found)."""
    game = _load(game)
    graph = _Graph(game, progress)
    summary = retrodb.build(graph, path, remoteness=remoteness, compress=compress,
                            progress=progress)
    with builtins.open(f"{path}.states", "w") as f:
        for k in graph.keys:
            f.write(k + "\n")
    summary["states"] = graph.size
    return summary


def open(path, game):  # noqa: A001 - retrodb.openspiel.open, as retrodb.open
    """The table of an OpenSpiel game built by `build`, with its keys: answers for states."""
    return Table(path, _load(game))


class Table:
    """An OpenSpiel game's table: values for the player to move ("win", "loss", "draw"),
    remoteness, the best actions (OpenSpiel action ids) and an optimal policy."""

    def __init__(self, path, game):
        self.game = game
        self.table = retrodb.open(path)
        with builtins.open(f"{path}.states") as f:
            keys = [line.rstrip("\n") for line in f]
        if len(keys) != len(self.table):
            raise retrodb.TableError(f"{path}.states holds {len(keys)} keys for "
                                     f"{len(self.table)} positions")
        self.index = {k: i for i, k in enumerate(keys)}

    def _at(self, state, to_move=None):
        if to_move is None:
            to_move = state.current_player()
        i = self.index.get(_key(state, to_move))
        if i is None:
            raise retrodb.PositionError(f"a state the table does not hold:\n{state}")
        return str(i)

    def value(self, state):
        return self.table.value(self._at(state))

    def remoteness(self, state):
        return self.table.remoteness(self._at(state))

    def _children(self, state):
        me = state.current_player()
        for a in state.legal_actions():
            child = state.child(a)
            nxt = 1 - me if child.is_terminal() else child.current_player()
            at = self._at(child, nxt)
            yield a, self.table.value(at), self.table.remoteness(at)

    def best_actions(self, state):
        """The actions that keep the value of `state` for the player to move: to a child lost
        for the opponent (soonest, where the table has remoteness), else drawn, else lost
        (latest)."""
        kids = list(self._children(state))
        for want, pick in (("loss", min), ("draw", None), ("win", max)):
            chosen = [(a, r) for a, v, r in kids if v == want]
            if not chosen:
                continue
            if pick is None or chosen[0][1] is None:
                return [a for a, _ in chosen]
            best = pick(r for _, r in chosen)
            return [a for a, r in chosen if r == best]
        return []

    def policy(self):
        """An optimal policy as OpenSpiel's tools take it: uniform over the best actions."""
        from open_spiel.python import policy as ospolicy

        table = self

        class Optimal(ospolicy.Policy):
            def __init__(self):
                super().__init__(table.game, [0, 1])

            def action_probabilities(self, state, player_id=None):
                best = table.best_actions(state)
                return {a: 1.0 / len(best) for a in best}

        return Optimal()
