#!/usr/bin/env bash
# The fault suite at length: tests/all/faults.rs with ten times the byte flips per table, in a
# release build, with its counts printed. Run as root to include the full-file-system part (it
# mounts a 512 KiB tmpfs); otherwise that part says SKIPPED. CI runs the shorter default
# (`cargo test`).
#
#   scripts/faults.sh            # a few minutes on 2 cores
#   FLIPS=2000 scripts/faults.sh # more flips a table
set -euo pipefail
cd "$(dirname "$0")/.."
RETRODB_FAULT_FLIPS="${FLIPS:-400}" \
  cargo test --release --test all faults:: -- --nocapture --test-threads 2 2>&1 |
  grep -E "fault suite|SKIPPED|PANIC|SIGNAL|WRONG|UNCLEAR|left|missed|answered from|test result"
