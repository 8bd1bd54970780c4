//! Criterion benches of table lookups: a hot probe (block checked and cached), a cold probe (a
//! compressed frame decoded for each lookup; compressed table only) and a batch of random
//! lookups, on the raw and the compressed table of one game.
//!
//! The game comes from `RETRODB_BENCH_GAME` (default `bridgit:3`); tables are built once into a
//! temporary directory.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use retrodb::apps::bench::random_positions;
use retrodb::games::AnyGame;
use retrodb::table::builder::{self, BuildOptions};
use retrodb::table::{self, Table, zstd::Params};

fn probes(c: &mut Criterion) {
    let spec = std::env::var("RETRODB_BENCH_GAME").unwrap_or_else(|_| "bridgit:3".into());
    let dir = tempfile::tempdir().expect("temporary directory");
    let raw = dir.path().join("raw.rdb");
    let z = dir.path().join("z.rdb");
    let game = AnyGame::open(&spec, u64::MAX).expect("game");
    builder::build(&game, &raw, &BuildOptions::default()).expect("build");
    table::compress(
        &Table::open(&raw).unwrap(),
        &z,
        Params::default(),
        &retrodb::base::progress::Silent,
    )
    .expect("compress");

    for (name, path) in [("raw", &raw), ("zstd", &z)] {
        let t = Table::open(path).unwrap();
        let positions = random_positions(&t, 4096, 1).unwrap();
        let mut group = c.benchmark_group(format!("probe/{spec}/{name}"));
        let hot = positions[0];
        t.value(hot).unwrap();
        group.bench_function("hot value", |b| b.iter(|| t.value(hot).unwrap()));
        group.bench_function("hot full probe", |b| b.iter(|| t.probe(hot).unwrap()));
        // A compressed table that keeps one decoded frame, probed at positions that move from
        // frame to frame: every lookup decodes a frame. (A raw table has nothing to decode; its
        // blocks are checked once, on first use.)
        if name == "zstd" {
            let cold = Table::open_with_cache(path, 0).unwrap();
            let mut i = 0;
            group.bench_function("cold value", |b| {
                b.iter(|| {
                    i = (i + 1) % positions.len();
                    cold.value(positions[i]).unwrap()
                })
            });
        }
        let batch = random_positions(&t, 100_000, 2).unwrap();
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_function("batch of 100000", |b| {
            b.iter_batched(
                || Table::open(path).unwrap(),
                |fresh| fresh.values(&batch),
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, probes);
criterion_main!(benches);
