//! Probing a table: a position's value and remoteness with those of every move, by index or by
//! text, one at a time or in batches that decode each compressed frame once; the order of moves
//! from best to worst ([`move_rank`]), the best move, and the principal line ([`Table::line`]).
//!
//! Invariant: every value here comes through [`Table::value`], so from checked bytes only.

use rayon::prelude::*;
use serde::Serialize;

use super::Table;
use crate::base::error::{Error, LookupError, Result};
use crate::base::grundy::Grundy;
use crate::game::{Annotations, Game, Move, Notation, PositionError, Rules, Value, table_rules};
use crate::with_game;

/// The answer for one position.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    pub position: String,
    pub index: u64,
    pub value: Value,
    /// Plies to the end under best play; `null` for a draw and in a table without remoteness.
    pub remoteness: Option<u32>,
    /// Whether the game is over at this position (no move is left).
    pub game_over: bool,
    /// What the game adds beyond the stored value ([`Notation::annotate`]), flattened into the JSON.
    #[serde(flatten)]
    pub extra: Annotations,
    /// Every move, in the game's order ([`Probe::sort_moves_best_first`] puts the best first).
    pub moves: Vec<ProbeMove>,
    /// The best move for the player to move ([`move_rank`]; the first in the game's order among
    /// equals), or none where the game is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<ProbeMove>,
    /// The principal line, where asked for ([`Table::line`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<Vec<LineStep>>,
    /// Set when the table holds the asked position as a symmetric image: `position` and the
    /// moves are that image's (same value, same values of the moves up to the symmetry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_image: Option<String>,
    /// The generalized Sprague-Grundy value, where the table holds them (flattened: `grundy`,
    /// and `reach` for an infinite one).
    #[serde(flatten)]
    pub grundy: Option<Grundy>,
}

/// One move from a probed position, from both points of view (docs/NOTATION.md, "Values of
/// moves"): its `result` and `plies` for the player making it, and the `value` and `remoteness`
/// of the position it makes for that position's own mover (the opponent).
#[derive(Clone, Debug, Serialize)]
pub struct ProbeMove {
    /// The move's name for people, in the game's notation.
    #[serde(rename = "move")]
    pub name: String,
    /// The move's machine id ([`Notation::move_id`]; where the game has none, the move's place
    /// in the game's order of moves, from 0).
    pub id: u64,
    /// What the move gives the player making it: the flip of the child's `value`.
    pub result: Value,
    /// Plies to the end of the game with this move, counting it: the child's remoteness plus
    /// one; `null` where the child has no remoteness (a draw, a table without remoteness).
    pub plies: Option<u32>,
    /// Whether the move ends the game (the child is finished).
    pub ends_game: bool,
    /// The position the move makes.
    pub position: String,
    /// The child's index (not in the JSON: `position` names it).
    #[serde(skip)]
    pub child: u64,
    /// The child's value for its own mover (the opponent of the prober).
    pub value: Value,
    /// The child's remoteness for its own mover; `null` where it has none.
    pub remoteness: Option<u32>,
    /// The game's annotations of the child position, flattened into the JSON.
    #[serde(flatten)]
    pub extra: Annotations,
    /// The child's generalized Sprague-Grundy value, where the table holds them.
    #[serde(flatten)]
    pub grundy: Option<Grundy>,
}

/// The answer for a sum of tokens (`4+9+11`) on a table with generalized Sprague-Grundy values
/// ([`Table::probe_sum`]; docs/SUMS.md).
#[derive(Clone, Debug, Serialize)]
pub struct SumProbe {
    /// The tokens' positions joined by `+`, each in the game's canonical text.
    pub sum: String,
    pub tokens: Vec<SumToken>,
    /// The outcome for the player to move: `win` (the first player wins), `loss` (the second
    /// player wins) or `draw`.
    pub value: Value,
    /// The same in words: `first player wins`, `second player wins` or `draw`.
    pub outcome: &'static str,
    /// The sum's own value by the sum rule, flattened (`grundy`, and `reach` when infinite).
    #[serde(flatten)]
    pub grundy: Grundy,
    /// Every winning move, when the sum is won (tokens on the same vertex move alike: the
    /// first of them is named).
    pub moves: Vec<SumMove>,
}

/// One token of a sum.
#[derive(Clone, Debug, Serialize)]
pub struct SumToken {
    pub position: String,
    pub index: u64,
    #[serde(flatten)]
    pub grundy: Grundy,
}

/// A winning move of a sum: which token moves, and where. Its answer (JSON, Python) names only
/// what changes — the token's place, the move, the token's old and new position — since the
/// sum it leaves is the answer's `sum` with one token replaced: a sum of a thousand tokens
/// would otherwise be repeated in each of its winning moves.
#[derive(Clone, Debug, Serialize)]
pub struct SumMove {
    /// The token that moves: its place in `tokens`, from 0.
    pub token: usize,
    /// The move's name in the game's notation.
    #[serde(rename = "move")]
    pub name: String,
    /// Where the token was and where it goes.
    pub from: String,
    pub to: String,
    /// The sum after the move (lost for the opponent, who moves next), for the command line's
    /// text; not in the answer's JSON (above).
    #[serde(skip)]
    pub sum: String,
}

/// One ply of a principal line ([`Table::line`]): the move, its result and plies for the player
/// making it (as a [`ProbeMove`]'s), the position it leads to, and that position's value and
/// remoteness for its own mover.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineStep {
    #[serde(rename = "move")]
    pub name: String,
    pub result: Value,
    pub plies: u32,
    pub position: String,
    pub index: u64,
    pub value: Value,
    pub remoteness: u32,
}

/// How good a move is for the player making it, from the value and remoteness of the child for
/// the child's own mover (the opponent): lower is better. Moves to a lost child come first, the
/// quickest win first; then moves to drawn children; then moves to won children, the slowest
/// loss first. Without remoteness, moves rank by value alone. This is the one definition of
/// "best first" that `probe`, the HTTP API and the Python module use (docs/NOTATION.md, "Moves,
/// best first"); a sort by it must be stable, so that equals keep the game's order.
pub fn move_rank(child: Value, remoteness: Option<u32>) -> (u8, i64) {
    let r = i64::from(remoteness.unwrap_or(0));
    match child {
        Value::Loss => (0, r),
        Value::Draw => (1, 0),
        Value::Win => (2, -r),
    }
}

impl ProbeMove {
    /// The move to `child`, named `name`, with the child's `value` and `remoteness` for its own
    /// mover; the mover's `result` and `plies` follow from them. `id` is the game's machine id
    /// of the move, or its place in the game's order.
    pub fn new(
        name: String,
        id: u64,
        child: u64,
        position: String,
        (value, remoteness): (Value, Option<u32>),
        ends_game: bool,
    ) -> ProbeMove {
        ProbeMove {
            name,
            id,
            result: value.flip(),
            plies: remoteness.map(|r| r + 1),
            ends_game,
            position,
            child,
            value,
            remoteness,
            extra: Annotations::default(),
            grundy: None,
        }
    }

    /// [`move_rank`] of this move.
    pub fn rank(&self) -> (u8, i64) {
        move_rank(self.value, self.remoteness)
    }
}

impl Probe {
    /// Orders the moves best first for the player to move ([`move_rank`]); moves of equal worth
    /// keep the game's order.
    pub fn sort_moves_best_first(&mut self) {
        self.moves.sort_by_key(ProbeMove::rank);
    }
}

/// The best of `moves` by [`move_rank`], the first among equals.
fn best_of(moves: &[ProbeMove]) -> Option<ProbeMove> {
    moves.iter().min_by_key(|m| m.rank()).cloned()
}

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// Looks a position up by its text.
    pub fn probe_text(&self, text: &str) -> Result<Probe> {
        let (pos, _) = self.locate(text)?;
        let mut p = self.probe(pos)?;
        p.stored_image = with_game!(self.game(), g => g.stored_image(text, pos));
        Ok(p)
    }

    /// [`Table::probe_text`] answered on the board as asked. Where the index holds a symmetric
    /// image of it (a `,sym` table holds one board of each symmetry class), the position, every
    /// move's name and the position it makes are the asked board's, in its own move order
    /// ([`Notation::asked_board`]); the values and remoteness are the image's, which the symmetry
    /// keeps, and `stored_image` names the image. Elsewhere the same as `probe_text`.
    pub fn probe_as_asked(&self, text: &str) -> Result<Probe> {
        let (pos, _) = self.locate(text)?;
        let mut p = self.probe(pos)?;
        let Some(asked) = with_game!(self.game(), g => g.asked_board(text, pos)) else {
            return Ok(p);
        };
        let mut stored: std::collections::HashMap<String, ProbeMove> =
            p.moves.drain(..).map(|m| (m.name.clone(), m)).collect();
        for a in asked.moves {
            let m = stored.remove(&a.stored).ok_or_else(|| {
                Error::table(
                    self.path(),
                    format!(
                        "the stored image of '{}' has no move {} (the symmetry maps move {} onto it)",
                        crate::base::error::cut(text),
                        a.stored,
                        a.name
                    ),
                )
            })?;
            let id = with_game!(self.game(), g => g.move_id(&a.name)).unwrap_or(m.id);
            p.moves.push(ProbeMove {
                name: a.name,
                position: a.position,
                id,
                ..m
            });
        }
        p.stored_image = Some(std::mem::replace(&mut p.position, asked.position));
        Ok(p)
    }

    /// The index and value of a position text. A text that does not parse, or names an index
    /// the game never uses (a board that can never arise), is a [`Error::Position`].
    pub fn locate(&self, text: &str) -> Result<(u64, Value)> {
        let pos = with_game!(self.game(), g => g.parse_position(text))?;
        match self.value(pos)? {
            Some(v) => Ok((pos, v)),
            None => Err(self.not_a_position(text)),
        }
    }

    fn not_a_position(&self, text: &str) -> Error {
        Error::Position(crate::game::PositionError::new(
            text,
            format!(
                "not a position of {} (it can never arise)",
                self.header().spec
            ),
        ))
    }

    /// Values of many position texts at batch speed: parsed in parallel, then looked up as
    /// [`Table::values`] does. Each answer is the value or why that text has none.
    pub fn values_of_texts<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Result<Value>> {
        let parsed: Vec<Result<u64, crate::game::PositionError>> = texts
            .par_iter()
            .with_min_len(1 << 12)
            .map(|t| with_game!(self.game(), g => g.parse_position(t.as_ref())))
            .collect();
        // A text that did not parse looks up index 0 in its place; its own error wins.
        let indices: Vec<u64> = parsed.iter().map(|r| *r.as_ref().unwrap_or(&0)).collect();
        let values = self.values(&indices);
        parsed
            .into_iter()
            .zip(values)
            .zip(texts)
            .map(|((p, v), t)| {
                p?;
                v?.ok_or_else(|| self.not_a_position(t.as_ref()))
            })
            .collect()
    }

    /// Looks a position up by index, with the value of every move.
    pub fn probe(&self, pos: u64) -> Result<Probe> {
        let (value, remoteness) = self.value_and_remoteness(pos)?;
        let value = value.ok_or_else(|| {
            Error::table(
                self.path(),
                format!("index {pos} holds no position (unused in this game)"),
            )
        })?;
        let stored = |i: u64| self.value(i);
        with_game!(self.game(), g => {
            let mut moves = Vec::new();
            for (place, m) in g.moves(pos).into_iter().enumerate() {
                // Value and remoteness in one lookup: a child a one-mover table leaves out is
                // searched once, not once for each.
                let (v, r) = self.value_and_remoteness(m.child)?;
                let v = v.ok_or_else(|| {
                    Error::table(self.path(), format!("move {} leads to an unused index", m.name))
                })?;
                let id = g.move_id(&m.name).unwrap_or(place as u64);
                let ends = self.game_over(m.child);
                let position = g.child_text(pos, &m);
                let child = (v, r);
                let mut pm = ProbeMove::new(m.name, id, m.child, position, child, ends);
                pm.extra = g.annotate(m.child, &stored)?;
                pm.grundy = self.grundy_if_held(m.child)?;
                moves.push(pm);
            }
            Ok(Probe {
                position: g.position_text(pos),
                index: pos,
                value,
                remoteness,
                game_over: self.game_over(pos),
                extra: g.annotate(pos, &stored)?,
                best: best_of(&moves),
                moves,
                line: None,
                stored_image: None,
                grundy: self.grundy_if_held(pos)?,
            })
        })
    }

    /// Whether the game is over at `pos` by the rules: finished, or open with no move left
    /// (which loses) — the positions [`table_rules`] knows without a search (none, for a game
    /// whose tables store every position).
    pub fn game_over(&self, pos: u64) -> bool {
        matches!(
            with_game!(self.game(), g => table_rules(g, pos)),
            Rules::Known(..)
        )
    }

    /// The principal line from `pos`: the best move ([`move_rank`]) ply after ply to the end of
    /// the game, the winner taking the quickest win and the loser the slowest loss, each step
    /// with the position it reaches and that position's value and remoteness. Along it the
    /// remoteness falls by one a ply to 0, a finished position; a position already finished
    /// has an empty line. A table without remoteness, and a drawn position (best play never
    /// ends), are [`Error::Lookup`] errors that say so; a step whose remoteness does not fall by
    /// one is a damaged table.
    pub fn line(&self, pos: u64) -> Result<Vec<LineStep>> {
        let text = |p: u64| with_game!(self.game(), g => g.position_text(p));
        if !self.has_remoteness() {
            return Err(LookupError::NoRemoteness {
                path: self.path().display().to_string(),
                position: Some(text(pos)),
            }
            .into());
        }
        let (value, remoteness) = self.value_and_remoteness(pos)?;
        let value = value.ok_or_else(|| self.not_a_position(&text(pos)))?;
        let Some(mut remoteness) = remoteness else {
            if value == Value::Draw {
                return Err(LookupError::DrawHasNoLine {
                    position: text(pos),
                }
                .into());
            }
            return Err(Error::table(
                self.path(),
                format!("position '{}' is decided but has no remoteness", text(pos)),
            ));
        };
        let mut steps = Vec::with_capacity(remoteness as usize);
        let mut at = pos;
        let mut mover = value;
        while remoteness > 0 {
            // The best move so far: its rank, the move, the child's value and remoteness.
            type Candidate = ((u8, i64), Move, Value, Option<u32>);
            let mut best: Option<Candidate> = None;
            for m in with_game!(self.game(), g => g.moves(at)) {
                let (v, r) = self.value_and_remoteness(m.child)?;
                let v = v.ok_or_else(|| {
                    Error::table(
                        self.path(),
                        format!("move {} leads to an unused index", m.name),
                    )
                })?;
                let rank = move_rank(v, r);
                if best.as_ref().is_none_or(|b| rank < b.0) {
                    best = Some((rank, m, v, r));
                }
            }
            let damaged = |why: &str| {
                Error::table(
                    self.path(),
                    format!(
                        "along the principal line from '{}', at '{}' (remoteness {remoteness}): \
                         {why}; the table is damaged",
                        text(pos),
                        text(at)
                    ),
                )
            };
            let Some((_, m, v, r)) = best else {
                return Err(damaged("no move leads on"));
            };
            if r != Some(remoteness - 1) || v != mover.flip() {
                return Err(damaged(
                    "the best move does not lead to the other value with one less remoteness",
                ));
            }
            steps.push(LineStep {
                position: with_game!(self.game(), g => g.position_text(m.child)),
                name: m.name,
                result: v.flip(),
                plies: remoteness,
                index: m.child,
                value: v,
                remoteness: remoteness - 1,
            });
            at = m.child;
            mover = v;
            remoteness -= 1;
        }
        Ok(steps)
    }

    /// The generalized Sprague-Grundy value of a position where the table holds them.
    fn grundy_if_held(&self, pos: u64) -> Result<Option<Grundy>> {
        if self.has_grundy() {
            self.grundy(pos)
        } else {
            Ok(None)
        }
    }

    /// Whether `text` is to be read as a sum of tokens rather than one position: it holds a
    /// `+` and the table's game is impartial (no other game's notation has a `+`).
    pub fn is_sum_text(&self, text: &str) -> bool {
        text.contains('+') && with_game!(self.game(), g => g.impartial())
    }

    /// Answers a sum of tokens (`4+9+11`: position texts joined by `+`) from the tokens'
    /// generalized Sprague-Grundy values: its outcome for the player to move and every winning
    /// move (docs/SUMS.md). A table without the values, a malformed sum and a token that is no
    /// position are errors that say which.
    pub fn probe_sum(&self, text: &str) -> Result<SumProbe> {
        if !self.has_grundy() {
            return Err(self.no_grundy());
        }
        let bad = |reason: String| Error::Position(PositionError::new(text, reason));
        let pieces =
            crate::base::grundy::split_sum(text).map_err(|r| bad(format!("a sum: {r}")))?;
        let mut tokens = Vec::with_capacity(pieces.len());
        let mut values = Vec::with_capacity(pieces.len());
        for (k, piece) in pieces.iter().enumerate() {
            let token = |reason: &str| bad(format!("token {} of the sum: {reason}", k + 1));
            let pos = with_game!(self.game(), g => g.parse_position(piece)).map_err(|e| {
                token(&format!(
                    "'{}': {}",
                    crate::base::error::cut(piece),
                    e.reason
                ))
            })?;
            let value = self.grundy(pos)?.ok_or_else(|| {
                token(&format!(
                    "'{}' is not a position of {}",
                    crate::base::error::cut(piece),
                    self.header().spec
                ))
            })?;
            tokens.push(pos);
            values.push(value);
        }
        let grundy = crate::base::grundy::sum(&values);
        let text_of = |p: u64| with_game!(self.game(), g => g.position_text(p));
        let texts: Vec<String> = tokens.iter().map(|&p| text_of(p)).collect();
        let winning = crate::base::grundy::winning_moves(&tokens, &values, |v| {
            let moves = with_game!(self.game(), g => g.moves(v));
            moves
                .into_iter()
                .map(|m| {
                    let value = self.grundy(m.child)?.ok_or_else(|| {
                        Error::table(
                            self.path(),
                            format!("move {} leads to an unused index", m.name),
                        )
                    })?;
                    Ok((m.child, value))
                })
                .collect::<Result<Vec<_>>>()
        })?;
        let moves = winning
            .into_iter()
            .map(|(i, child)| {
                let name = with_game!(self.game(), g => g.moves(tokens[i]))
                    .into_iter()
                    .find(|m| m.child == child)
                    .map_or_else(|| text_of(child), |m| m.name);
                let mut after = texts.clone();
                after[i] = text_of(child);
                SumMove {
                    token: i,
                    name,
                    from: texts[i].clone(),
                    to: after[i].clone(),
                    sum: after.join("+"),
                }
            })
            .collect();
        Ok(SumProbe {
            sum: texts.join("+"),
            tokens: tokens
                .iter()
                .zip(&values)
                .zip(&texts)
                .map(|((&index, g), t)| SumToken {
                    position: t.clone(),
                    index,
                    grundy: g.clone(),
                })
                .collect(),
            value: grundy.value(),
            outcome: match grundy.value() {
                Value::Win => "first player wins",
                Value::Loss => "second player wins",
                Value::Draw => "draw",
            },
            grundy,
            moves,
        })
    }

    /// Probes many position texts: positions are parsed, then answered in parallel with the
    /// frames each needs decoded once for the batch.
    pub fn probe_batch(&self, texts: &[String]) -> Vec<Result<Probe>> {
        let parsed: Vec<std::result::Result<u64, PositionError>> = texts
            .par_iter()
            .map(|t| with_game!(self.game(), g => g.parse_position(t)))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_unstable_by_key(|&i| parsed[i].as_ref().map_or(0, |&p| p));
        let mut answers: Vec<(usize, Result<Probe>)> = order
            .par_chunks(256)
            .flat_map_iter(|chunk| {
                chunk.iter().map(|&i| {
                    let r = match &parsed[i] {
                        Ok(p) => self.probe(*p).map(|mut probe| {
                            probe.stored_image =
                                with_game!(self.game(), g => g.stored_image(&texts[i], *p));
                            probe
                        }),
                        Err(e) => Err(Error::Position(e.clone())),
                    };
                    (i, r)
                })
            })
            .collect();
        answers.sort_unstable_by_key(|(i, _)| *i);
        answers.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(name: &str, value: Value, remoteness: Option<u32>) -> ProbeMove {
        ProbeMove::new(name.into(), 0, 0, name.into(), (value, remoteness), false)
    }

    #[test]
    fn moves_sort_best_first_and_equals_keep_the_game_order() {
        use Value::*;
        let moves = vec![
            mv("lose-fast", Win, Some(1)),
            mv("draw-a", Draw, None),
            mv("win-slow", Loss, Some(6)),
            mv("lose-slow", Win, Some(7)),
            mv("win-fast", Loss, Some(2)),
            mv("draw-b", Draw, None),
            mv("win-fast-too", Loss, Some(2)),
        ];
        let mut sorted = moves.clone();
        sorted.sort_by_key(ProbeMove::rank);
        let names: Vec<&str> = sorted.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "win-fast",
                "win-fast-too",
                "win-slow",
                "draw-a",
                "draw-b",
                "lose-slow",
                "lose-fast"
            ]
        );
        assert_eq!(best_of(&moves).unwrap().name, "win-fast");
        assert!(best_of(&[]).is_none());
        // Without remoteness: by value alone, the game's order among equals.
        let plain = [
            mv("l1", Win, None),
            mv("d1", Draw, None),
            mv("w1", Loss, None),
            mv("w2", Loss, None),
        ];
        let mut sorted = plain.to_vec();
        sorted.sort_by_key(ProbeMove::rank);
        let names: Vec<&str> = sorted.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["w1", "w2", "d1", "l1"]);
    }
}
