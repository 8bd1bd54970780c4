#!/usr/bin/env python3
"""The house's rules, checked: the layers, the sizes and the formatting (docs/ARCHITECTURE.md).

Run from anywhere: `python3 scripts/check-rules.py`. It prints each broken rule with the file and
line that breaks it and exits 1 when there is any; it prints one line and exits 0 otherwise.

- layers: none of the greps in docs/ARCHITECTURE.md's fenced blocks prints a line (a layer
  that imports one above it, a solver that reads a notation, printing below the front ends);
- sizes: no `.rs` file over MAX_FILE_LINES lines and no function over MAX_FN_LINES lines,
  tests aside (files under `tests/`, `tests.rs` files and `mod tests` blocks);
- formatting: `rustfmt --check` finds every tracked `.rs` file formatted, the modules a macro
  declares included (`cargo fmt --check` follows `mod` items only).

`--list` prints every violation of the sizes (the default stops at none: it prints them all too;
the flag only adds the largest sizes that pass, for planning).
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FILE_LINES = 700
MAX_FN_LINES = 120

ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"

FN_START = re.compile(
    r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
    r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)"
)
TEST_MOD = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?mod\s+tests\s*\{")


def tracked_rust_files():
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.rs"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode()
    return sorted(p for p in out.split("\0") if p and (ROOT / p).exists())


def is_test_file(path):
    return path.startswith("tests/") or "/tests/" in path or path.endswith("tests.rs")


def architecture_greps():
    """Every `grep` line of a fenced block of docs/ARCHITECTURE.md, its trailing comment cut:
    the rules the document states are the ones run, so the two cannot drift apart."""
    greps, fenced = [], False
    for n, line in enumerate(ARCHITECTURE.read_text().splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif fenced and line.startswith("grep "):
            greps.append((n, re.split(r"\s{2,}#\s", line)[0].strip()))
    return greps


def grep_layers():
    broken = []
    for n, command in architecture_greps():
        out = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True)
        for hit in out.stdout.splitlines():
            broken.append(f"layers (docs/ARCHITECTURE.md:{n}: {command}): {hit}")
        # A grep of a path that has moved checks nothing: its complaint is a broken rule too.
        for err in out.stderr.splitlines():
            broken.append(f"layers (docs/ARCHITECTURE.md:{n}: {command}): {err}")
    return broken


def function_sizes(path, lines):
    """(name, first line, length) of each function outside `mod tests` blocks."""
    found = []
    i = 0
    while i < len(lines):
        m = TEST_MOD.match(lines[i])
        if m:
            end = closing(lines, i, m.group(1))
            i = end + 1
            continue
        m = FN_START.match(lines[i])
        if m and not body_less(lines, i):
            end = closing(lines, i, m.group(1))
            found.append((m.group(2), i + 1, end - i + 1))
        i += 1
    return found


def test_lines(lines):
    """The lines of a file's `mod tests` blocks (their `#[cfg(test)]` line included)."""
    n, i = 0, 0
    while i < len(lines):
        m = TEST_MOD.match(lines[i])
        if m:
            end = closing(lines, i, m.group(1))
            attr = i > 0 and lines[i - 1].strip() == "#[cfg(test)]"
            n += end - i + 1 + int(attr)
            i = end + 1
            continue
        i += 1
    return n


def body_less(lines, i):
    """A declaration without a body (a trait's method): its signature ends in ';'."""
    for line in lines[i:i + 40]:
        s = line.rstrip()
        if s.endswith("{") or s.endswith("}"):
            return False
        if s.endswith(";"):
            return True
    return False


def closing(lines, i, indent):
    """The line of the `}` at `indent` that closes the item opened at line `i` (rustfmt's layout),
    or the item's own line where it closes on it."""
    if lines[i].rstrip().endswith("}") and lines[i].count("{") == lines[i].count("}"):
        return i
    for j in range(i + 1, len(lines)):
        if lines[j].startswith(indent + "}") and not lines[j].startswith(indent + "} else"):
            rest = lines[j][len(indent) + 1:].strip()
            if rest in ("", ";", ",", ")", ");", "),") or rest.startswith("//"):
                return j
    return len(lines) - 1


def sizes(files, listing):
    broken, near = [], []
    for path in files:
        if is_test_file(path):
            continue
        lines = (ROOT / path).read_text().splitlines()
        counted = len(lines) - test_lines(lines)
        if counted > MAX_FILE_LINES:
            broken.append(
                f"sizes: {path}: {counted} lines, tests aside (at most {MAX_FILE_LINES})"
            )
        for name, first, length in function_sizes(path, lines):
            if length > MAX_FN_LINES:
                broken.append(
                    f"sizes: {path}:{first}: fn {name} is {length} lines (at most {MAX_FN_LINES})"
                )
            elif listing and length > MAX_FN_LINES * 3 // 4:
                near.append(f"  {path}:{first}: fn {name} {length} lines")
    return broken, near


def formatting(files):
    out = subprocess.run(
        ["rustfmt", "--check", "--edition", "2024", "--config", "skip_children=true", *files],
        cwd=ROOT, capture_output=True, text=True,
    )
    if out.returncode == 0:
        return []
    diffs = [l for l in out.stdout.splitlines() if l.startswith("Diff in ")]
    return [f"formatting: {d}" for d in diffs] or [f"formatting: rustfmt failed: {out.stderr.strip()}"]


def main():
    listing = "--list" in sys.argv[1:]
    files = tracked_rust_files()
    broken = grep_layers()
    size_broken, near = sizes(files, listing)
    broken += size_broken + formatting(files)
    for line in broken:
        print(line)
    if listing and near:
        print("functions over three quarters of the limit:")
        print("\n".join(near))
    if broken:
        print(f"check-rules: {len(broken)} rule(s) broken in {len(files)} .rs files", file=sys.stderr)
        return 1
    print(f"check-rules: {len(files)} .rs files keep the layers, the sizes and the formatting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
