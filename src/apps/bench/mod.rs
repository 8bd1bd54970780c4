//! Measurements the `bench` command reports: probe latencies and throughput of a table.
//!
//! Figures are medians over many samples within one process, so they can be compared as ratios
//! (hot against cold, one against many) on a noisy machine.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::apps::error::Result;
use crate::base::splitmix::SplitMix64;
use crate::table::Table;

pub mod score;

/// Probe timings of one table.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    pub table: String,
    pub compressed: bool,
    pub positions: u64,
    pub file_bytes: u64,
    pub bits_per_position: f64,
    /// Median nanoseconds of a value lookup whose block is already checked and cached.
    pub hot_value_ns: f64,
    /// Median nanoseconds of a full probe (value, remoteness, every move's value), warm.
    pub hot_probe_ns: f64,
    /// Median nanoseconds of a value lookup that must decode (compressed) or check (raw) its
    /// block first.
    pub cold_value_ns: f64,
    /// Median nanoseconds of a full probe (value, remoteness, every move's value and
    /// remoteness) in a table just opened, with no decoded frame (compressed) or checked block
    /// (raw) yet: what a one-off `retrodb probe` pays besides opening the file.
    pub cold_probe_ns: f64,
    /// Value lookups per second for a batch of random positions.
    pub batch_per_second: f64,
    pub batch_size: usize,
    /// A few random used positions in the game's notation, for probes from other processes.
    pub sample_positions: Vec<String>,
}

/// Cold full probes a report times: each opens the table again (its seek table and checksums
/// read), which a large table makes slow.
const COLD_PROBES: usize = 100;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Used positions chosen at random (deterministic), `n` of them.
pub fn random_positions(t: &Table, n: usize, seed: u64) -> Result<Vec<u64>> {
    let size = t.header().size;
    let mut rng = SplitMix64(seed);
    let mut out = Vec::with_capacity(n);
    let mut tries = 0u64;
    while out.len() < n && tries < 100 * n as u64 + 1000 {
        tries += 1;
        let p = rng.below(size);
        if t.value(p)?.is_some() {
            out.push(p);
        }
    }
    Ok(out)
}

/// Measures the probe path of the table at `path`, with `samples` lookups per latency figure
/// and `batch` positions in the batch (each at least 1: a median needs a sample).
pub fn probe(path: &Path, samples: usize, batch: usize) -> Result<ProbeReport> {
    let (samples, batch) = (samples.max(1), batch.max(1));
    let t = Table::open(path)?;
    let positions = random_positions(&t, samples, 1)?;
    if positions.is_empty() {
        return Err(crate::Error::table(
            path,
            "no used position found among its random indices; nothing to time",
        )
        .into());
    }
    let file_bytes = std::fs::metadata(path)
        .map_err(|e| crate::Error::io(path, e))?
        .len();
    let used = t.header().size - t.header().counts[0];

    // Hot: the same few positions again and again, their blocks checked and cached.
    let hot: Vec<u64> = positions.iter().copied().take(16).collect();
    for &p in &hot {
        t.probe(p)?;
    }
    let mut value_ns = Vec::with_capacity(samples);
    let mut probe_ns = Vec::with_capacity(samples);
    for i in 0..samples {
        let p = hot[i % hot.len()];
        let s = Instant::now();
        std::hint::black_box(t.value(p)?);
        value_ns.push(s.elapsed().as_nanos() as f64);
    }
    for i in 0..samples {
        let p = hot[i % hot.len()];
        let s = Instant::now();
        std::hint::black_box(t.probe(p)?);
        probe_ns.push(s.elapsed().as_nanos() as f64);
    }

    // Cold: a table that keeps a single decoded frame, probed at positions far apart; for a raw
    // table, a freshly opened one (every block is checked on first use).
    let mut cold_ns = Vec::new();
    let cold_samples = samples.min(2000);
    if t.is_compressed() {
        let cold = Table::open_with_cache(path, 0)?;
        let f = t.header().frame_positions;
        let mut last = u64::MAX;
        for &p in positions.iter().take(cold_samples * 2) {
            if p / f == last {
                continue;
            }
            last = p / f;
            let s = Instant::now();
            std::hint::black_box(cold.value(p)?);
            cold_ns.push(s.elapsed().as_nanos() as f64);
        }
    } else {
        for &p in positions.iter().take(cold_samples.min(200)) {
            let fresh = Table::open(path)?;
            let s = Instant::now();
            std::hint::black_box(fresh.value(p)?);
            cold_ns.push(s.elapsed().as_nanos() as f64);
        }
    }

    // A cold full probe: a table opened afresh for each (the opening is not timed).
    let mut cold_probe_ns = Vec::new();
    for &p in positions.iter().take(cold_samples.min(COLD_PROBES)) {
        let fresh = Table::open(path)?;
        let s = Instant::now();
        std::hint::black_box(fresh.probe(p)?);
        cold_probe_ns.push(s.elapsed().as_nanos() as f64);
    }

    // Batch: many random positions at once.
    let many = random_positions(&t, batch, 2)?;
    let fresh = Table::open(path)?;
    let s = Instant::now();
    let answers = fresh.values(&many);
    let secs = s.elapsed().as_secs_f64();
    for a in answers {
        a?;
    }

    Ok(ProbeReport {
        table: path.display().to_string(),
        compressed: t.is_compressed(),
        positions: used,
        file_bytes,
        bits_per_position: file_bytes as f64 * 8.0 / used.max(1) as f64,
        hot_value_ns: median(value_ns),
        hot_probe_ns: median(probe_ns),
        cold_value_ns: if cold_ns.is_empty() {
            0.0
        } else {
            median(cold_ns)
        },
        cold_probe_ns: median(cold_probe_ns),
        batch_per_second: many.len() as f64 / secs.max(1e-9),
        batch_size: many.len(),
        sample_positions: positions
            .iter()
            .rev()
            .take(30)
            .map(|&p| crate::with_game!(t.game(), g => crate::Notation::position_text(g, p)))
            .collect(),
    })
}

/// This machine's rate of random 8-byte reads over a large buffer.
#[derive(Clone, Debug, Serialize)]
pub struct ReadRate {
    pub buffer_bytes: u64,
    pub threads: usize,
    pub reads: u64,
    pub seconds: f64,
    /// Reads per second, all threads together.
    pub per_second: f64,
}

/// Measures random 8-byte reads over a buffer of `bytes` bytes (allocated and written first, so
/// every page is resident) with all threads of the current rayon pool, `reads_per_thread` reads
/// each. The addresses come from a xorshift generator and do not depend on the values read, so
/// the processor overlaps the misses — as it does for the children of a position.
pub fn random_read_rate(bytes: u64, reads_per_thread: u64) -> ReadRate {
    use rayon::prelude::*;
    let words = (bytes / 8).max(1);
    let mut buf = vec![0u64; words as usize];
    buf.par_chunks_mut(1 << 16)
        .enumerate()
        .for_each(|(k, chunk)| {
            for (i, w) in chunk.iter_mut().enumerate() {
                *w = (k << 16 | i) as u64;
            }
        });
    let threads = rayon::current_num_threads();
    let started = Instant::now();
    let sums: u64 = (0..threads as u64)
        .into_par_iter()
        .map(|t| {
            let mut x = SplitMix64(t + 1).next_u64() | 1;
            let mut sum = 0u64;
            for _ in 0..reads_per_thread {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let i = ((x as u128 * words as u128) >> 64) as usize;
                sum = sum.wrapping_add(buf[i]);
            }
            sum
        })
        .sum();
    let seconds = started.elapsed().as_secs_f64();
    std::hint::black_box(sums);
    let reads = reads_per_thread * threads as u64;
    ReadRate {
        buffer_bytes: words * 8,
        threads,
        reads,
        seconds,
        per_second: reads as f64 / seconds,
    }
}

#[cfg(test)]
mod read_rate_tests {
    #[test]
    fn read_rate_counts_every_read() {
        let r = super::random_read_rate(1 << 20, 10_000);
        assert_eq!(r.reads, 10_000 * r.threads as u64);
        assert_eq!(r.buffer_bytes, 1 << 20);
        assert!(r.per_second > 0.0);
    }
}

/// What [`values`] measured: `Table::values_of_texts` on a batch of position texts.
#[derive(Clone, Debug, Serialize)]
pub struct ValuesReport {
    pub table: String,
    pub positions: usize,
    /// Seconds of the one batch call, on a freshly opened table (every frame decoded once).
    pub seconds: f64,
    pub per_second: f64,
}

/// The most bytes of position texts `bench values` reads (ten million texts of a 25-cell
/// board are about 280 MB).
const MAX_TEXTS: u64 = 1 << 30;

/// Times the batch lookup of the position texts in `texts` (one a line) in the table at
/// `path`: the work the Python module's `Table.values` hands the library, without Python.
pub fn values(
    path: &Path,
    texts: &Path,
    progress: &dyn crate::base::progress::Progress,
) -> Result<ValuesReport> {
    let (name, bytes) = crate::base::inputs::read_whole(texts, MAX_TEXTS, progress)?;
    let text = String::from_utf8(bytes).map_err(|_| crate::Error::InputWhole {
        file: name,
        msg: "not UTF-8 text".into(),
    })?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let t = Table::open(path)?;
    let s = Instant::now();
    let answers = t.values_of_texts(&lines);
    let seconds = s.elapsed().as_secs_f64();
    for a in answers {
        a?;
    }
    Ok(ValuesReport {
        table: path.display().to_string(),
        positions: lines.len(),
        seconds,
        per_second: lines.len() as f64 / seconds.max(1e-9),
    })
}
