"""Shared fixtures: the retrodb command-line binary (to compare answers with) and a set of
tables of every game family, built once per test session through the Python module."""

import os
import pathlib
import subprocess

import pytest

import retrodb

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "data"

# One table per game family (and the variants that matter: draws, remoteness, compression,
# unused indices). Each: name -> (spec, build options).
TABLES = {
    "digraph": (f"digraph:{DATA}/seed001.txt", dict(remoteness=True)),
    "digraph-grundy": (f"digraph:{DATA}/seed001.txt", dict(grundy=True, compress=True)),
    "shannon": (f"shannon:{DATA}/shannon/k4.txt", dict(remoteness=True)),
    "shannon-square": (f"shannon:{DATA}/shannon/square.txt", dict(compress=True)),
    "shannon-vertex": (f"shannon-vertex:{DATA}/shannon/grid3x4.txt", dict(remoteness=True)),
    "bridgit2": ("bridgit:2", dict(remoteness=True, compress=True)),
    "bridgit3": ("bridgit:3", dict(compress=True)),
    "hex3": ("hex:3", dict(remoteness=True)),
    "hex3-startL": ("hex:3,start=L", dict(compress=True)),
    "hackenbush": (f"hackenbush:{DATA}/hackenbush-house.txt", dict(remoteness=True)),
    "hackenbush-stalk": ("hackenbush-stalk:BRRGB", dict()),
    "hackenbush-tree": ("hackenbush-tree:l(l;rl)", dict(compress=True)),
}


def _find_cli():
    """The retrodb binary: $RETRODB_BIN, else the workspace's newest build, else built now."""
    if os.environ.get("RETRODB_BIN"):
        return pathlib.Path(os.environ["RETRODB_BIN"])
    found = [REPO / "target" / p / "retrodb" for p in ("debug", "release")]
    found = [p for p in found if p.exists()]
    if not found:
        subprocess.run(["cargo", "build", "--quiet", "--bin", "retrodb"], cwd=REPO, check=True)
        found = [REPO / "target" / "debug" / "retrodb"]
    return max(found, key=lambda p: p.stat().st_mtime)


@pytest.fixture(scope="session")
def cli_binary():
    """The path of the retrodb command-line binary."""
    return _find_cli()


@pytest.fixture(scope="session")
def cli(cli_binary):
    """Runs the retrodb command line; returns the CompletedProcess (text mode)."""
    binary = cli_binary

    def run(*args, input=None):
        return subprocess.run(
            [str(binary), *map(str, args)],
            input=input,
            capture_output=True,
            text=True,
            cwd=REPO,
        )

    return run


@pytest.fixture(scope="session")
def tables(tmp_path_factory):
    """name -> path of a table built by retrodb.build."""
    root = tmp_path_factory.mktemp("tables")
    out = {}
    for name, (spec, opts) in TABLES.items():
        path = root / f"{name}.rdb"
        summary = retrodb.build(spec, path, progress=False, **opts)
        assert summary["complete"] and pathlib.Path(summary["path"]) == path
        out[name] = path
    return out
