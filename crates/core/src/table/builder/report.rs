//! Sentences for people about a build, shared by every front end that builds tables (the
//! command line and the Python module): the estimate printed before solving, a tiered run's
//! plan, and a line per finished tier ([`tier_lines`], the per-tier callback that picks them).
//! They only format; the figures come from [`estimate`](super::estimate),
//! [`plan_tiered`](super::plan_tiered) and [`TierReport`].

use super::{BuildOptions, BuildPlan, OnTier, TierReport, TieredPlan};
use crate::base::error::human_bytes;
use crate::games::AnyGame;

/// The line printed before a build: positions, engine and kernel (of a build from scratch), peak
/// memory against the limit and the table's size (`compress`: the raw table solved first, then
/// compressed).
pub fn estimate_line(game: &AnyGame, opts: &BuildOptions, compress: bool) -> String {
    estimate_line_of(game, opts, &super::estimate(game, opts), compress)
}

/// [`estimate_line`] of the estimate `e`.
fn estimate_line_of(
    game: &AnyGame,
    opts: &BuildOptions,
    e: &super::BuildEstimate,
    compress: bool,
) -> String {
    let kernel = e.kernel.map_or(String::new(), |k| format!(" ({k} kernel)"));
    let grundy = if opts.grundy {
        " and the generalized Sprague-Grundy labelling"
    } else {
        ""
    };
    format!(
        "{}: {} positions, {} engine{kernel}{grundy}, estimated peak memory {} (limit {}), \
         {}table {}{}",
        game.spec(),
        grouped(game.size()),
        e.engine.name(),
        human_bytes(e.memory_bytes),
        human_bytes(opts.max_memory),
        if compress { "raw " } else { "" },
        human_bytes(e.file_bytes),
        if compress { " (then compressed)" } else { "" }
    )
}

/// The lines a build prints before it starts, from its plan: the estimate, the sliced index of a
/// game that has one and, for a tiered build, the run (its tiers, kernel, memory and disk).
pub fn before_build(game: &AnyGame, opts: &BuildOptions, plan: &BuildPlan<'_>) -> Vec<String> {
    let mut lines = vec![estimate_line_of(
        game,
        opts,
        &plan.estimate,
        plan.compress_after,
    )];
    if let Some(p) = game.sliced_plan() {
        lines.push(sliced_line(
            &p,
            game.size(),
            rayon::current_num_threads(),
            opts.remoteness,
        ));
    }
    if let Some(p) = &plan.tiered {
        lines.push(plan_line(p, opts.max_memory));
    }
    lines
}

/// The sliced index of a plan: its cells, rows and symmetry, and a rough time at the rate
/// Bridg-It 4 was built at by the bit-parallel row kernel (docs/BENCHMARKS.md: 246M positions/s
/// on the two threads of a quiet machine, solve only), or with `remoteness` by the row kernel
/// with remoteness (27M positions/s on a machine that gave it 1.3 cores: about 20M a thread),
/// which is no promise for another board or machine.
pub fn sliced_line(
    p: &crate::game::shape::sliced::SlicedPlan,
    size: u64,
    threads: usize,
    remoteness: bool,
) -> String {
    let symmetry = if p.symmetries > 0 {
        format!(
            "one row per symmetry class of keys ({} symmetries besides the identity; {} positions \
             without them)",
            p.symmetries,
            grouped(p.without_symmetry)
        )
    } else {
        "a row for every key".to_string()
    };
    let (rate, what) = if remoteness {
        (
            20e6,
            "20M positions/s a thread Bridg-It 4 was built at with remoteness",
        )
    } else {
        (120e6, "120M positions/s a thread Bridg-It 4 was built at")
    };
    let seconds = size as f64 / (rate * threads.max(1) as f64);
    format!(
        "  sliced index: {} key cells and {} low cells, {} rows in {} key tiers, {symmetry}; \
         roughly {} with {threads} threads at the {what}",
        p.key_cells,
        p.low_cells,
        grouped(p.rows),
        p.key_cells + 1,
        duration(seconds)
    )
}

/// What a tiered run will do: its tiers, kernel, memory and disk, and (when resuming) its time at
/// the earlier runs' rate.
pub fn plan_line(p: &TieredPlan, max_memory: u64) -> String {
    let top = p.done_from.saturating_sub(1);
    let tiers = if top == p.lowest {
        format!("tier {top}")
    } else {
        format!("tiers {top} down to {}", p.lowest)
    };
    let from = match &p.resumed {
        Some(m) => format!(
            ", resuming below tier {} ({} positions solved)",
            m.tier,
            grouped(m.solved)
        ),
        None => String::new(),
    };
    let free = p
        .disk_free
        .map_or(String::new(), |f| format!(" ({} free)", human_bytes(f)));
    let time = match p.seconds_left {
        Some(s) => format!(
            "; the {} positions left take about {} at the earlier runs' rate",
            grouped(p.positions_left),
            duration(s)
        ),
        None => "; time left: after each tier".to_string(),
    };
    let kernel = p.kernel.map_or(String::new(), |k| format!("{k} kernel, "));
    format!(
        "  this run: {tiers} of {}{from}; {kernel}memory {} (limit {}), disk {}{free}{time}",
        p.tiers,
        human_bytes(p.memory_bytes),
        human_bytes(max_memory),
        human_bytes(p.disk_bytes),
    )
}

/// A finished tier: its size, time and rate, and the time left at this run's rate.
pub fn tier_line(r: &TierReport) -> String {
    format!(
        "  tier {} of {} done: {} positions in {:.1} s ({:.1}M/s){}; {} positions left, about {}",
        r.tier,
        r.tiers,
        grouped(r.positions),
        r.seconds,
        r.positions as f64 / r.seconds.max(1e-9) / 1e6,
        if r.checkpoint { ", checkpoint" } else { "" },
        grouped(r.left),
        duration(r.seconds_left)
    )
}

/// Whether a tier's line is worth printing: the run's first tier (the first estimate of the
/// time left), and each tier that took a while or became a checkpoint.
pub fn tier_worth_a_line(r: &TierReport, first: bool) -> bool {
    first || r.seconds >= 1.0 || r.checkpoint
}

/// The per-tier callback ([`BuildOptions::on_tier`]) of a front end that shows tier lines:
/// `say` gets the [`tier_line`] of each tier [`tier_worth_a_line`], the run's first included.
pub fn tier_lines(say: impl Fn(String) + Send + Sync + 'static) -> OnTier {
    let first = std::sync::atomic::AtomicBool::new(true);
    std::sync::Arc::new(move |r: &TierReport| {
        let first = first.swap(false, std::sync::atomic::Ordering::Relaxed);
        if tier_worth_a_line(r, first) {
            say(tier_line(r));
        }
    })
}

/// `5400.0` -> `1 h 30 min`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_durations_for_people() {
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(grouped(12), "12");
        assert_eq!(duration(5400.0), "1 h 30 min");
        assert_eq!(duration(75.0), "1 min 15 s");
    }

    #[test]
    fn a_build_says_what_it_will_do() {
        let game = AnyGame::open("hex:3", u64::MAX).unwrap();
        let opts = BuildOptions {
            compress: Some(crate::table::zstd::Params::default()),
            ..BuildOptions::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let plan = BuildPlan::make(&game, &dir.path().join("hex-3.rdb"), &opts).unwrap();
        let lines = before_build(&game, &opts, &plan);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("hex:3: 39,366 positions, tiered engine (bitplane kernel), "),
            "{}",
            lines[0]
        );
        assert!(lines[0].ends_with("(then compressed)"), "{}", lines[0]);
        assert!(
            lines[1].contains("this run: tiers 9 down to 0 of 10; bitplane kernel, memory"),
            "{}",
            lines[1]
        );
    }

    #[test]
    fn the_first_slow_and_checkpoint_tiers_get_a_line() {
        let said = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&said);
        let on_tier = tier_lines(move |line| sink.lock().unwrap().push(line));
        let tier = |tier, seconds, checkpoint| TierReport {
            tier,
            tiers: 5,
            positions: 10,
            seconds,
            solved: 10,
            left: 0,
            seconds_left: 0.0,
            checkpoint,
        };
        for r in [
            tier(4, 0.1, false),
            tier(3, 0.1, false),
            tier(2, 2.0, false),
            tier(1, 0.1, true),
            tier(0, 0.1, false),
        ] {
            on_tier(&r);
        }
        let said = said.lock().unwrap();
        let tiers: Vec<&str> = said.iter().map(|l| &l[..8]).collect();
        assert_eq!(tiers, ["  tier 4", "  tier 2", "  tier 1"], "{said:?}");
        assert_eq!(said[0], tier_line(&tier(4, 0.1, false)));
    }
}
