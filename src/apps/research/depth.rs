//! The distribution of value and remoteness by tier, from a table of any game with tiers
//! ([`crate::game::Tiered`]; for a cell game, tier `t` holds the boards with `t` filled cells):
//! per tier, the positions, wins, losses and draws, and how many wins and losses there are at
//! each remoteness (plies to the end under best play, as the table stores it).
//!
//! The game's own tier walk lists the positions, every unit of every tier once, in parallel;
//! each listed index is looked up in the table. The invariant: every used index of the table is
//! counted exactly once, in the tier the walk lists it in, so the tiers' sums are the header's
//! counts (checked before the figures are returned).
//!
//! The walk reads the table front to back: where the tiers are index ranges (a tier-major
//! index), tier by tier; otherwise unit by unit, every tier of a unit before the next unit —
//! where a game's unit numbers mean the same slice of the index in every tier (the plain index:
//! a prefix of cells; the sliced index: a row), that reads each part of the table once instead
//! of once per tier. Each thread looks positions up through its own [`Cursor`]: a raw table at
//! memory (or disk) speed, a compressed one a few frames at a time, with what the rules say of
//! a position taken from the walk (its status and number of children), as a compressed table
//! needs for the positions it stores as "don't care".
//!
//! A compressed table of a sliced board with remoteness in nibbles that leaves one mover out
//! is counted by its rows ([`Table::count_by_rows`]: the row kernel restores a key tier's
//! left-out positions from its stored ones and counts them where they are decided, two key
//! tiers in memory; Bridg-It 4's one-mover table in minutes where the searches below took
//! about two hours). Any other compressed table that leaves one mover out is read front to
//! back (`Table::restore_frames`: frames restored in parallel a batch at a time, each left-out
//! position searched with its frame), each used position counted in the tier its index says
//! ([`Tiered::tier_of`]): looked up one at a time, each left-out position would read all its
//! children through the table's cache (hex:4 with remoteness: 20 s against 4.8 s). Where every
//! position is stored the walk stays: it has the rules' answers at hand, which a frame restored
//! alone computes again (0.57 s against 1.08 s on hex:4 with remoteness, docs/BENCHMARKS.md).

use rayon::prelude::*;
use serde::Serialize;

use crate::apps::error::{AppError, ResearchError, Result};
use crate::base::cells;
use crate::base::progress::Progress;
use crate::game::{Rules, TierPosition, TierVisitor, Tiered, Value};
use crate::table::{Cursor, Table};
use crate::with_tiered_game;

/// The counts of one tier (or of the whole table).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub positions: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Entry `r`: the wins in `r` plies (empty for a table without remoteness).
    pub win_remoteness: Vec<u64>,
    /// Entry `r`: the losses in `r` plies (empty for a table without remoteness).
    pub loss_remoteness: Vec<u64>,
}

impl Tally {
    /// The largest remoteness of a win, if any win has one.
    pub fn longest_win(&self) -> Option<u32> {
        longest(&self.win_remoteness)
    }

    /// The largest remoteness of a loss, if any loss has one.
    pub fn longest_loss(&self) -> Option<u32> {
        longest(&self.loss_remoteness)
    }

    fn add(&mut self, other: &Tally) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
        add_histogram(&mut self.win_remoteness, &other.win_remoteness);
        add_histogram(&mut self.loss_remoteness, &other.loss_remoteness);
    }

    #[inline]
    fn count(&mut self, value: Value, remoteness: Option<u32>) {
        self.count_n(value, remoteness, 1);
    }

    /// Counts `n` positions of `value` and `remoteness`.
    #[inline]
    fn count_n(&mut self, value: Value, remoteness: Option<u32>, n: u64) {
        self.positions += n;
        let histogram = match value {
            Value::Win => {
                self.wins += n;
                &mut self.win_remoteness
            }
            Value::Loss => {
                self.losses += n;
                &mut self.loss_remoteness
            }
            Value::Draw => {
                self.draws += n;
                return;
            }
        };
        if let Some(r) = remoteness {
            let r = r as usize;
            if r >= histogram.len() {
                histogram.resize(r + 1, 0);
            }
            histogram[r] += n;
        }
    }
}

fn longest(histogram: &[u64]) -> Option<u32> {
    histogram.iter().rposition(|&n| n > 0).map(|r| r as u32)
}

fn add_histogram(into: &mut Vec<u64>, from: &[u64]) {
    if from.len() > into.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

/// One tier's counts, with the longest win and loss spelled out for readers of the JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TierFigures {
    pub tier: u32,
    #[serde(flatten)]
    pub tally: Tally,
    pub longest_win: Option<u32>,
    pub longest_loss: Option<u32>,
}

impl TierFigures {
    fn new(tier: u32, tally: Tally) -> TierFigures {
        TierFigures {
            tier,
            longest_win: tally.longest_win(),
            longest_loss: tally.longest_loss(),
            tally,
        }
    }
}

/// The distribution of a whole table by tier (`retrodb research tiers`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Depth {
    /// The table's game spec.
    pub game: String,
    /// Whether the table stores remoteness (else the histograms are empty: values only).
    pub remoteness: bool,
    /// What a tier is, in the game's terms.
    pub tier_meaning: &'static str,
    pub tiers: Vec<TierFigures>,
    /// The sums over every tier: the table's header counts.
    pub total: Tally,
    pub longest_win: Option<u32>,
    pub longest_loss: Option<u32>,
}

/// Counts the positions one work unit of one tier lists.
struct Count<'a, 't, B> {
    table: &'t Table<B>,
    cursor: &'a mut Cursor<'t, B>,
    tally: &'a mut Tally,
    failed: Option<AppError>,
}

impl<B: AsRef<[u8]> + Sync> TierVisitor for Count<'_, '_, B> {
    #[inline]
    fn visit<I: ExactSizeIterator<Item = u64>>(&mut self, p: TierPosition<I>) {
        if self.failed.is_some() {
            return;
        }
        let rules = || Rules::of(p.status, || p.children.len() as u64);
        match self.cursor.value_and_remoteness_by(p.index, rules) {
            Ok((Some(v), r)) => self.tally.count(v, r),
            Ok((None, _)) => {
                self.failed = Some(AppError::Research(ResearchError::UnusedInTier {
                    path: self.table.path().display().to_string(),
                    index: p.index,
                    position: self.table.position_text(p.index),
                }))
            }
            Err(e) => self.failed = Some(e.into()),
        }
    }
}

/// Refuses a table [`tiers`] cannot read by tier: its game has none.
pub fn check_table<B: AsRef<[u8]> + Sync>(table: &Table<B>) -> Result<()> {
    let tiered = with_tiered_game!(table.game(), _g => true, _ => false);
    if !tiered {
        return Err(ResearchError::NoTiers {
            path: table.path().display().to_string(),
            spec: table.header().spec.clone(),
            takes: crate::games::tiered_kinds()
                .map(|k| format!("{k}:"))
                .collect::<Vec<_>>()
                .join(", "),
        }
        .into());
    }
    Ok(())
}

/// Counts every position of `table` by tier, value and remoteness (values only when the table
/// has no remoteness). `progress` gets a stage of the used positions, advanced by the positions
/// counted.
pub fn tiers<B: AsRef<[u8]> + Sync>(table: &Table<B>, progress: &dyn Progress) -> Result<Depth> {
    check_table(table)?;
    let counts = table.header().counts;
    let used = table.header().size - counts[0];
    progress.stage("", used);
    let (tallies, tier_meaning) = with_tiered_game!(table.game(), g => {
        let tallies = if let Some(counts) = table.count_by_rows(progress)? {
            let mut tallies = vec![Tally::default(); g.tier_count() as usize];
            for (t, v, r, n) in counts.entries() {
                tallies[t as usize].count_n(v, Some(r), n);
            }
            tallies
        } else if table.leaves_one_mover_out() && g.tier_of(0).is_some() {
            stream(g, table, progress)?
        } else {
            walk(g, table, progress)?
        };
        (tallies, tier_meaning(table))
    }, _ => unreachable!("checked above"));
    let mut total = Tally::default();
    for t in &tallies {
        total.add(t);
    }
    // Every used index counted once: the tiers add up to the header's counts.
    let [_, win, loss, draw] = counts;
    if (total.positions, total.wins, total.losses, total.draws) != (used, win, loss, draw) {
        return Err(ResearchError::TierCounts {
            path: table.path().display().to_string(),
            tiers: [total.positions, total.wins, total.losses, total.draws],
            header: [used, win, loss, draw],
        }
        .into());
    }
    Ok(Depth {
        game: table.header().spec.clone(),
        remoteness: table.has_remoteness(),
        tier_meaning,
        tiers: tallies
            .into_iter()
            .enumerate()
            .map(|(t, tally)| TierFigures::new(t as u32, tally))
            .collect(),
        longest_win: total.longest_win(),
        longest_loss: total.longest_loss(),
        total,
    })
}

/// What a tier of the table's game is.
fn tier_meaning<B: AsRef<[u8]> + Sync>(table: &Table<B>) -> &'static str {
    table.game().tier_meaning()
}

/// A compressed table's frames restored front to back, in parallel a batch at a time
/// (`Table::restore_frames`: no position looked up alone, a one-mover table's left-out
/// positions searched a frame at a time), each used position counted in the tier its index
/// says ([`Tiered::tier_of`]): one tally per tier. Any compressed table reads the same this
/// way; [`tiers`] takes it for the tables that leave one mover out (module docs).
fn stream<G: Tiered, B: AsRef<[u8]> + Sync>(
    g: &G,
    table: &Table<B>,
    progress: &dyn Progress,
) -> Result<Vec<Tally>> {
    let tiers = g.tier_count() as usize;
    let mut tallies = vec![Tally::default(); tiers];
    table.restore_frames(
        |frame| {
            let mut acc = vec![Tally::default(); tiers];
            let mut counted = 0;
            for i in 0..frame.n {
                let Some(v) = cells::value(frame.code(i)) else {
                    continue;
                };
                let t = g
                    .tier_of(frame.first + i)
                    .expect("a game with tier_of answers it for every used position");
                acc[t as usize].count(v, frame.remoteness(i));
                counted += 1;
            }
            progress.advance(counted);
            Ok(acc)
        },
        |acc| {
            for (x, y) in tallies.iter_mut().zip(&acc) {
                x.add(y);
            }
            Ok(())
        },
    )?;
    Ok(tallies)
}

/// Every unit of every tier in parallel, in the order that reads the table front to back (see
/// the module docs): one tally per tier.
fn walk<'t, G: Tiered, B: AsRef<[u8]> + Sync>(
    g: &G,
    table: &'t Table<B>,
    progress: &dyn Progress,
) -> Result<Vec<Tally>> {
    g.prepare();
    let tiers = g.tier_count();
    let units: Vec<u64> = (0..tiers).map(|t| g.tier_units(t)).collect();
    // Counts unit `u` of tier `t` into `tally`; returns the positions counted.
    let count = |t: u32, u: u64, tally: &mut Tally, cursor: &mut Cursor<'t, B>| -> Result<u64> {
        let before = tally.positions;
        let mut count = Count {
            table,
            cursor,
            tally,
            failed: None,
        };
        g.visit_tier(t, u, &mut count);
        match count.failed {
            Some(e) => Err(e),
            None => Ok(tally.positions - before),
        }
    };
    let merge = |mut a: Vec<Tally>, b: Vec<Tally>| {
        for (x, y) in a.iter_mut().zip(&b) {
            x.add(y);
        }
        Ok(a)
    };
    let fresh = || vec![Tally::default(); tiers as usize];
    if (0..tiers).all(|t| g.tier_range(t).is_some()) {
        // Tiers are index ranges: tier by tier is front to back.
        let mut tallies = fresh();
        for t in 0..tiers {
            tallies[t as usize] = (0..units[t as usize])
                .into_par_iter()
                .try_fold(
                    || (Tally::default(), table.cursor()),
                    |(mut tally, mut cursor), u| {
                        progress.advance(count(t, u, &mut tally, &mut cursor)?);
                        Ok::<_, AppError>((tally, cursor))
                    },
                )
                .map(|r| r.map(|(tally, _)| tally))
                .try_reduce(Tally::default, |mut a, b| {
                    a.add(&b);
                    Ok(a)
                })?;
        }
        return Ok(tallies);
    }
    // Unit by unit, every tier of a unit before the next unit.
    let most = units.iter().copied().max().unwrap_or(0);
    (0..most)
        .into_par_iter()
        .try_fold(
            || (fresh(), table.cursor()),
            |(mut acc, mut cursor), u| {
                let mut counted = 0;
                for (t, tally) in acc.iter_mut().enumerate() {
                    if u < units[t] {
                        counted += count(t as u32, u, tally, &mut cursor)?;
                    }
                }
                progress.advance(counted);
                Ok::<_, AppError>((acc, cursor))
            },
        )
        .map(|r| r.map(|(acc, _)| acc))
        .try_reduce(fresh, merge)
}

/// The figures as `retrodb research tiers` prints them: a table of the tiers, then the wins
/// and the losses by remoteness (a row per tier, a column per remoteness, counts abbreviated
/// to three figures; `--json` has them exact).
pub fn render_text(d: &Depth) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: positions by tier ({}){}\n",
        d.game,
        d.tier_meaning,
        if d.remoteness {
            ", value and remoteness (plies to the end under best play)"
        } else {
            ", by value (the table has no remoteness)"
        }
    );
    let draws = d.total.draws > 0;
    let mut head = vec!["tier", "positions", "wins", "losses"];
    if draws {
        head.push("draws");
    }
    if d.remoteness {
        head.extend(["longest win", "longest loss"]);
    }
    let plies = |r: Option<u32>| r.map_or("-".to_string(), |r| r.to_string());
    let row = |tier: String, t: &Tally| {
        let mut cells = vec![
            tier,
            grouped(t.positions),
            grouped(t.wins),
            grouped(t.losses),
        ];
        if draws {
            cells.push(grouped(t.draws));
        }
        if d.remoteness {
            cells.extend([plies(t.longest_win()), plies(t.longest_loss())]);
        }
        cells
    };
    let mut rows: Vec<Vec<String>> = d
        .tiers
        .iter()
        .map(|f| row(f.tier.to_string(), &f.tally))
        .collect();
    rows.push(row("all".into(), &d.total));
    write_columns(&mut s, &head, &rows);
    if !d.remoteness {
        return s;
    }
    for (what, of) in [
        (
            "wins",
            (|t: &Tally| &t.win_remoteness) as fn(&Tally) -> &Vec<u64>,
        ),
        ("losses", |t: &Tally| &t.loss_remoteness),
    ] {
        let all = of(&d.total);
        let columns: Vec<usize> = (0..all.len()).filter(|&r| all[r] > 0).collect();
        let _ = writeln!(
            s,
            "\n{what} by remoteness (a row per tier, a column per remoteness in plies):\n"
        );
        let head: Vec<String> = std::iter::once("tier".to_string())
            .chain(columns.iter().map(|r| r.to_string()))
            .collect();
        let row = |tier: String, t: &Tally| {
            std::iter::once(tier)
                .chain(
                    columns
                        .iter()
                        .map(|&r| short(of(t).get(r).copied().unwrap_or(0))),
                )
                .collect::<Vec<String>>()
        };
        let mut rows: Vec<Vec<String>> = d
            .tiers
            .iter()
            .filter(|f| !of(&f.tally).is_empty())
            .map(|f| row(f.tier.to_string(), &f.tally))
            .collect();
        rows.push(row("all".into(), &d.total));
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        write_columns(&mut s, &head, &rows);
    }
    s
}

/// Right-aligned columns, as wide as their widest cell, two spaces apart.
fn write_columns(s: &mut String, head: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut l = String::new();
        for (k, (c, w)) in cells.zip(&widths).enumerate() {
            if k > 0 {
                l.push_str("  ");
            }
            l.push_str(&format!("{c:>w$}"));
        }
        l.push('\n');
        l
    };
    s.push_str(&line(&mut head.iter().copied()));
    for r in rows {
        s.push_str(&line(&mut r.iter().map(String::as_str)));
    }
}

/// A count with thousands separators.
fn grouped(n: u64) -> String {
    crate::table::builder::report::grouped(n)
}

/// A count in at most five characters: exact below 10,000, else rounded to three figures with
/// a unit (`12.3k`, `4.56M`, `1.23G`), and `-` for none.
pub(crate) fn short(n: u64) -> String {
    if n == 0 {
        return "-".into();
    }
    if n < 10_000 {
        return n.to_string();
    }
    // Three significant figures: `m * 10^e`, `m` in 100..=1000.
    let mut e = n.ilog10() - 2;
    let p = 10u64.pow(e);
    let mut m = n / p + u64::from(n % p >= p / 2);
    if m == 1000 {
        m = 100;
        e += 1;
    }
    let unit = ["k", "M", "G", "T", "P", "E"][(e as usize).div_ceil(3) - 1];
    // The figures before the unit's point: 1, 2 or 3.
    let whole = (e + 2) % 3 + 1;
    let digits = m.to_string();
    if whole == 3 {
        format!("{digits}{unit}")
    } else {
        let (a, b) = digits.split_at(whole as usize);
        format!("{a}.{b}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_counts_keep_three_figures() {
        let cases = [
            (0, "-"),
            (7, "7"),
            (9_999, "9999"),
            (10_000, "10.0k"),
            (12_345, "12.3k"),
            (99_949, "99.9k"),
            (99_950, "100k"),
            (123_456, "123k"),
            (999_499, "999k"),
            (999_500, "1.00M"),
            (1_234_567, "1.23M"),
            (26_469_027_489, "26.5G"),
            (81_088_584_948, "81.1G"),
            (u64::MAX, "18.4E"),
        ];
        for (n, want) in cases {
            assert_eq!(short(n), want, "{n}");
        }
    }

    #[test]
    fn a_tally_counts_histograms_and_adds() {
        let mut a = Tally::default();
        a.count(Value::Win, Some(3));
        a.count(Value::Win, Some(1));
        a.count(Value::Loss, Some(0));
        a.count(Value::Draw, None);
        assert_eq!(a.win_remoteness, [0, 1, 0, 1]);
        assert_eq!(a.loss_remoteness, [1]);
        assert_eq!((a.longest_win(), a.longest_loss()), (Some(3), Some(0)));
        let mut b = Tally::default();
        b.count(Value::Loss, Some(4));
        b.add(&a);
        assert_eq!(
            (b.positions, b.wins, b.losses, b.draws),
            (5, 2, 2, 1),
            "{b:?}"
        );
        assert_eq!(b.loss_remoteness, [1, 0, 0, 0, 1]);
        assert_eq!(b.win_remoteness, [0, 1, 0, 1]);
        // Values only: no histograms, no longest.
        let mut v = Tally::default();
        v.count(Value::Win, None);
        assert_eq!((v.longest_win(), v.win_remoteness.len()), (None, 0));
    }
}
