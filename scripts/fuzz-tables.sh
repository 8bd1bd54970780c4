#!/usr/bin/env bash
# The table reader's fuzz-style property tests at length: tests/all/fuzz_tables.rs with a million
# cases per property (arbitrary bytes, and damaged real tables: raw and compressed, with and
# without remoteness), in a release build. CI runs the default of two thousand (`cargo test`).
#
#   scripts/fuzz-tables.sh               # a million cases a property
#   CASES=50000 scripts/fuzz-tables.sh   # fewer
set -euo pipefail
cd "$(dirname "$0")/.."
RETRODB_FUZZ_CASES="${CASES:-1000000}" cargo test --release --test all fuzz_tables:: -- --nocapture
