//! The token game on a digraph solved across ranks: vertices split in contiguous ranges, one per
//! rank; each rank holds its vertices' out-degrees (the counters), their parents (the reverse
//! graph's rows) and their cells, and nothing of the rest of the graph.
//!
//! Rounds are bulk-synchronous, exactly the counter engine's (`solve/counter.rs`): round 0
//! decides the vertices without moves (lost); in round `r` every rank walks the vertices it
//! decided in round `r - 1` and sends, for each parent, one message to the parent's owner: the
//! parent's id and whether the child is lost. A lost child makes an undecided parent a win; a won
//! child decrements its counter, and the message that takes it to zero makes it a loss. Messages
//! go out in batches (an all-to-all with counts each), so a round's traffic never has to be held
//! whole. The rounds end when no rank decided anything (a sum over the ranks); what is left
//! undecided is a draw.
//!
//! The invariant: a vertex is decided by its owner only, in the round the counter engine decides
//! it, so values, remoteness and the round count equal the single-process engine's for every
//! rank count (tested against it).

use std::ops::Range;

use super::comm::Comm;
use crate::base::cells::{self, Cells};
use crate::base::error::Result;

/// Vertices per rank are a multiple of this, so each rank's cells (2 bits each) and remoteness
/// (1 to 4 bytes each) fill whole checksum blocks of the table (64 KiB; the build layer's
/// distributed writer checks it).
pub const ALIGN: u64 = 1 << 18;

/// Messages a rank sends in one exchange at most (8 bytes each).
pub const BATCH: usize = 1 << 22;

/// Vertices `0..n` split in contiguous ranges, one per rank, each a multiple of [`ALIGN`] long;
/// the last ranks may hold fewer vertices, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub n: u64,
    pub ranks: usize,
    per: u64,
}

impl Split {
    pub fn new(n: u64, ranks: usize) -> Split {
        Split::aligned(n, ranks, ALIGN)
    }

    /// Ranges that are multiples of `align` (tests use small ones to spread small graphs).
    pub fn aligned(n: u64, ranks: usize, align: u64) -> Split {
        let per = n.div_ceil(ranks as u64).div_ceil(align).max(1) * align;
        Split { n, ranks, per }
    }

    /// The rank that owns vertex `v`.
    #[inline]
    pub fn owner(&self, v: u64) -> usize {
        (v / self.per) as usize
    }

    /// The vertices rank `rank` owns.
    pub fn range(&self, rank: usize) -> Range<u64> {
        let lo = (rank as u64 * self.per).min(self.n);
        lo..(lo + self.per).min(self.n)
    }
}

/// One rank's share of the graph.
#[derive(Debug)]
pub struct Part {
    pub split: Split,
    pub rank: usize,
    /// Out-degree of each owned vertex.
    out_deg: Vec<u32>,
    /// Parents of owned vertex `lo + i`: `par_to[par_off[i]..par_off[i + 1]]`, sorted.
    par_off: Vec<u64>,
    par_to: Vec<u32>,
}

impl Part {
    /// This rank's part of the graph on vertices `0..n`, from the edges `(u, v)` it read (any
    /// share of the edge list): each edge's out-degree goes to `u`'s owner, its reverse entry to
    /// `v`'s.
    pub fn from_edges(comm: &dyn Comm, n: u64, edges: &[(u32, u32)]) -> Result<Part> {
        Part::split_by(comm, Split::new(n, comm.ranks()), edges)
    }

    /// [`Part::from_edges`] with the ranges of `split`.
    pub fn split_by(comm: &dyn Comm, split: Split, edges: &[(u32, u32)]) -> Result<Part> {
        assert_eq!(split.ranks, comm.ranks(), "one range per rank");
        let rank = comm.rank();
        let own = split.range(rank);
        let len = (own.end - own.start) as usize;

        let tails = route(&split, edges, |(u, _)| u, |(u, _)| u as u64);
        let mut out_deg = vec![0u32; len];
        for from in comm.exchange(tails)? {
            for u in from {
                out_deg[(u - own.start) as usize] += 1;
            }
        }

        let heads = route(
            &split,
            edges,
            |(_, v)| v,
            |(u, v)| (v as u64) << 32 | u as u64,
        );
        let received = comm.exchange(heads)?;
        // Rows by a counting sort on the head, then each row sorted (as the single-process
        // graph's are).
        let mut par_off = vec![0u64; len + 1];
        for &e in received.iter().flatten() {
            par_off[((e >> 32) - own.start) as usize + 1] += 1;
        }
        for i in 0..len {
            par_off[i + 1] += par_off[i];
        }
        let mut next: Vec<u64> = par_off[..len].to_vec();
        let mut par_to = vec![0u32; par_off[len] as usize];
        for from in received {
            for e in from {
                let row = ((e >> 32) - own.start) as usize;
                par_to[next[row] as usize] = e as u32;
                next[row] += 1;
            }
        }
        drop(next);
        for i in 0..len {
            par_to[par_off[i] as usize..par_off[i + 1] as usize].sort_unstable();
        }
        Ok(Part {
            split,
            rank,
            out_deg,
            par_off,
            par_to,
        })
    }

    /// The vertices this rank owns.
    pub fn range(&self) -> Range<u64> {
        self.split.range(self.rank)
    }

    fn parents(&self, i: usize) -> &[u32] {
        &self.par_to[self.par_off[i] as usize..self.par_off[i + 1] as usize]
    }

    /// Edges whose head this rank owns.
    pub fn edges(&self) -> u64 {
        self.par_to.len() as u64
    }
}

/// `msg(e)` for every edge `e`, to the owner of `key(e)`: one list per rank, each allocated
/// once at its final size.
fn route(
    split: &Split,
    edges: &[(u32, u32)],
    key: impl Fn((u32, u32)) -> u32,
    msg: impl Fn((u32, u32)) -> u64,
) -> Vec<Vec<u64>> {
    let mut counts = vec![0usize; split.ranks];
    for &e in edges {
        counts[split.owner(key(e) as u64)] += 1;
    }
    let mut out: Vec<Vec<u64>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for &e in edges {
        out[split.owner(key(e) as u64)].push(msg(e));
    }
    out
}

/// One rank's solved share.
#[derive(Debug)]
pub struct Solved {
    /// The owned vertices' cells, in the table's packed words (2 bits each).
    pub words: Vec<std::sync::atomic::AtomicU64>,
    /// Per owned vertex: the remoteness, `crate::base::remoteness::NONE` for draws and unused ids.
    pub remoteness: Option<Vec<u32>>,
    /// The last round that decided a vertex anywhere (the counter engine's round count).
    pub rounds: u32,
    /// Parent visits made for this rank's decided vertices.
    pub visits: u64,
}

impl Solved {
    pub fn cells(&self, len: u64) -> Cells<'_> {
        Cells::new(&self.words, len)
    }
}

/// Solves the token game on the graph `part` is a share of, together with the other ranks.
pub fn solve(part: &Part, comm: &dyn Comm, remoteness: bool) -> Result<Solved> {
    solve_batched(part, comm, remoteness, BATCH)
}

/// [`solve`] with at most `batch` messages a rank per exchange.
pub fn solve_batched(
    part: &Part,
    comm: &dyn Comm,
    remoteness: bool,
    batch: usize,
) -> Result<Solved> {
    let own = part.range();
    let len = own.end - own.start;
    let words = cells::zeroed_words(cells::words_for(len));
    let cells = Cells::new(&words, len);
    let mut rem: Option<Vec<u32>> =
        remoteness.then(|| vec![crate::base::remoteness::NONE; len as usize]);
    let mut counters = part.out_deg.clone();

    // Round 0: vertices with parents but no moves are lost; ids with neither are unused.
    let mut frontier: Vec<u32> = Vec::new();
    for i in 0..len as usize {
        if counters[i] == 0 && part.par_off[i + 1] > part.par_off[i] {
            cells.decide(i as u64, cells::LOSS);
            if let Some(r) = &mut rem {
                r[i] = 0;
            }
            frontier.push(i as u32);
        }
    }

    let split = part.split;
    let mut round = 0u32;
    let mut visits = 0u64;
    while comm.sum(frontier.len() as u64)? > 0 {
        round += 1;
        let mut next: Vec<u32> = Vec::new();
        let mut at = 0usize;
        loop {
            // Messages from the frontier's vertices, up to a batch.
            let mut out = vec![Vec::new(); comm.ranks()];
            let mut queued = 0usize;
            while at < frontier.len() {
                let i = frontier[at] as usize;
                let parents = part.parents(i);
                if queued > 0 && queued + parents.len() > batch {
                    break;
                }
                let lost = u64::from(cells.get(i as u64) == cells::LOSS);
                for &p in parents {
                    out[split.owner(p as u64)].push((p as u64) << 1 | lost);
                }
                queued += parents.len();
                visits += parents.len() as u64;
                at += 1;
            }
            for msgs in comm.exchange(out)? {
                for msg in msgs {
                    let i = (msg >> 1) - own.start;
                    if cells.get(i) != cells::UNDECIDED {
                        continue;
                    }
                    let decided = if msg & 1 == 1 {
                        cells.decide(i, cells::WIN)
                    } else {
                        counters[i as usize] -= 1;
                        counters[i as usize] == 0 && cells.decide(i, cells::LOSS)
                    };
                    if decided {
                        if let Some(r) = &mut rem {
                            r[i as usize] = round;
                        }
                        next.push(i as u32);
                    }
                }
            }
            // Another exchange while any rank has messages left.
            if comm.sum((frontier.len() - at) as u64)? == 0 {
                break;
            }
        }
        frontier = next;
    }
    // The last round decided nothing anywhere: the round count is the one before.
    let rounds = round;

    // Open vertices still undecided are draws (remoteness stays `remoteness::NONE`).
    for (i, &left) in counters.iter().enumerate() {
        if left > 0 && cells.get(i as u64) == cells::UNDECIDED {
            cells.decide(i as u64, cells::DRAW);
        }
    }
    Ok(Solved {
        words,
        remoteness: rem,
        rounds,
        visits,
    })
}

#[cfg(test)]
mod tests {
    use super::super::comm::run_local;
    use super::*;
    use crate::game::Game;
    use crate::games::digraph::Digraph;
    use crate::solve::{SolveOptions, counter};

    /// Solves `edges` on `ranks` thread ranks (each reading an interleaved share of the edges)
    /// and with the counter engine; compares values, remoteness and rounds vertex by vertex.
    fn agree(n: u64, edges: &[(u32, u32)], ranks: usize, batch: usize, align: u64) {
        let parts = run_local(ranks, |c| {
            let mine: Vec<(u32, u32)> = edges
                .iter()
                .copied()
                .enumerate()
                .filter(|(k, _)| k % c.ranks() == c.rank())
                .map(|(_, e)| e)
                .collect();
            let part = Part::split_by(c, Split::aligned(n, c.ranks(), align), &mine)?;
            let solved = solve_batched(&part, c, true, batch)?;
            Ok((part.range(), solved))
        })
        .unwrap();

        if align * ranks as u64 <= n {
            assert_eq!(parts.iter().filter(|(r, _)| !r.is_empty()).count(), ranks);
        }
        let g = Digraph::from_edges(crate::games::source::Source::of("t", b""), n, edges);
        let words = cells::zeroed_words(cells::words_for(n));
        let want = Cells::new(&words, n);
        let opts = SolveOptions {
            remoteness: true,
            ..SolveOptions::default()
        };
        let stats = counter::solve(&g, &want, &opts);
        // The graphs are chosen to need every kind of decision.
        let [_, win, loss, draw] = stats.counts;
        assert!(
            win > 0 && loss > 0 && (n < 100 || draw > 0),
            "{:?}",
            stats.counts
        );
        let want_rem = stats.remoteness.unwrap();
        for (range, solved) in &parts {
            let got = solved.cells(range.end - range.start);
            for v in range.clone() {
                let i = v - range.start;
                assert_eq!(got.get(i), want.get(v), "value of {v} ({ranks} ranks)");
                assert_eq!(
                    solved.remoteness.as_ref().unwrap()[i as usize],
                    want_rem[v as usize],
                    "remoteness of {v} ({ranks} ranks)"
                );
            }
            assert_eq!(Some(solved.rounds), stats.rounds, "rounds ({ranks} ranks)");
        }
        assert_eq!(g.size(), n);
    }

    #[test]
    fn split_covers_the_vertices_in_aligned_ranges() {
        for (n, ranks, align) in [
            (1, 1, ALIGN),
            (10, 3, 1),
            (ALIGN * 3 + 5, 2, ALIGN),
            (ALIGN * 7, 7, ALIGN),
            (5, 4, 2),
            (1000, 3, 64),
        ] {
            let s = Split::aligned(n, ranks, align);
            let mut next = 0;
            for r in 0..ranks {
                let range = s.range(r);
                assert_eq!(range.start, next);
                assert!(
                    range.is_empty() || range.start.is_multiple_of(align),
                    "{n} {ranks}"
                );
                for v in range.clone() {
                    assert_eq!(s.owner(v), r);
                }
                next = range.end;
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn ranks_agree_with_the_counter_engine() {
        // Seed 001's kind of graph: a cycle with exits, and random graphs with sinks.
        let small = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (5, 0)];
        for ranks in [1, 2, 3] {
            agree(6, &small, ranks, BATCH, 1);
        }
        for (seed, n, m) in [
            (1u64, 200u64, 230u64),
            (2, 5000, 6000),
            (3, 150_000, 180_000),
        ] {
            let g = crate::games::digraph::random(n, m, n / 100 + 1, seed);
            let mut edges = Vec::new();
            for u in 0..n {
                g.for_each_child(u, |v| edges.push((u as u32, v as u32)));
            }
            for (ranks, batch, align) in
                [(1, BATCH, ALIGN), (2, 7, 64), (3, 1000, 32), (4, BATCH, 1)]
            {
                agree(n, &edges, ranks, batch, align);
            }
        }
    }
}
