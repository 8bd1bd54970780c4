//! The generalized Sprague-Grundy labelling (Fraenkel and Yesha's algorithm, run as retrograde
//! rounds): the value of every position of an impartial game, cycles included
//! ([`crate::grundy`], docs/SUMS.md).
//!
//! Stage `m` labels the positions of value `m`, the way the counter engine labels losses.
//! Positions still open at its start have followers of every value below `m`. A follower
//! labelled `m` *marks* its open and infinite parents (they can move to `m`); an open position
//! is labelled `m` when none of its followers is labelled `m` and every follower still open or
//! infinite is marked — so any move to a larger or infinite value can be answered by a move
//! back to `m`, as the definition asks. It counts those followers (`stage_count`), and the task
//! that marks the last of them labels it. Seeds are the open positions all of whose followers
//! have smaller values (`count`, the followers without a finite value, is zero). When the
//! rounds stop, an open position that was not marked has no follower of value `m`, so it can
//! have no finite value at all: it is infinite, with the finite values below `m` in reach and
//! those of the later stages that mark it. Marked ones go on to stage `m + 1`. The labelling
//! ends when no position is left open (at the latest after a stage that labels nothing).
//!
//! Stage 0 is the counter engine's solve itself (labelled 0: lost; marked: won; left over:
//! drawn), so a build that has solved the game hands its cells over and the labelling starts
//! at stage 1 ([`label`]'s `solved`).
//!
//! Invariant: within a stage a position is labelled or marked, never both, decided once by a
//! `fetch_or` on its 2-bit stage cell (as the counter engine decides wins and losses) — so the
//! values are the same for every thread count, as the function's uniqueness says they must be.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::SolveOptions;
use super::counter::{Counter, counter_width};
use crate::cells::{self, Cells};
use crate::error::{Error, Result};
use crate::game::{Game, Status};
use crate::grundy::{Labels, StageReport};

/// Positions handed to one task at a time.
const CHUNK: usize = 4096;

/// A position's kind, in a 2-bit cell that goes from open to one of the others once.
const OPEN: u8 = 0;
const FINITE: u8 = 1;
const INFINITE: u8 = 2;
const UNUSED: u8 = 3;

/// A position's stage cell: what the current stage decided about it (reset every stage).
const MARKED: u8 = 1;
const LABELLED: u8 = 2;

/// The largest stage (and value) the labelling runs to: codes must stay below `u32::MAX`.
const MAX_STAGE: u32 = u32::MAX - 2;

/// A frontier entry's flag: the position was marked (else it was labelled).
const MARK_FLAG: u64 = 1 << 63;

/// Bytes the labelling needs for a game of `size` positions whose positions have at most
/// `max_children` moves, besides the game and the solve's cells: the codes, two counters and two
/// 2-bit cells a position, the frontiers and open lists, and the records of infinite positions
/// (at most one a position and one per later mark; counted as one each).
pub fn memory_estimate(size: u64, max_children: u64) -> u64 {
    let counters = 2 * counter_width(max_children);
    size.saturating_mul(4 + counters + 16 + 8 + 16)
        .saturating_add(2 * size.div_ceil(4))
}

/// What one task found in a round.
#[derive(Default)]
struct Piece {
    /// Labelled and marked positions (the latter flagged [`MARK_FLAG`]): the next frontier.
    next: Vec<u64>,
    /// Open positions marked: the next stage's open positions.
    marked_open: Vec<u64>,
    /// Infinite positions marked (position, stage): values they reach.
    reached: Vec<(u64, u32)>,
    visits: u64,
}

/// Labels every position of the impartial game `game` (every position open or unused: a player
/// who cannot move loses) with its generalized Sprague-Grundy value. `solved`, when given, is
/// the counter engine's solve of the game (all of its cells decided): it is stage 0, and the
/// labelling starts at stage 1.
pub fn label<G: Game>(game: &G, opts: &SolveOptions, solved: Option<&Cells<'_>>) -> Result<Labels> {
    match counter_width(game.max_children()) {
        1 => run::<G, AtomicU8>(game, opts, solved),
        2 => run::<G, AtomicU16>(game, opts, solved),
        4 => run::<G, AtomicU32>(game, opts, solved),
        _ => run::<G, AtomicU64>(game, opts, solved),
    }
}

fn run<G: Game, C: Counter>(
    game: &G,
    opts: &SolveOptions,
    solved: Option<&Cells<'_>>,
) -> Result<Labels> {
    game.prepare();
    let size = game.size();
    let fail = |msg: String| Error::Spec {
        spec: game.spec(),
        msg,
    };
    let kind_words = cells::zeroed_words(cells::words_for(size));
    let kinds = Cells::new(&kind_words, size);
    let stage_words = cells::zeroed_words(cells::words_for(size));
    let stage_cells = Cells::new(&stage_words, size);
    // The finite values, written once by the task that labels a position.
    let values: Vec<AtomicU32> = cells::zeroed_atomics(size);
    let count: Vec<C> = cells::zeroed_atomics(size);
    let stage_count: Vec<C> = cells::zeroed_atomics(size);
    let progress = opts.bar(size);
    progress.set_message("stage 0");
    let mut became_infinite: Vec<(u64, u32)> = Vec::new();
    let mut visits = 0u64;
    let mut largest: Option<u32> = None;

    // The open positions, with their moves counted; unused indices marked so. Given the solve,
    // its losses are value 0, its draws infinite from stage 0 on, its wins open.
    let chunks = size.div_ceil(CHUNK as u64);
    let pieces: Vec<Result<(Vec<u64>, Vec<u64>)>> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let start = k * CHUNK as u64;
            let end = (start + CHUNK as u64).min(size);
            let (mut open, mut lost) = (Vec::new(), Vec::new());
            for pos in start..end {
                match game.status(pos) {
                    Status::Unused => {
                        kinds.decide(pos, UNUSED);
                    }
                    Status::Open => {
                        count[pos as usize].set(game.child_count(pos));
                        match solved.map(|c| c.get(pos)) {
                            None | Some(cells::WIN) => open.push(pos),
                            Some(cells::LOSS) => {
                                kinds.decide(pos, FINITE);
                                lost.push(pos);
                            }
                            Some(cells::DRAW) => {
                                kinds.decide(pos, INFINITE);
                            }
                            Some(c) => {
                                return Err(fail(format!(
                                    "position {} is undecided ({c}) in the solve handed over",
                                    game.position_text(pos)
                                )));
                            }
                        }
                    }
                    Status::Over(v) => {
                        return Err(fail(format!(
                            "position {} is over ({v}): generalized Sprague-Grundy values are for \
                             games where a player who cannot move loses",
                            game.position_text(pos)
                        )));
                    }
                }
            }
            progress.inc(end - start - open.len() as u64);
            Ok((open, lost))
        })
        .collect();
    let (open, lost): (Vec<Vec<u64>>, Vec<Vec<u64>>) = pieces
        .into_iter()
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let mut open = concat(open);
    let lost = concat(lost);
    let mut stage = 0u32;
    if solved.is_some() {
        // Stage 0 from the solve: the lost positions' parents lose a follower without a value.
        visits += lost
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut v = 0u64;
                for &x in chunk {
                    game.for_each_parent(x, |q| {
                        v += 1;
                        if kinds.get(q) == OPEN {
                            count[q as usize].decrement();
                        }
                    });
                }
                v
            })
            .sum::<u64>();
        if !lost.is_empty() {
            largest = Some(0);
        }
        let draws: Vec<Vec<(u64, u32)>> = (0..chunks)
            .into_par_iter()
            .map(|k| {
                let start = k * CHUNK as u64;
                let end = (start + CHUNK as u64).min(size);
                (start..end)
                    .filter(|&p| kinds.get(p) == INFINITE)
                    .map(|p| (p, 0))
                    .collect()
            })
            .collect();
        became_infinite = concat(draws);
        // Stage 0 ran, where there was a position to label.
        if !(open.is_empty() && lost.is_empty() && became_infinite.is_empty()) {
            stage = 1;
        }
    }
    drop(lost);

    let mut reached: Vec<(u64, u32)> = Vec::new();
    let mut reports = Vec::new();
    while !open.is_empty() {
        opts.stop.check()?;
        if stage > MAX_STAGE {
            return Err(fail(format!("values beyond {MAX_STAGE}")));
        }
        let m = stage;
        let started = std::time::Instant::now();
        let (open_count, visits_before) = (open.len() as u64, visits);
        progress.set_message(format!("stage {m}"));
        stage_words
            .par_chunks(1 << 14)
            .for_each(|c| c.iter().for_each(|w| w.store(0, Ordering::Relaxed)));
        // Seeds: open positions whose every follower has a value (below m).
        let seeds: Vec<u64> = open
            .par_chunks(CHUNK)
            .flat_map_iter(|chunk| {
                chunk.iter().copied().filter(|&u| {
                    let n = count[u as usize].get();
                    stage_count[u as usize].set(n);
                    n == 0 && stage_cells.decide(u, LABELLED)
                })
            })
            .collect();
        for &u in &seeds {
            values[u as usize].store(m, Ordering::Relaxed);
        }
        let mut labelled = seeds.len() as u64;
        let mut frontier = seeds;
        let mut next_open: Vec<Vec<u64>> = Vec::new();
        while !frontier.is_empty() {
            if opts.stop.requested() {
                break;
            }
            let pieces: Vec<Piece> = frontier
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut p = Piece::default();
                    for &item in chunk {
                        let x = item & !MARK_FLAG;
                        if item & MARK_FLAG == 0 {
                            // Labelled m: its parents can move to m.
                            game.for_each_parent(x, |q| {
                                p.visits += 1;
                                match kinds.get(q) {
                                    OPEN => {
                                        count[q as usize].decrement();
                                        if stage_cells.decide(q, MARKED) {
                                            p.next.push(q | MARK_FLAG);
                                            p.marked_open.push(q);
                                        }
                                    }
                                    INFINITE if stage_cells.decide(q, MARKED) => {
                                        p.next.push(q | MARK_FLAG);
                                        p.reached.push((q, m));
                                    }
                                    _ => {}
                                }
                            });
                        } else {
                            // Marked: one more follower of its open parents answered.
                            game.for_each_parent(x, |q| {
                                p.visits += 1;
                                if kinds.get(q) == OPEN
                                    && stage_cells.get(q) == 0
                                    && stage_count[q as usize].decrement() == 0
                                    && stage_cells.decide(q, LABELLED)
                                {
                                    values[q as usize].store(m, Ordering::Relaxed);
                                    p.next.push(q);
                                }
                            });
                        }
                    }
                    p
                })
                .collect();
            let mut next = Vec::with_capacity(pieces.iter().map(|p| p.next.len()).sum());
            for p in pieces {
                visits += p.visits;
                labelled += p.next.iter().filter(|&&i| i & MARK_FLAG == 0).count() as u64;
                next.extend_from_slice(&p.next);
                next_open.push(p.marked_open);
                reached.extend_from_slice(&p.reached);
            }
            frontier = next;
        }
        opts.stop.check()?;
        if labelled > 0 {
            largest = Some(m);
        }
        // Labelled: finite. Open and not marked: no follower of value m, so no finite value.
        let infinite: Vec<Vec<(u64, u32)>> = open
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut out = Vec::new();
                for &u in chunk {
                    match stage_cells.get(u) {
                        LABELLED => {
                            kinds.decide(u, FINITE);
                        }
                        MARKED => {}
                        _ => {
                            kinds.decide(u, INFINITE);
                            out.push((u, m));
                        }
                    }
                }
                out
            })
            .collect();
        progress.inc(labelled);
        let mut found_infinite = 0u64;
        for piece in infinite {
            progress.inc(piece.len() as u64);
            found_infinite += piece.len() as u64;
            became_infinite.extend_from_slice(&piece);
        }
        reports.push(StageReport {
            value: m,
            open: open_count,
            labelled,
            infinite: found_infinite,
            parent_visits: visits - visits_before,
            seconds: started.elapsed().as_secs_f64(),
        });
        open = concat(next_open);
        stage += 1;
    }
    let finite = largest.map_or(0, |l| l + 1);
    let (codes, sets) = codes_and_sets(&kinds, values, finite, became_infinite, reached)
        .ok_or_else(|| {
            fail(format!(
                "{finite} finite values and more distinct reach sets than 32-bit codes hold"
            ))
        })?;
    progress.set_position(size);
    Ok(Labels {
        codes,
        finite,
        sets,
        stages: stage,
        parent_visits: visits,
        stage_reports: reports,
    })
}

/// The table's codes and the distinct reach sets (numbered in the order of the first position
/// that has each): an infinite position that became so in stage `m'` reaches `0..m'` and the
/// stages of its later marks. `None` when the codes do not fit 32 bits.
fn codes_and_sets(
    kinds: &Cells<'_>,
    values: Vec<AtomicU32>,
    finite: u32,
    mut became: Vec<(u64, u32)>,
    mut reached: Vec<(u64, u32)>,
) -> Option<(Vec<u32>, Vec<u64>)> {
    let mut codes = cells::into_plain(values);
    codes
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(k, chunk)| {
            for (i, c) in chunk.iter_mut().enumerate() {
                if kinds.get((k * CHUNK + i) as u64) != FINITE {
                    *c = Labels::UNUSED;
                }
            }
        });
    became.par_sort_unstable();
    reached.par_sort_unstable();
    let words = crate::grundy::words_per_set(finite);
    let mut ids: HashMap<Vec<u64>, u32> = HashMap::new();
    // Most infinite positions reach just the values below the stage they became infinite in:
    // their set's id by that stage, without hashing.
    let mut prefix_ids: Vec<Option<u32>> = vec![None; finite as usize + 1];
    let mut sets: Vec<u64> = Vec::new();
    let mut set = vec![0u64; words];
    let mut r = 0usize;
    for &(pos, since) in &became {
        while r < reached.len() && reached[r].0 < pos {
            r += 1;
        }
        let later = r < reached.len() && reached[r].0 == pos;
        let id = match prefix_ids[since as usize] {
            Some(id) if !later => id,
            _ => {
                set.iter_mut().for_each(|w| *w = 0);
                for j in 0..since {
                    set[(j / 64) as usize] |= 1 << (j % 64);
                }
                while r < reached.len() && reached[r].0 == pos {
                    let j = reached[r].1;
                    set[(j / 64) as usize] |= 1 << (j % 64);
                    r += 1;
                }
                let id = match ids.get(&set) {
                    Some(&id) => id,
                    None => {
                        let id = ids.len() as u32;
                        ids.insert(set.clone(), id);
                        sets.extend_from_slice(&set);
                        id
                    }
                };
                if !later {
                    prefix_ids[since as usize] = Some(id);
                }
                id
            }
        };
        let code = finite.checked_add(id).filter(|&c| c != Labels::UNUSED)?;
        codes[pos as usize] = code;
    }
    Some((codes, sets))
}

fn concat<T: Copy>(pieces: Vec<Vec<T>>) -> Vec<T> {
    let total = pieces.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total);
    for p in pieces {
        out.extend_from_slice(&p);
    }
    out
}

#[cfg(test)]
mod tests {
    //! The labelling against answers that use no labelling: the counter engine on the explicit
    //! sum (product) game of two and three tokens, plain Sprague-Grundy numbers (mex by a memoised
    //! recursion) on acyclic graphs, and the single-token values of the counter engine.

    use super::*;
    use crate::game::Value;
    use crate::games::Source;
    use crate::games::digraph::Digraph;
    use crate::grundy::{Grundy, check_local, sum, winning_moves};
    use crate::splitmix::SplitMix64;
    use proptest::prelude::*;

    /// A small random digraph: `n` vertices, up to `2n + 2` edges (loops and repeated edges
    /// possible), some vertices without moves; vertices no edge touches are unused.
    fn small_graph(seed: u64, max_n: u64) -> (u64, Vec<(u32, u32)>) {
        let mut rng = SplitMix64(seed);
        let n = 1 + rng.below(max_n);
        let m = rng.below(2 * n + 3);
        let sinks = rng.below(n.div_ceil(2) + 1);
        let mut edges = Vec::new();
        for _ in 0..m {
            let u = rng.below(n);
            let v = rng.below(n);
            // Sinks have no out-edge (unless the graph has nothing else).
            if u < sinks && n > sinks {
                continue;
            }
            // Some graphs without loops or repeated edges, so those cases come up both ways.
            if seed.is_multiple_of(3) && (u == v || edges.contains(&(u as u32, v as u32))) {
                continue;
            }
            edges.push((u as u32, v as u32));
        }
        (n, edges)
    }

    fn digraph(n: u64, edges: &[(u32, u32)]) -> Digraph {
        Digraph::from_edges(Source::of("g.txt", &[]), n, edges)
    }

    fn label_of(g: &Digraph) -> Labels {
        label(g, &SolveOptions::default(), None).unwrap()
    }

    /// The counter engine's values of every position of `g` (`None`: unused).
    fn counter_values<G: Game>(g: &G) -> Vec<Option<Value>> {
        let words = cells::zeroed_words(cells::words_for(g.size()));
        let c = cells::Cells::new(&words, g.size());
        super::super::counter::solve(g, &c, &SolveOptions::default());
        (0..g.size()).map(|p| cells::value(c.get(p))).collect()
    }

    /// The sum of `k` tokens on `g` as a digraph of its own: position `t_0 + t_1 n + ...`, a
    /// move moves one token along an edge of `g`. Only tuples of used vertices have edges.
    fn product(g: &Digraph, k: u32) -> Digraph {
        let n = g.size();
        let used: Vec<bool> = (0..n).map(|v| g.status(v) != Status::Unused).collect();
        let mut edges = Vec::new();
        for idx in 0..n.pow(k) {
            let t = tuple(idx, n, k);
            if !t.iter().all(|&v| used[v as usize]) {
                continue;
            }
            for i in 0..k as usize {
                g.for_each_child(t[i], |c| {
                    let mut s = t.clone();
                    s[i] = c;
                    edges.push((idx as u32, index(&s, n) as u32));
                });
            }
        }
        digraph(n.pow(k), &edges)
    }

    fn tuple(mut idx: u64, n: u64, k: u32) -> Vec<u64> {
        (0..k)
            .map(|_| {
                let v = idx % n;
                idx /= n;
                v
            })
            .collect()
    }

    fn index(t: &[u64], n: u64) -> u64 {
        t.iter().rev().fold(0, |a, &v| a * n + v)
    }

    /// What the comparison of one graph met, summed over all graphs (so a test can insist that
    /// every case of the sum rule came up).
    #[derive(Default, Debug)]
    struct Seen {
        sums: u64,
        won: u64,
        lost: u64,
        drawn: u64,
        one_infinite_won: u64,
        one_infinite_drawn: u64,
        two_infinite: u64,
        nonempty_reach: u64,
        finite_reversal: u64,
    }

    /// Compares every sum of `k` tokens on `g` with the counter engine's solve of the product:
    /// the outcome, and the winning moves (exactly the moves to lost positions, up to tokens on
    /// the same vertex). Returns the first disagreement.
    fn compare_sums(g: &Digraph, labels: &Labels, k: u32, seen: &mut Seen) -> Result<(), String> {
        let n = g.size();
        let p = product(g, k);
        let truth = counter_values(&p);
        let value = |v: u64| labels.get(v).expect("a used vertex");
        for idx in 0..n.pow(k) {
            let t = tuple(idx, n, k);
            if t.iter().any(|&v| labels.get(v).is_none()) {
                continue;
            }
            let values: Vec<Grundy> = t.iter().map(|&v| value(v)).collect();
            let got = sum(&values).value();
            let want = truth[idx as usize].ok_or("a used tuple unused in the product")?;
            if got != want {
                return Err(format!(
                    "tokens {t:?} with values {values:?}: the sum rule says {got}, the product \
                     solve {want}"
                ));
            }
            seen.sums += 1;
            match want {
                Value::Win => seen.won += 1,
                Value::Loss => seen.lost += 1,
                Value::Draw => seen.drawn += 1,
            }
            match values.iter().filter(|v| !v.is_finite()).count() {
                1 if want == Value::Win => seen.one_infinite_won += 1,
                1 => seen.one_infinite_drawn += 1,
                0 => {}
                _ => seen.two_infinite += 1,
            }
            let moves = winning_moves(&t, &values, |v| {
                Ok::<_, ()>(
                    g.moves(v)
                        .iter()
                        .map(|m| (m.child, value(m.child)))
                        .collect(),
                )
            })
            .unwrap();
            let mut reported: Vec<Vec<u64>> = moves
                .iter()
                .map(|&(i, c)| {
                    let mut s = t.clone();
                    s[i] = c;
                    s.sort_unstable();
                    s
                })
                .collect();
            let mut winning: Vec<Vec<u64>> = Vec::new();
            for i in 0..k as usize {
                g.for_each_child(t[i], |c| {
                    let mut s = t.clone();
                    s[i] = c;
                    if truth[index(&s, n) as usize] == Some(Value::Loss) {
                        s.sort_unstable();
                        winning.push(s);
                    }
                });
            }
            for list in [&mut reported, &mut winning] {
                list.sort_unstable();
                list.dedup();
            }
            if reported != winning {
                return Err(format!(
                    "tokens {t:?} with values {values:?}: winning moves lead to {reported:?}, the \
                     product's moves to lost positions are {winning:?}"
                ));
            }
        }
        Ok(())
    }

    /// The labelling's own consistency on `g`: every value passes the local conditions, a
    /// single token's outcome is the counter engine's, and every used position has a value.
    fn check_graph(g: &Digraph, labels: &Labels, seen: &mut Seen) -> Result<(), String> {
        let single = counter_values(g);
        for v in 0..g.size() {
            let Some(value) = labels.get(v) else {
                if single[v as usize].is_some() {
                    return Err(format!("vertex {v} has no value but is a position"));
                }
                continue;
            };
            let followers: Vec<Grundy> = g
                .moves(v)
                .iter()
                .map(|m| labels.get(m.child).unwrap())
                .collect();
            check_local(&value, &followers).map_err(|e| format!("vertex {v}: {e}"))?;
            if Some(value.value()) != single[v as usize] {
                return Err(format!(
                    "vertex {v}: value {value} says {}, the counter engine {:?}",
                    value.value(),
                    single[v as usize]
                ));
            }
            if let Grundy::Infinite(k) = &value
                && !k.is_empty()
            {
                seen.nonempty_reach += 1;
            }
            if let Grundy::Finite(n) = value
                && followers
                    .iter()
                    .any(|f| !matches!(f, Grundy::Finite(m) if *m < n))
            {
                seen.finite_reversal += 1;
            }
        }
        Ok(())
    }

    #[test]
    fn sums_of_two_and_three_tokens_agree_with_the_product_solve() {
        let mut seen = Seen::default();
        let graphs = 3000;
        for seed in 0..graphs {
            let (n, edges) = small_graph(seed, if seed % 2 == 0 { 6 } else { 9 });
            let g = digraph(n, &edges);
            let labels = label_of(&g);
            let report = |e: String| format!("seed {seed}, {n} vertices, edges {edges:?}: {e}");
            check_graph(&g, &labels, &mut seen).unwrap_or_else(|e| panic!("{}", report(e)));
            compare_sums(&g, &labels, 2, &mut seen).unwrap_or_else(|e| panic!("{}", report(e)));
            if n <= 6 {
                compare_sums(&g, &labels, 3, &mut seen).unwrap_or_else(|e| panic!("{}", report(e)));
            }
        }
        // Every case of the sum rule came up, many times.
        eprintln!("{seen:?}");
        let least = [
            seen.won,
            seen.lost,
            seen.drawn,
            seen.one_infinite_won,
            seen.one_infinite_drawn,
            seen.two_infinite,
            seen.nonempty_reach,
            seen.finite_reversal,
        ];
        assert!(least.iter().all(|&c| c >= 200), "{seen:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn random_graphs_agree_with_the_product_solve(
            n in 1u64..8,
            raw in prop::collection::vec((0u64..8, 0u64..8), 0..20),
        ) {
            let edges: Vec<(u32, u32)> =
                raw.iter().map(|&(u, v)| ((u % n) as u32, (v % n) as u32)).collect();
            let g = digraph(n, &edges);
            let labels = label_of(&g);
            let mut seen = Seen::default();
            check_graph(&g, &labels, &mut seen).map_err(TestCaseError::fail)?;
            compare_sums(&g, &labels, 2, &mut seen).map_err(TestCaseError::fail)?;
            if n <= 5 {
                compare_sums(&g, &labels, 3, &mut seen).map_err(TestCaseError::fail)?;
            }
        }
    }

    /// Plain Sprague-Grundy numbers of an acyclic graph: mex over the followers, by recursion.
    fn mex_values(g: &Digraph) -> Vec<Option<u32>> {
        fn go(g: &Digraph, v: u64, memo: &mut Vec<Option<u32>>) -> u32 {
            if let Some(x) = memo[v as usize] {
                return x;
            }
            let mut seen: Vec<u32> = g.moves(v).iter().map(|m| go(g, m.child, memo)).collect();
            seen.sort_unstable();
            let mut mex = 0;
            for s in seen {
                if s == mex {
                    mex += 1;
                }
            }
            memo[v as usize] = Some(mex);
            mex
        }
        let mut memo = vec![None; g.size() as usize];
        for v in 0..g.size() {
            if g.status(v) != Status::Unused {
                go(g, v, &mut memo);
            }
        }
        memo
    }

    #[test]
    fn acyclic_graphs_get_plain_sprague_grundy_numbers() {
        let mut largest = 0;
        for seed in 0..1500u64 {
            let mut rng = SplitMix64(seed ^ 0x5EED);
            let n = 2 + rng.below(60);
            let m = rng.below(4 * n);
            // Edges from a higher id to a lower one: no cycle.
            let edges: Vec<(u32, u32)> = (0..m)
                .filter_map(|_| {
                    let (a, b) = (rng.below(n), rng.below(n));
                    (a != b).then(|| (a.max(b) as u32, a.min(b) as u32))
                })
                .collect();
            let g = digraph(n, &edges);
            let labels = label_of(&g);
            let want = mex_values(&g);
            for v in 0..n {
                let got = labels.get(v);
                assert_eq!(
                    got,
                    want[v as usize].map(Grundy::Finite),
                    "seed {seed}, vertex {v}, edges {edges:?}"
                );
            }
            assert_eq!(labels.infinite_count(), 0);
            assert_eq!(
                labels.stages, labels.finite,
                "a stage per value, seed {seed}"
            );
            largest = largest.max(labels.finite);
        }
        assert!(largest >= 5, "values up to {largest} only");
    }

    #[test]
    fn the_same_labels_with_one_thread_and_with_several() {
        for seed in 0..20u64 {
            let n = 3000;
            let g = crate::games::digraph::random(n, 4 * n, seed % 4 * 300, seed);
            let pool = |t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            };
            let one = pool(1).install(|| label_of(&g));
            let three = pool(3).install(|| label_of(&g));
            assert_eq!(
                (
                    &one.codes,
                    one.finite,
                    &one.sets,
                    one.stages,
                    one.parent_visits
                ),
                (
                    &three.codes,
                    three.finite,
                    &three.sets,
                    three.stages,
                    three.parent_visits
                ),
                "seed {seed}"
            );
            let mut seen = Seen::default();
            check_graph(&g, &one, &mut seen).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }

    /// Stage 0 handed over from the counter engine's solve gives the same labels as stage 0 run
    /// by the labelling itself.
    #[test]
    fn a_solve_handed_over_is_stage_zero() {
        for seed in 0..400u64 {
            let g = if seed % 4 == 0 {
                crate::games::digraph::random(2000, 5000 + seed * 20, seed % 3 * 150, seed)
            } else {
                let (n, edges) = small_graph(seed, 9);
                digraph(n, &edges)
            };
            let words = cells::zeroed_words(cells::words_for(g.size()));
            let c = Cells::new(&words, g.size());
            super::super::counter::solve(&g, &c, &SolveOptions::default());
            let seeded = label(&g, &SolveOptions::default(), Some(&c)).unwrap();
            let fresh = label_of(&g);
            assert_eq!(
                (&seeded.codes, seeded.finite, &seeded.sets, seeded.stages),
                (&fresh.codes, fresh.finite, &fresh.sets, fresh.stages),
                "seed {seed}"
            );
            assert!(seeded.parent_visits <= fresh.parent_visits);
        }
    }

    #[test]
    fn hand_checked_examples() {
        // A 2-cycle: a token there moves back and forth for ever.
        let g = digraph(2, &[(0, 1), (1, 0)]);
        let l = label_of(&g);
        assert_eq!(l.get(0), Some(Grundy::Infinite(vec![])));
        assert_eq!(l.get(1), Some(Grundy::Infinite(vec![])));
        // A 3-cycle with an exit from 2 to the sink 3: every value finite.
        let g = digraph(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        let l = label_of(&g);
        let got: Vec<_> = (0..4).map(|v| l.get(v).unwrap()).collect();
        assert_eq!(
            got,
            [1, 0, 2, 0].map(Grundy::Finite).to_vec(),
            "values of the cycle with an exit"
        );
        // A loop: never a finite value (the token may stay).
        let g = digraph(2, &[(0, 0), (0, 1)]);
        let l = label_of(&g);
        assert_eq!(l.get(0), Some(Grundy::Infinite(vec![0])));
    }

    #[test]
    fn games_that_end_otherwise_are_refused() {
        let g = crate::games::AnyGame::open("hex:2", u64::MAX).unwrap();
        let crate::games::AnyGame::Cell(g) = g else {
            unreachable!()
        };
        let e = label(&g, &SolveOptions::default(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is over"), "{e}");
    }
}
