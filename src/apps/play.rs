//! Playing a cell game in the terminal against the computer: the table's perfect play (the
//! winner hurries, the loser delays, by remoteness) or, on Bridg-It, one of the research
//! strategies.
//!
//! The driver reads the human's moves line by line from any reader and writes the board after
//! every move to any writer, so a test can script a whole game. The invariant: every move made,
//! by either side, is one of `Notation::moves` of the current position — a strategy that proposes
//! anything else is reported, never played.

use std::io::{BufRead, Write};

use crate::Error;
use crate::apps::error::{AppError, PlayError, Result};
use crate::apps::research::ranking::{Variant, option_keys, top};
use crate::apps::research::{PlayerGraph, SpanningTreePlayer, optional_moves};
use crate::base::lines::{Line, MAX_LINE, read_capped};
use crate::game::{Game, Notation, Status, Value};
use crate::games::cell::{Board, CellGame, Layout, Player, picture};
use crate::table::Table;

/// How the computer chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Perfect play from the table.
    Table,
    /// Bridg-It, computer as Left from the empty board: the spanning-tree pairing strategy.
    SpanningTree,
    /// Bridg-It: the optional spanning-tree strategy (the table's move when not executable).
    Optional,
    /// Bridg-It: the first option of the ranking conjecture.
    Ranking(Variant),
}

impl Opponent {
    /// Reads `table`, `spanning-tree`, `optional`, `ranking` or `ranking-reversed`.
    pub fn parse(s: &str) -> Result<Opponent> {
        Ok(match s {
            "table" => Opponent::Table,
            "spanning-tree" => Opponent::SpanningTree,
            "optional" => Opponent::Optional,
            "ranking" => Opponent::Ranking(Variant::Stated),
            "ranking-reversed" => Opponent::Ranking(Variant::Reversed),
            _ => {
                return Err(PlayError::UnknownOpponent {
                    name: s.to_string(),
                }
                .into());
            }
        })
    }
}

/// What the computer needs to remember between its moves.
enum Brain {
    Table,
    SpanningTree {
        player: SpanningTreePlayer,
        /// Right's cells already answered.
        seen: Vec<bool>,
        started: bool,
    },
    Optional(PlayerGraph),
    Ranking(PlayerGraph, Variant),
}

/// A game in progress.
pub struct Match<'a> {
    table: &'a Table,
    game: &'a CellGame,
    pos: u64,
    human: Player,
    brain: Brain,
    style: picture::Style,
}

impl<'a> Match<'a> {
    /// A game on `table`'s cell game from `start` (default: the empty board with Left to move),
    /// the human playing `human`.
    pub fn new(
        table: &'a Table,
        human: Player,
        opponent: Opponent,
        start: Option<&str>,
        style: picture::Style,
    ) -> Result<Match<'a>> {
        let Some(game) = table.game().cell_game() else {
            return Err(PlayError::NotCellGame {
                spec: table.game().spec(),
            }
            .into());
        };
        let empty: String = std::iter::repeat_n('.', game.cells() as usize).collect();
        let pos = game.parse_position(start.unwrap_or(&empty))?;
        let bridgit = match game.layout() {
            Layout::Board(Board::Bridgit(n)) => Some(*n),
            _ => None,
        };
        let computer = human.other();
        let need_bridgit =
            |opponent: &'static str| bridgit.ok_or(PlayError::BridgitOnly { opponent });
        let brain = match opponent {
            Opponent::Table => Brain::Table,
            Opponent::SpanningTree => {
                let n = need_bridgit("spanning-tree")?;
                if computer != Player::Left || start.is_some_and(|s| s.trim() != empty) {
                    return Err(PlayError::SpanningTreeStart.into());
                }
                Brain::SpanningTree {
                    player: SpanningTreePlayer::new(n).ok_or(PlayError::NoSpanningTrees { n })?,
                    seen: vec![false; game.cells() as usize],
                    started: false,
                }
            }
            Opponent::Optional => {
                Brain::Optional(PlayerGraph::bridgit(need_bridgit("optional")?, computer))
            }
            Opponent::Ranking(v) => {
                Brain::Ranking(PlayerGraph::bridgit(need_bridgit("ranking")?, computer), v)
            }
        };
        Ok(Match {
            table,
            game,
            pos,
            human,
            brain,
            style,
        })
    }

    /// The winner, once the game is over.
    pub fn winner(&self) -> Option<Player> {
        let mover = self.game.mover(self.pos);
        match self.game.status(self.pos) {
            Status::Over(Value::Win) => Some(mover),
            Status::Over(_) => Some(mover.other()),
            _ if self.game.moves(self.pos).is_empty() => Some(mover.other()),
            _ => None,
        }
    }

    fn draw(&self, out: &mut dyn Write) -> Result<()> {
        let pic = self
            .game
            .picture(self.pos, &[], self.style)
            .unwrap_or_default();
        write!(out, "{pic}").map_err(io)?;
        writeln!(out, "position {}", self.game.position_text(self.pos)).map_err(io)
    }

    /// The table's choice: the fastest win, else the slowest loss.
    fn table_move(&self) -> Result<u64> {
        let mut best: Option<((u8, i64), u64)> = None;
        for m in self.game.moves(self.pos) {
            let v = self.table.value(m.child)?;
            let r = self.table.remoteness(m.child)?.unwrap_or(0) as i64;
            let score = match v {
                Some(Value::Loss) => (2, -r),
                Some(Value::Draw) => (1, 0),
                _ => (0, r),
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, m.child));
            }
        }
        best.map(|(_, c)| c)
            .ok_or(AppError::Play(PlayError::NoMoveLeft))
    }

    /// The child where the mover claims `cell`.
    fn child_claiming(&self, cell: u32) -> Option<u64> {
        self.game
            .moves(self.pos)
            .into_iter()
            .find(|m| self.game.claimed_cell(self.pos, m.child) == Some(cell))
            .map(|m| m.child)
    }

    /// The computer's move, and a note when its strategy had nothing to say.
    fn computer_move(&mut self) -> Result<(u64, Option<String>)> {
        let states = self.game.states(self.pos);
        let cell = match &mut self.brain {
            Brain::Table => return Ok((self.table_move()?, None)),
            Brain::SpanningTree {
                player,
                seen,
                started,
            } => {
                let mut answer = None;
                if !*started {
                    *started = true;
                    answer = player.first_move();
                }
                for (i, &s) in states.iter().enumerate() {
                    if s == Player::Right.cell() && !seen[i] {
                        seen[i] = true;
                        answer = player.respond(i as u32);
                    }
                }
                answer
            }
            Brain::Optional(graph) => optional_moves(graph, &states).moves().first().copied(),
            Brain::Ranking(graph, v) => top(&option_keys(graph, &states), *v).first().copied(),
        };
        match cell.and_then(|c| self.child_claiming(c)) {
            Some(child) => Ok((child, None)),
            None => Ok((
                self.table_move()?,
                Some("the strategy has no move here; the table's move instead".into()),
            )),
        }
    }

    /// The values of the human's legal moves, for the `?` command.
    fn values(&self, out: &mut dyn Write) -> Result<()> {
        for m in self.game.moves(self.pos) {
            let v = self.table.value(m.child)?.map(Value::flip);
            let r = self.table.remoteness(m.child)?;
            writeln!(
                out,
                "  {:<10} {}{}",
                m.name,
                v.map_or("?", |v| v.as_str()),
                r.map_or(String::new(), |r| format!(
                    " (game ends in {} plies)",
                    r + 1
                ))
            )
            .map_err(io)?;
        }
        Ok(())
    }

    /// Reads a move: a cell number, its coordinates `(x,y)` / `x,y`, or the full move name.
    fn parse_move(&self, text: &str) -> Option<u64> {
        let t = text.trim();
        let moves = self.game.moves(self.pos);
        let coords = |s: &str| {
            let inner = s.trim().trim_start_matches('(').trim_end_matches(')');
            let (a, b) = inner.split_once(',')?;
            Some(format!("({},{})", a.trim(), b.trim()))
        };
        moves
            .iter()
            .find(|m| {
                m.name == t
                    || m.name.split('(').next() == Some(t)
                    || coords(t).is_some_and(|c| m.name.ends_with(&c))
            })
            .map(|m| m.child)
    }

    /// Plays to the end; returns the winner, or `None` when the human quit.
    pub fn run(&mut self, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<Option<Player>> {
        writeln!(
            out,
            "You play {}; moves are a cell number or coordinates like (1,3); '?' lists the \
             value of every move, 'quit' stops.",
            name(self.human)
        )
        .map_err(io)?;
        self.draw(out)?;
        // The human's lines, each read with a cap (a line of hundreds of MB is dropped, not
        // kept), and their count for the messages.
        let mut buf = Vec::new();
        let mut lines_read = 0u64;
        loop {
            if let Some(w) = self.winner() {
                writeln!(out, "{} wins.", name(w)).map_err(io)?;
                return Ok(Some(w));
            }
            let mover = self.game.mover(self.pos);
            let child = if mover == self.human {
                write!(out, "{} to move> ", name(mover)).map_err(io)?;
                out.flush().map_err(io)?;
                lines_read += 1;
                let n = lines_read;
                match read_capped(input, &mut buf, MAX_LINE).map_err(io)? {
                    Line::End => return Err(PlayError::InputEnded.into()),
                    Line::TooLong { bytes } => {
                        writeln!(
                            out,
                            "line {n}: {bytes} bytes, longer than any move; ignored"
                        )
                        .map_err(io)?;
                        continue;
                    }
                    Line::Text => {}
                }
                let Ok(line) = std::str::from_utf8(&buf) else {
                    writeln!(out, "line {n}: not UTF-8 text; ignored").map_err(io)?;
                    continue;
                };
                let line = line.trim();
                match line {
                    "" => continue,
                    "?" | "values" => {
                        self.values(out)?;
                        continue;
                    }
                    "quit" | "q" => {
                        writeln!(
                            out,
                            "stopped; position {}",
                            self.game.position_text(self.pos)
                        )
                        .map_err(io)?;
                        return Ok(None);
                    }
                    _ => {}
                }
                match self.parse_move(line) {
                    Some(c) => c,
                    None => {
                        writeln!(
                            out,
                            "'{}' is not a legal move here; '?' lists them",
                            crate::base::error::cut(line)
                        )
                        .map_err(io)?;
                        continue;
                    }
                }
            } else {
                let (c, note) = self.computer_move()?;
                if let Some(note) = note {
                    writeln!(out, "({note})").map_err(io)?;
                }
                c
            };
            let cell = self.game.claimed_cell(self.pos, child).unwrap_or(0);
            writeln!(
                out,
                "{} plays {cell}{}",
                name(mover),
                self.game.labels()[cell as usize]
            )
            .map_err(io)?;
            self.pos = child;
            self.draw(out)?;
        }
    }
}

fn name(p: Player) -> &'static str {
    match p {
        Player::Left => "Left (L)",
        Player::Right => "Right (R)",
    }
}

fn io(e: std::io::Error) -> AppError {
    Error::io("<terminal>", e).into()
}
