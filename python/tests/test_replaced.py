"""A table file changed under an open table (an operator's `cp` over it) raises TableError
naming the file, and the interpreter lives (before: SIGBUS killed it with no exception); a FIFO
given as a table is refused at once instead of waiting for a writer."""

import os

import pytest

import retrodb


def copy_in_place(source, target):
    """What `cp source target` does to an existing target: truncate it, then write."""
    data = source.read_bytes()
    with open(target, "r+b") as f:
        f.truncate(0)
        f.write(data)


@pytest.mark.parametrize("compress", [False, True])
def test_a_table_copied_over_while_open_raises_table_error(tmp_path, compress):
    small = tmp_path / "small.rdb"
    retrodb.build("bridgit:2", small, progress=False)
    path = tmp_path / "t.rdb"
    retrodb.build("bridgit:3", path, compress=compress, progress=False)
    t = retrodb.open(path)
    empty = "." * 13
    assert t.value(empty) == "win"
    copy_in_place(small, path)
    with pytest.raises(retrodb.TableError) as e:
        t.value(empty)
    assert "t.rdb" in str(e.value) and "changed on disk" in str(e.value)
    # Every later call says the same; the table opened again reads the new file.
    with pytest.raises(retrodb.TableError):
        t.probe(empty)
    t.close()
    assert retrodb.open(path).info()["game"] == "bridgit:2"


def test_a_fifo_is_not_a_table(tmp_path):
    fifo = tmp_path / "f.rdb"
    os.mkfifo(fifo)
    with pytest.raises(retrodb.TableError) as e:
        retrodb.open(fifo)
    assert "not a regular file" in str(e.value)
