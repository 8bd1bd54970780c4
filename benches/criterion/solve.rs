//! Criterion benches of the counter-decrement engine on a random digraph.
//!
//! The graph size comes from `RETRODB_BENCH_VERTICES` and `RETRODB_BENCH_EDGES` (default 10M
//! vertices and 100M edges, the size the benchmark suite records); throughput is reported in
//! edges per second, once with one thread and once with all threads, in the same run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use retrodb::Game;
use retrodb::base::cells::{Cells, words_for, zeroed_words};
use retrodb::games::digraph;
use retrodb::solve::{SolveOptions, counter};

mod pools;
use pools::with_each_pool;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn digraph_solve(c: &mut Criterion) {
    let vertices = env_u64("RETRODB_BENCH_VERTICES", 10_000_000);
    let edges = env_u64("RETRODB_BENCH_EDGES", 100_000_000);
    let sinks = env_u64("RETRODB_BENCH_SINKS", vertices / 4);
    let g = digraph::random(vertices, edges, sinks, 1);
    let mut group = c.benchmark_group("counter/digraph");
    group.sample_size(10);
    group.throughput(Throughput::Elements(edges));
    with_each_pool(|threads, pool| {
        group.bench_function(format!("{vertices}v-{edges}e/threads-{threads}"), |b| {
            b.iter(|| {
                let words = zeroed_words(words_for(g.size()));
                let cells = Cells::new(&words, g.size());
                pool.install(|| counter::solve(&g, &cells, &SolveOptions::default()))
            })
        });
    });
    group.finish();
}

criterion_group!(benches, digraph_solve);
criterion_main!(benches);
