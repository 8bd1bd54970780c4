//! Criterion benches of the tiered engine's hot loops: a whole tiered solve of a cell game (with
//! one thread and with all, in the same run), the same game by the counter engine for the ratio,
//! and the per-position work alone (the tier walk with every child, status and children of
//! every index).
//!
//! The game comes from `RETRODB_BENCH_GAME` (default `bridgit:3`, 3.2M positions).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use retrodb::Game;
use retrodb::base::cells::{Cells, words_for, zeroed_words};
use retrodb::game::{TierPosition, TierVisitor, Tiered};
use retrodb::games::AnyGame;
use retrodb::solve::{SolveOptions, counter, tiered};
use retrodb::with_tiered_game;

mod pools;
use pools::with_each_pool;

/// Sums what a tier walk lists, so the walk itself is measured.
struct Sum(u64);

impl TierVisitor for Sum {
    fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
        self.0 = self
            .0
            .wrapping_add(p.index)
            .wrapping_add(p.children.sum::<u64>());
    }
}

fn solves(c: &mut Criterion) {
    let spec = std::env::var("RETRODB_BENCH_GAME").unwrap_or_else(|_| "bridgit:3".into());
    let game = AnyGame::open(&spec, u64::MAX).expect("a benchmark game");
    with_tiered_game!(&game, g => {
        let mut group = c.benchmark_group(format!("solve/{spec}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(g.size()));
        with_each_pool(|threads, pool| {
            group.bench_function(format!("tiered/threads-{threads}"), |b| {
                b.iter(|| {
                    let words = zeroed_words(words_for(g.size()));
                    let cells = Cells::new(&words, g.size());
                    pool.install(|| tiered::solve(g, &cells, &SolveOptions::default()).unwrap())
                })
            });
            group.bench_function(format!("counter/threads-{threads}"), |b| {
                b.iter(|| {
                    let words = zeroed_words(words_for(g.size()));
                    let cells = Cells::new(&words, g.size());
                    pool.install(|| counter::solve(g, &cells, &SolveOptions::default()))
                })
            });
        });
        group.finish();

        let mut group = c.benchmark_group(format!("positions/{spec}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(g.size()));
        group.bench_function("walk-tiers", |b| {
            b.iter(|| {
                let mut sum = Sum(0);
                for t in 0..g.tier_count() {
                    for unit in 0..g.tier_units(t) {
                        g.visit_tier(t, unit, &mut sum);
                    }
                }
                sum.0
            })
        });
        group.bench_function("status-and-children", |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for pos in 0..g.size() {
                    if g.status(pos) == retrodb::Status::Open {
                        g.for_each_child(pos, |c| sum = sum.wrapping_add(c));
                    }
                }
                sum
            })
        });
        group.finish();
    }, _ => panic!("{spec} is not an acyclic game the tiered engine solves"));
}

criterion_group!(benches, solves);
criterion_main!(benches);
