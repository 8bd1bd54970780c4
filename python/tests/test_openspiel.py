"""OpenSpiel's games on retrodb's solver (retrodb.openspiel): every reachable state's value
against an exhaustive minimax over OpenSpiel's own states, the best actions and the policy, and
the games refused. Needs open_spiel (`pip install retrodb[openspiel]`; `.ci/run` installs it)."""

import sys

import pytest

pyspiel = pytest.importorskip("pyspiel")

import retrodb  # noqa: E402
import retrodb.openspiel as ros  # noqa: E402

GAMES = ["tic_tac_toe", "hex(board_size=3)", "clobber(rows=3,columns=3)", "mnk(m=3,n=4,k=3)"]


def minimax(game):
    """Every reachable state's value for the player to move (1, 0, -1), by a negamax over
    OpenSpiel's states that shares nothing with retrodb but the states' keys."""
    sys.setrecursionlimit(10_000)
    memo = {}

    def solve(state, to_move):
        k = ros._key(state, to_move)
        if k not in memo:
            if state.is_terminal():
                r = state.returns()[to_move] - state.returns()[1 - to_move]
                memo[k] = (r > 0) - (r < 0)
            else:
                best = -1
                for a in state.legal_actions():
                    child = state.child(a)
                    nxt = 1 - to_move if child.is_terminal() else child.current_player()
                    best = max(best, -solve(child, nxt))
                memo[k] = best
        return memo[k]

    root = game.new_initial_state()
    solve(root, root.current_player())
    return memo


@pytest.mark.parametrize("name", GAMES)
def test_every_reachable_state_has_the_minimax_value(tmp_path, name):
    s = ros.build(name, tmp_path / "t.rdb", remoteness=True, progress=False)
    t = ros.open(tmp_path / "t.rdb", name)
    memo = minimax(pyspiel.load_game(name))
    assert s["states"] == len(memo) == len(t.index)
    words = {1: "win", 0: "draw", -1: "loss"}
    got = t.table.values([str(t.index[k]) for k in memo])
    assert got == [words[v] for v in memo.values()]


def test_best_actions_keep_the_value_and_the_policy_is_optimal(tmp_path):
    from open_spiel.python.algorithms import expected_game_score

    game = pyspiel.load_game("tic_tac_toe")
    ros.build(game, tmp_path / "t.rdb", remoteness=True, progress=False)
    t = ros.open(tmp_path / "t.rdb", game)
    root = game.new_initial_state()
    assert t.value(root) == "draw" and t.remoteness(root) is None
    # Every best action from every state of a line of play keeps the value.
    state = root
    opposite = {"win": "loss", "loss": "win", "draw": "draw"}
    while not state.is_terminal():
        best = t.best_actions(state)
        assert best and set(best) <= set(state.legal_actions())
        for a in best:
            child = state.child(a)
            if not child.is_terminal():
                assert t.value(child) == opposite[t.value(state)]
        state = state.child(best[0])
    # The policy against itself draws; against a random player it wins on average, in either
    # seat (OpenSpiel's own evaluation of policies).
    from open_spiel.python import policy as ospolicy

    policy, rnd = t.policy(), ospolicy.UniformRandomPolicy(game)
    assert list(expected_game_score.policy_value(root, [policy, policy])) == [0.0, 0.0]
    assert expected_game_score.policy_value(root, [policy, rnd])[0] > 0.5
    assert expected_game_score.policy_value(root, [rnd, policy])[1] > 0.5


def test_games_retrodb_cannot_solve_are_refused_with_the_reason(tmp_path):
    with pytest.raises(retrodb.GameError, match="chance nodes"):
        ros.build("kuhn_poker", tmp_path / "k.rdb", progress=False)
    with pytest.raises(retrodb.GameError, match="simultaneous"):
        ros.build("matrix_rps", tmp_path / "m.rdb", progress=False)
    assert list(tmp_path.iterdir()) == []
