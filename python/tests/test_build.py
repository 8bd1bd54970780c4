"""retrodb.build: the command line's build from Python, with its estimate, threads,
compression, the interpreter released while solving, and Ctrl-C."""

import os
import re
import signal
import threading
import time

import pytest

import retrodb
from conftest import DATA


def test_summary_and_options(tmp_path):
    s = retrodb.build("hex:3", tmp_path / "a.rdb", progress=False)
    assert s["spec"] == "hex:3" and s["complete"] and s["engine"] == "tiered"
    assert s["kernel"] == "bitplane"
    assert s["positions"] == 39366 and sum(s["counts"]) == 39366
    assert s["compress_seconds"] is None and s["file_bytes"] == (tmp_path / "a.rdb").stat().st_size
    z = retrodb.build("hex:3", tmp_path / "z.rdb", compress=True, remoteness=True, threads=1,
                      progress=False)
    assert z["compress_seconds"] is not None and z["counts"] == s["counts"]
    a, b = retrodb.open(tmp_path / "a.rdb"), retrodb.open(tmp_path / "z.rdb")
    # A board's remoteness is kept in half a byte a position, relative to the value.
    assert b.info()["encoding"] == "zstd" and b.info()["remoteness_bytes"] == 0.5
    assert list(a.positions()) == list(b.positions())
    # Nothing but the tables is left beside them.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.rdb", "z.rdb"]


def test_counter_engine_game(tmp_path):
    from conftest import DATA
    s = retrodb.build(f"digraph:{DATA}/seed001.txt", tmp_path / "d.rdb", progress=False)
    assert s["engine"] == "counter" and s["kernel"] == "counter" and s["counts"][3] > 0  # draws


def test_progress_prints_the_cli_estimate(tmp_path, capsys, cli):
    retrodb.build("bridgit:2", tmp_path / "b.rdb", progress=True)
    err = capsys.readouterr().err.splitlines()
    r = cli("build", "bridgit:2", "-o", tmp_path / "c.rdb")
    assert r.returncode == 0, r.stderr
    cli_lines = r.stderr.splitlines()
    # The same estimate; the memory limit (a share of the memory available now) and the free
    # disk may move between the two builds, so they are left out of the comparison.
    def steady(line):
        return re.sub(r"\(limit [^)]*\)|\([^)]* free\)", "(...)", line)

    assert steady(err[0]) == steady(cli_lines[0])
    assert err[0].startswith(
        "bridgit:2: 486 positions, tiered engine (bitplane kernel), estimated peak memory")
    assert err[1].startswith("  this run: tiers 5 down to 0 of 6; bitplane kernel, memory")
    assert steady(err[1]) == steady(cli_lines[1])


def test_build_releases_the_interpreter(tmp_path):
    done = threading.Event()
    result = {}

    def work():
        result["summary"] = retrodb.build("hex:4,start=L", tmp_path / "h.rdb", progress=False,
                                          remoteness=True)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    spins, gap = 0, 0.0
    last = time.monotonic()
    while not done.is_set():
        spins += 1
        now = time.monotonic()
        gap, last = max(gap, now - last), now
    worker.join()
    solve = result["summary"]["solve_seconds"]
    # This thread kept running Python while the build solved: had the build held the
    # interpreter, this loop would have stood still for the whole solve. (A fixed floor on the
    # build's time failed once the build became faster than it.)
    assert solve > 0.02, solve
    assert spins > 1000 and gap < solve / 2, (spins, gap, solve)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach the main thread only")
def test_ctrl_c_stops_a_build(tmp_path):
    # The 3 x 4 grid without its diagonal (17 edges, 2 * 3^17 = 258M positions): with
    # remoteness on one thread its build takes over a second even on a fast machine (hex:4 takes
    # half of one, too close to the interrupt below), so the interrupt lands while solving.
    grid = (DATA / "shannon" / "grid3x4.txt").read_text().splitlines()
    graph = tmp_path / "grid17.txt"
    graph.write_text("\n".join(l for l in grid if l.strip() != "5 10") + "\n")
    spec = f"shannon:{graph}"
    out = tmp_path / "g.rdb"
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    # A process started in the background by a shell without job control (as a CI runner may
    # start this one) inherits SIGINT ignored, and Python then keeps it ignored: the interpreter's
    # own Ctrl-C handler is put in place for the test, as in an interactive session.
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            retrodb.build(spec, out, remoteness=True, threads=1, progress=False)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, handler)
    stopped = time.monotonic() - started
    assert not out.exists()
    # The lock is released and the same build runs to the end afterwards.
    s = retrodb.build(spec, out, remoteness=True, threads=1, progress=False)
    # Short (Left) moving first loses (Lehman: no subgraph joining the corners holds two
    # edge-disjoint spanning trees, as a grid subgraph on k vertices has fewer than 2k - 2 edges).
    assert s["complete"] and retrodb.open(out).value("." * 17) == "loss"
    # The interrupted build stopped well before a whole build's time.
    assert stopped < 0.2 + s["solve_seconds"] / 2, (stopped, s["solve_seconds"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.rdb", "grid17.txt"]
