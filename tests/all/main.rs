//! The integration tests, compiled into one binary: one module per concern below, the helpers
//! that run the `retrodb` binary in `tests/common/`, the published positions in `tests/golden/`.
//! One binary links the library once instead of once a file. Run one module with a filter:
//! `cargo test --test all faults::`.
//!
//! Every test here shares one process with all the others, so none may change process-wide
//! state (environment variables, the working directory, rayon's global pool); each runs the
//! binary in its own process or works in its own temporary directory.
//!
//! `tests/mpi.rs` is a binary of its own: its runs need the `mpi` feature and `mpirun`, and
//! `.ci/run` calls it by name (`cargo test --features mpi --test mpi`).

#[path = "../common/mod.rs"]
mod common;

mod asked;
mod bench_score;
mod big_input;
mod build_files;
mod cell_games;
mod cgt;
mod charts;
mod cli;
mod compress;
mod cpu_dispatch;
mod engine;
mod faults;
mod fuzz_tables;
mod golden;
mod hackenbush_cli;
mod hackenbush_props;
mod kernel_plan;
mod lookups;
mod messages;
mod out_of_core;
mod peers;
mod progress;
mod reliability3;
mod reliability4;
mod replaced_tables;
mod research;
mod research_late;
mod research_lehman;
mod research_sample;
mod research_tiers;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
mod serve_board;
#[cfg(feature = "serve")]
mod serve_board_limits;
#[cfg(feature = "serve")]
mod serve_browser;
#[cfg(feature = "serve")]
mod serve_limits;
mod sliced;
mod subtraction;
mod sums;
mod sweep;
mod sweep_pieces;
mod tiered;
mod values_cli;
#[cfg(feature = "serve")]
mod webdriver;
