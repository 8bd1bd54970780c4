//! Checks the MPI transport end to end: `mpirun -np K target/debug/examples/mpi_digraph [N M]`.
//!
//! Every rank makes the same random digraph (N vertices, M edges), reads an interleaved share of
//! its edges, and the ranks solve it together with small vertex ranges; rank 0 gathers the cells
//! and the remoteness and compares them with the single-process counter engine. Exits non-zero
//! on any difference.

use retrodb::base::cells::{self, Cells};
use retrodb::game::Game;
use retrodb::solve::distributed::comm::Comm;
use retrodb::solve::distributed::digraph::{Part, Split, solve_batched};
use retrodb::solve::distributed::mpi::MpiComm;
use retrodb::solve::{SolveOptions, counter};

fn main() -> retrodb::base::error::Result<()> {
    let launched = retrodb::solve::distributed::mpi::LAUNCHER_VARIABLES
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    let comm = MpiComm::init(launched)?;
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let (n, m) = (
        args.first().copied().unwrap_or(100_000),
        args.get(1).copied().unwrap_or(120_000),
    );
    let g = retrodb::games::digraph::random(n, m, n / 100 + 1, 7);
    let mut mine = Vec::new();
    let mut k = 0usize;
    for u in 0..n {
        g.for_each_child(u, |v| {
            if k % comm.ranks() == comm.rank() {
                mine.push((u as u32, v as u32));
            }
            k += 1;
        });
    }
    let part = Part::split_by(&comm, Split::aligned(n, comm.ranks(), 64), &mine)?;
    let solved = solve_batched(&part, &comm, true, 1 << 12)?;
    let range = part.range();
    // Rank 0 gathers (first vertex, codes..., remoteness...) from every rank.
    let len = range.end - range.start;
    let view = solved.cells(len);
    let mut msg = vec![range.start, len];
    msg.extend((0..len).map(|i| view.get(i) as u64));
    msg.extend(
        solved
            .remoteness
            .as_ref()
            .unwrap()
            .iter()
            .map(|&r| r as u64),
    );
    let mut out = vec![Vec::new(); comm.ranks()];
    out[0] = msg;
    let got = comm.exchange(out)?;
    let sent = comm.sum(comm.bytes_sent())?;
    if comm.rank() == 0 {
        let words = cells::zeroed_words(cells::words_for(n));
        let want = Cells::new(&words, n);
        let stats = counter::solve(
            &g,
            &want,
            &SolveOptions {
                remoteness: true,
                ..SolveOptions::default()
            },
        );
        let rem = stats.remoteness.unwrap();
        let mut bad = 0u64;
        for from in got {
            let (lo, len) = (from[0], from[1]);
            for i in 0..len {
                let v = lo + i;
                if from[2 + i as usize] != want.get(v) as u64
                    || from[(2 + len + i) as usize] != rem[v as usize] as u64
                {
                    bad += 1;
                }
            }
        }
        println!(
            "{} ranks, {n} vertices, {m} edges: rounds {} (counter engine {:?}), {} vertices differ, {sent} bytes exchanged",
            comm.ranks(),
            solved.rounds,
            stats.rounds,
            bad
        );
        if bad > 0 || Some(solved.rounds) != stats.rounds {
            std::process::exit(1);
        }
    }
    Ok(())
}
