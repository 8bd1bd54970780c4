"""A claim tested on every position of Bridg-It 3: there is no zugzwang.

For every board (every way the 13 cells can be claimed), compare who wins with Left to move
and who wins with Right to move. The claim: it is never the case that each player, made to
move, loses, i.e. having the move never hurts. Run from the repository after
`pip install ./python`:

    python docs/examples/bridgit3_claim.py [TABLE]
"""

import sys
import time

import retrodb

started = time.perf_counter()
path = sys.argv[1] if len(sys.argv) > 1 else "bridgit3.rdb"
retrodb.build("bridgit:3", path, compress=True, progress=False)
table = retrodb.open(path)
built = time.perf_counter() - started

# Positions come in index order, the same board with Left and then Right to move side by side.
boards = first_move_wins = counterexamples = 0
last_board, last_winner = None, None
for text, value in table.positions():
    board, mover = text[:-2], text[-1]
    winner = mover if value == "win" else {"L": "R", "R": "L"}[mover]
    if board == last_board:  # the second of the pair: Right to move
        boards += 1
        first_move_wins += last_winner == "L" and winner == "R"
        if last_winner == "R" and winner == "L":  # each mover loses: a zugzwang
            counterexamples += 1
            print("zugzwang:", board)
    last_board, last_winner = board, winner

print(f"{len(table):,} positions, {boards:,} boards with either player to move")
print(f"boards the player to move wins, whoever it is: {first_move_wins:,}")
print(f"boards where having the move loses: {counterexamples}")
print(f"claim {'holds' if counterexamples == 0 else 'FAILS'}; "
      f"build {built:.1f} s, check {time.perf_counter() - started - built:.1f} s")
