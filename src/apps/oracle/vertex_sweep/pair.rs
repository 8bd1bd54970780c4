//! One graph and terminal pair of the vertex census: its game solved by the tiered engine, its
//! class read from the table, and the comparisons its graph was chosen for (the minimax at every
//! position, the counter engine's table); the index map through which every table of a cell
//! count is read.
//!
//! The invariant: the class is always the table's (read at the indices the notation gives the
//! empty positions), never the minimax's; the minimax only agrees or disagrees with it.

use std::sync::Arc;

use super::compare::{Notes, against_counter, against_minimax, check_texts, flip, table_class};
use super::report::PairOutcome;
use super::{Checks, MOVERS, VertexSweep};
use crate::apps::error::{OracleError, Result};
use crate::apps::oracle::graphs::Graph;
use crate::apps::oracle::lehman::EdgeClasses;
use crate::apps::oracle::sweep::shannon_file;
use crate::apps::oracle::vertex::{self, VertexGame};
use crate::base::cells::{self, Cells};
use crate::base::splitmix;
use crate::game::{Game, Notation, Status};
use crate::games::{AnyGame, Input};
use crate::solve::{SolveOptions, tiered};

/// Where each position of a table with `cells` cells is, as the game's notation says: per
/// minimax code, the index with Short to move and with Cut to move.
pub(super) struct IndexMap {
    pub(super) at: Vec<[u64; 2]>,
}

impl VertexSweep {
    /// The index map for games of `cells` cells, built through `game`'s notation the first time.
    fn index_map<G: Notation>(&self, game: &G, cells: usize) -> Result<Arc<IndexMap>> {
        let mut maps = self.maps.lock().expect("no thread panics holding the maps");
        if let Some(m) = maps.get(&cells) {
            return Ok(m.clone());
        }
        let size = game.size();
        let codes = vertex::codes(cells);
        let mut seen = vec![false; size as usize];
        let mut at = Vec::with_capacity(codes);
        for code in 0..codes {
            let mut both = [0u64; 2];
            for (slot, mover) in both.iter_mut().zip(MOVERS) {
                let text = vertex::position_text(cells, code, mover);
                let pos = game.parse_position(&text)?;
                if pos >= size || std::mem::replace(&mut seen[pos as usize], true) {
                    return Err(OracleError::IndexClash {
                        spec: game.spec(),
                        position: text,
                        index: pos,
                    }
                    .into());
                }
                *slot = pos;
            }
            at.push(both);
        }
        if let Some(pos) =
            (0..size).find(|&p| !seen[p as usize] && game.status(p) != Status::Unused)
        {
            return Err(OracleError::Unreached {
                spec: game.spec(),
                index: pos,
            }
            .into());
        }
        let map = Arc::new(IndexMap { at });
        maps.insert(cells, map.clone());
        Ok(map)
    }

    /// Solves the vertex game on `graph` with terminals `a`, `b`, reads its class from the
    /// table, and compares as `checks` says: every position with the minimax, the counter
    /// engine's table with the tiered one's. The edge game's class is `edge_classes`' (the
    /// graph's edges in Lehman's forests once for all its pairs).
    pub(super) fn check_pair(
        &self,
        graph: &Graph,
        graph6: &str,
        a: usize,
        b: usize,
        checks: Checks,
        edge_classes: &EdgeClasses,
    ) -> Result<PairOutcome> {
        let named = |reason: String| OracleError::Pair {
            graph6: graph6.to_string(),
            a,
            b,
            reason,
        };
        let minimax = match checks.minimax {
            true => Some(
                VertexGame::new(graph, a, b)
                    .map_err(|e| named(e.to_string()))?
                    .solve(),
            ),
            false => None,
        };
        let edge_class = edge_classes.class(a, b).map_err(|e| named(e.to_string()))?;
        let text = shannon_file(graph, a, b);
        let spec = format!("shannon-vertex:sweep/{graph6}-{a}-{b}.txt");
        let game = AnyGame::load(
            &spec,
            Input::Embedded(text.as_bytes()),
            self.opts.max_memory,
        )?;
        let cell_count = graph.vertices() - 2;
        crate::with_tiered_game!(&game, g => {
            let size = g.size();
            if let Some(why) = tiered::unsupported(g) {
                return Err(OracleError::Unsupported {
                    spec,
                    reason: why.to_string(),
                }
                .into());
            }
            let words = cells::zeroed_words(cells::words_for(size));
            let table = Cells::new(&words, size);
            tiered::solve(g, &table, &SolveOptions::default())?;
            let map = self.index_map(g, cell_count)?;
            let mut notes = Notes::default();
            let other = (splitmix::hash(size ^ (a as u64) << 32 ^ b as u64)
                % vertex::codes(cell_count) as u64) as usize;
            check_texts(g, cell_count, &map, other, &mut notes)?;
            let flipped = match &self.opts.corrupt {
                Some(c) if (c.graph6.as_str(), c.a, c.b) == (graph6, a, b) => {
                    Some(flip(g, &c.position, |p| table.get(p))?)
                }
                _ => None,
            };
            let value = |p: u64| match flipped {
                Some((at, code)) if at == p => code,
                _ => table.get(p),
            };
            let positions = match &minimax {
                Some(m) => against_minimax(value, &map, m, &mut notes),
                None => 0,
            };
            let engine_positions = match checks.engines {
                true => against_counter(g, value, &mut notes),
                false => 0,
            };
            Ok(PairOutcome {
                a,
                b,
                adjacent: graph.has_edge(a, b),
                table_class: table_class(value, &map),
                minimax_class: minimax.as_ref().and_then(|m| m.class()),
                edge_class,
                positions,
                engine_positions,
                disagreements: notes.disagreements,
                examples: notes.examples,
            })
        }, _ => unreachable!("a shannon-vertex: game is a cell game"))
    }
}
