//! The spanning-tree strategy's lines: Left plays it from the empty board against every reply
//! sequence of Right, and each position with Left to move is checked against the table.
//!
//! The invariant: every line is played to its end, and a line the strategy loses is a
//! counterexample.

use super::super::strategy::SpanningTreePlayer;
use super::figures::{Counterexample, SpanningTreeFigures};
use super::scan::{ClaimChecker, PositionAt};
use super::value_source::finished;
use crate::apps::error::{ResearchError, Result};
use crate::game::Value;
use crate::games::cell::{EMPTY, LEFT, Player, RIGHT};

/// Plays the spanning-tree strategy against every reply sequence, checking each position with
/// Left to move against the table.
pub(super) fn spanning_tree_lines(
    scan: &ClaimChecker<'_>,
    n: u32,
) -> Result<(SpanningTreeFigures, Option<Counterexample>)> {
    let mut player = SpanningTreePlayer::new(n).ok_or(ResearchError::NoSpanningTrees { n })?;
    let name = |c: u32| format!("{c}{}", scan.labels[c as usize]);
    // The tree holding the virtual edge has one real edge fewer; list it second.
    let mut trees = player.trees();
    if trees[0].len() < trees[1].len() {
        trees.swap(0, 1);
    }
    let trees = trees.map(|t| t.into_iter().map(name).collect());
    let first = player
        .first_move()
        .expect("the empty board has a free cell");
    let mut cells = vec![EMPTY; scan.labels.len()];
    let mut figures = SpanningTreeFigures {
        trees,
        first_move: name(first),
        left_to_move: 1,
        table_says_lost: u64::from(scan.value(&cells, Player::Left)? != Value::Win),
        ..SpanningTreeFigures::default()
    };
    cells[first as usize] = LEFT;
    let mut worst: Option<Counterexample> = None;
    walk(scan, &player, &mut cells, &mut figures, &mut worst)?;
    fn walk(
        scan: &ClaimChecker<'_>,
        player: &SpanningTreePlayer,
        cells: &mut Vec<u8>,
        fig: &mut SpanningTreeFigures,
        worst: &mut Option<Counterexample>,
    ) -> Result<()> {
        if finished(&scan.graphs, cells) {
            let v = scan.value(cells, Player::Right)?;
            fig.lines += 1;
            if v == Value::Win {
                // Right to move has won: a loss for the strategy.
                fig.losses += 1;
                let at = PositionAt {
                    value: v,
                    in_play: true,
                    cells,
                    mover: Player::Right,
                };
                let c = scan.counterexample(
                    "spanning-tree.loss".into(),
                    "the spanning-tree strategy lost this line".into(),
                    &at,
                    Vec::new(),
                    Vec::new(),
                )?;
                *worst = Some(c.smaller(worst.take()));
            }
            return Ok(());
        }
        for cut in 0..cells.len() {
            if cells[cut] != EMPTY {
                continue;
            }
            cells[cut] = RIGHT;
            let mut p = player.clone();
            let answer = p.respond(cut as u32);
            if let Some(a) = answer {
                if !finished(&scan.graphs, cells) {
                    fig.left_to_move += 1;
                    fig.table_says_lost +=
                        u64::from(scan.value(cells, Player::Left)? != Value::Win);
                }
                cells[a as usize] = LEFT;
            }
            walk(scan, &p, cells, fig, worst)?;
            if let Some(a) = answer {
                cells[a as usize] = EMPTY;
            }
            cells[cut] = EMPTY;
        }
        Ok(())
    }
    Ok((figures, worst))
}
