//! The kernel plan: which kernel solves a game, chosen in one place from the shape the game
//! declares and the build's options, and what that kernel keeps in memory.
//!
//! The engines are two ([`Engine`]: counter, tiered), the kernels five: the counter engine's
//! propagation, and four ways the tiered engine decides a tier ([`Kernel`]). A game declares its
//! [`Shape`] (any graph, general tiers, a plain board or a sliced board,
//! [`crate::game::Tiered::board_shape`]); [`choose`] turns it and the options into a kernel. The
//! tiered engine dispatches once on the choice as a value that carries its board
//! ([`TieredKernel`], [`super::tiered::solve_tiers`]), the memory estimate is
//! the kernel's ([`TieredKernel::memory`]), and the build's estimate and plan lines, `build --json`,
//! `bench` and the Python module's summary name it ([`Kernel::name`]).
//!
//! The invariant: every kernel that can solve a game writes the same cells (and, where it keeps
//! remoteness, the same remoteness), so the choice changes speed and memory, never a table.

use std::ops::Range;

use super::Engine;
use crate::game::shape::{BoardShape, PlainBoard, SlicedBoard};
use crate::game::{Game, Tiered};
use crate::games::AnyGame;
use crate::with_tiered_game;

/// What a game declares about itself, as far as the choice of a kernel goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Positions and moves only (maybe cycles), or tiers the tiered engine cannot follow.
    Graph,
    /// An acyclic game with tiers ([`Tiered`]) of no shape the fast kernels know.
    Tiers,
    /// Tiers, and a plain board ([`crate::game::shape::PlainBoard`]).
    PlainBoard,
    /// Tiers, and the sliced index of a claiming game ([`crate::game::shape::SlicedBoard`]).
    SlicedBoard,
}

impl Shape {
    /// The shape of a game with tiers.
    pub fn of_tiered<G: Tiered>(game: &G) -> Shape {
        if unsupported(game).is_some() {
            return Shape::Graph;
        }
        match game.board_shape() {
            None => Shape::Tiers,
            Some(BoardShape::Plain(_)) => Shape::PlainBoard,
            Some(BoardShape::Sliced(_)) => Shape::SlicedBoard,
        }
    }

    /// The shape of any game.
    pub fn of(game: &AnyGame) -> Shape {
        with_tiered_game!(game, g => Shape::of_tiered(g), _ => Shape::Graph)
    }
}

/// A name that is no kernel; its message lists the kernels.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown kernel '{}': the kernels are {}",
    crate::base::error::cut(name),
    Kernel::ALL.map(Kernel::name).join(", ")
)]
pub struct UnknownKernel {
    pub name: String,
}

/// The kernel that decides a game's positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// The counter engine ([`super::counter`]): any game, cycles and draws included.
    Counter,
    /// The tiered engine's generic kernel ([`super::tiered`]): a position at a time through the
    /// game's tier walk, with or without remoteness, fresh or resumed.
    PerPosition,
    /// A plain board, values only, from scratch: 64 configurations a word operation
    /// (`super::kernels::bitplane`).
    BitPlane,
    /// A plain board with remoteness, from scratch: children by arithmetic
    /// (`super::kernels::plain_remoteness`).
    PlainRemoteness,
    /// A sliced board, values only, fresh or resumed: a row at a time (`super::kernels::sliced_rows`).
    SlicedRows,
    /// A sliced board with remoteness, fresh or resumed: a row at a time, remoteness in half a
    /// byte a position (`super::kernels::sliced_remoteness`).
    SlicedRemoteness,
    /// A sliced board, values only, out of core: a row at a time as [`Kernel::SlicedRows`],
    /// reading one key tier's loss bits and writing the table compressed as it goes
    /// (`super::kernels::sliced_frames`).
    SlicedFrames,
}

impl Kernel {
    pub const ALL: [Kernel; 7] = [
        Kernel::Counter,
        Kernel::PerPosition,
        Kernel::BitPlane,
        Kernel::PlainRemoteness,
        Kernel::SlicedRows,
        Kernel::SlicedRemoteness,
        Kernel::SlicedFrames,
    ];

    /// The kernel's stable short name, as plan lines and summaries print it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Counter => "counter",
            Kernel::PerPosition => "per-position",
            Kernel::BitPlane => "bitplane",
            Kernel::PlainRemoteness => "plain-remoteness",
            Kernel::SlicedRows => "sliced-rows",
            Kernel::SlicedRemoteness => "sliced-remoteness",
            Kernel::SlicedFrames => "sliced-frames",
        }
    }

    /// The engine the kernel belongs to.
    pub fn engine(self) -> Engine {
        match self {
            Kernel::Counter => Engine::Counter,
            _ => Engine::Tiered,
        }
    }

    /// The kernel named `name` ([`Kernel::name`]).
    pub fn parse(name: &str) -> Result<Kernel, UnknownKernel> {
        Kernel::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| UnknownKernel {
                name: name.to_string(),
            })
    }

    /// What the kernel solves, in words, as a refusal names it.
    pub fn solves(self) -> &'static str {
        match self {
            Kernel::Counter => "any game",
            Kernel::PerPosition => "a game with tiers (acyclic, at most 127 tiers)",
            Kernel::BitPlane => {
                "a plain board (every configuration of a cell game, e.g. hex:3), values only, \
                 from scratch"
            }
            Kernel::PlainRemoteness => {
                "a plain board (every configuration of a cell game, e.g. hex:3) with \
                 --remoteness, from scratch"
            }
            Kernel::SlicedRows => {
                "a sliced board (a cell game with ',sliced' or ',sym'), values only"
            }
            Kernel::SlicedRemoteness => {
                "a sliced board (a cell game with ',sliced' or ',sym') with --remoteness"
            }
            Kernel::SlicedFrames => {
                "a sliced board (a cell game with ',sliced' or ',sym'), values only, written \
                 compressed as it is solved"
            }
        }
    }

    /// Whether the kernel solves a game of shape `shape`, with remoteness or not, in a run that
    /// starts from nothing (`fresh`) or below a checkpoint. Every kernel that does writes the
    /// same table; [`choose`] picks the fastest.
    pub fn applies(self, shape: Shape, remoteness: bool, fresh: bool) -> bool {
        match self {
            Kernel::Counter => true,
            Kernel::PerPosition => shape != Shape::Graph,
            Kernel::BitPlane => shape == Shape::PlainBoard && !remoteness && fresh,
            Kernel::PlainRemoteness => shape == Shape::PlainBoard && remoteness && fresh,
            Kernel::SlicedRows => shape == Shape::SlicedBoard && !remoteness,
            Kernel::SlicedRemoteness => shape == Shape::SlicedBoard && remoteness,
            Kernel::SlicedFrames => shape == Shape::SlicedBoard && !remoteness,
        }
    }
}

/// Every kernel that solves a game of shape `shape` ([`Kernel::applies`]), in
/// [`Kernel::ALL`]'s order.
pub fn applicable(shape: Shape, remoteness: bool, fresh: bool) -> Vec<Kernel> {
    Kernel::ALL
        .into_iter()
        .filter(|k| k.applies(shape, remoteness, fresh))
        .collect()
}

/// Refuses `kernel` for `game` (with remoteness or not, from scratch or resumed) where it does
/// not apply, naming what it solves and the kernels that apply.
pub fn check_kernel(
    game: &AnyGame,
    kernel: Kernel,
    remoteness: bool,
    fresh: bool,
) -> crate::Result<()> {
    let shape = Shape::of(game);
    if kernel.applies(shape, remoteness, fresh) {
        return Ok(());
    }
    let names: Vec<&str> = applicable(shape, remoteness, fresh)
        .iter()
        .map(|k| k.name())
        .collect();
    let build = match (remoteness, fresh) {
        (true, true) => "a build with --remoteness",
        (false, true) => "a build without --remoteness",
        (true, false) => "a resumed build with --remoteness",
        (false, false) => "a resumed build without --remoteness",
    };
    Err(crate::Error::Spec {
        spec: game.spec(),
        msg: format!(
            "--kernel {kernel} does not apply: it solves {}; for {build} of this game the \
             kernels that apply are {}",
            kernel.solves(),
            names.join(", ")
        ),
    })
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Kernel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The kernel that solves a game of shape `shape` with `engine`, with remoteness or not, in a
/// run that starts from nothing (`fresh`) or below a checkpoint. `None` when the engine cannot
/// solve the shape (the tiered engine a graph).
pub fn choose(shape: Shape, engine: Engine, remoteness: bool, fresh: bool) -> Option<Kernel> {
    Some(match (engine, shape) {
        (Engine::Counter, _) => Kernel::Counter,
        (Engine::Tiered, Shape::Graph) => return None,
        // A fresh solve of a plain board goes many positions at a time (or by arithmetic with
        // remoteness); a resumed one reads its finished tiers from the cells (and the
        // checkpoint's remoteness), which the per-position kernel does.
        (Engine::Tiered, Shape::PlainBoard) if fresh && remoteness => Kernel::PlainRemoteness,
        (Engine::Tiered, Shape::PlainBoard) if fresh => Kernel::BitPlane,
        // A sliced board goes a row at a time, fresh or resumed, with remoteness or without.
        (Engine::Tiered, Shape::SlicedBoard) if remoteness => Kernel::SlicedRemoteness,
        (Engine::Tiered, Shape::SlicedBoard) => Kernel::SlicedRows,
        (Engine::Tiered, _) => Kernel::PerPosition,
    })
}

/// [`choose`] for `game`.
pub fn kernel(game: &AnyGame, engine: Engine, remoteness: bool, fresh: bool) -> Option<Kernel> {
    choose(Shape::of(game), engine, remoteness, fresh)
}

/// A kernel of the tiered engine as a value: the choice ([`choose`]) with the board it solves,
/// so the one dispatch ([`super::tiered::solve_tiers`]) takes the board from here. It knows
/// what it keeps in memory ([`TieredKernel::memory`]) and where it keeps remoteness
/// ([`TieredKernel::remoteness`]), from which a build sizes its work files.
#[derive(Clone, Copy)]
pub enum TieredKernel<'g> {
    /// [`Kernel::PerPosition`].
    PerPosition,
    /// [`Kernel::BitPlane`].
    BitPlane(PlainBoard<'g>),
    /// [`Kernel::PlainRemoteness`].
    PlainRemoteness(PlainBoard<'g>),
    /// [`Kernel::SlicedRows`].
    SlicedRows(SlicedBoard<'g>),
    /// [`Kernel::SlicedRemoteness`].
    SlicedRemoteness(SlicedBoard<'g>),
    /// [`Kernel::SlicedFrames`].
    SlicedFrames(SlicedBoard<'g>),
}

/// Where a kernel of the tiered engine keeps remoteness while it solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemStore {
    /// Nowhere: a values-only solve.
    None,
    /// A byte a position in memory, as the engine keeps it
    /// (`crate::base::remoteness::ENGINE_NONE`); the table's encoding is made at the end.
    EngineBytes,
    /// A nibble a position, relative to the value, written in place: in the build's work file
    /// ([`super::tiered::TierStores::nibbles`]), else in memory.
    Nibbles,
    /// A byte a position in memory as the engine keeps it, each block of positions handed to the
    /// build's stream ([`super::tiered::TierStores::stream`]) once final.
    Streamed,
}

impl<'g> TieredKernel<'g> {
    /// The kernel that solves `game` with the tiered engine, with remoteness or not, in a run
    /// that starts from nothing (`fresh`) or below a checkpoint; `None` when the tiered engine
    /// cannot solve it.
    pub fn of<G: Tiered>(game: &'g G, remoteness: bool, fresh: bool) -> Option<TieredKernel<'g>> {
        let kernel = choose(Shape::of_tiered(game), Engine::Tiered, remoteness, fresh)?;
        let chosen = TieredKernel::with(game, kernel);
        assert!(
            chosen.is_some(),
            "choose() gave {kernel} for the game's own shape"
        );
        chosen
    }

    /// `kernel` over `game`'s board; `None` when it is not a kernel of the tiered engine for
    /// the game's shape (whether it applies to a build is [`Kernel::applies`]).
    pub fn with<G: Tiered>(game: &'g G, kernel: Kernel) -> Option<TieredKernel<'g>> {
        if unsupported(game).is_some() {
            return None;
        }
        Some(match (kernel, game.board_shape()) {
            (Kernel::PerPosition, _) => TieredKernel::PerPosition,
            (Kernel::BitPlane, Some(BoardShape::Plain(b))) => TieredKernel::BitPlane(b),
            (Kernel::PlainRemoteness, Some(BoardShape::Plain(b))) => {
                TieredKernel::PlainRemoteness(b)
            }
            (Kernel::SlicedRows, Some(BoardShape::Sliced(b))) => TieredKernel::SlicedRows(b),
            (Kernel::SlicedRemoteness, Some(BoardShape::Sliced(b))) => {
                TieredKernel::SlicedRemoteness(b)
            }
            (Kernel::SlicedFrames, Some(BoardShape::Sliced(b))) => TieredKernel::SlicedFrames(b),
            _ => return None,
        })
    }

    /// The kernel's name ([`Kernel`]).
    pub fn kernel(&self) -> Kernel {
        match self {
            TieredKernel::PerPosition => Kernel::PerPosition,
            TieredKernel::BitPlane(_) => Kernel::BitPlane,
            TieredKernel::PlainRemoteness(_) => Kernel::PlainRemoteness,
            TieredKernel::SlicedRows(_) => Kernel::SlicedRows,
            TieredKernel::SlicedRemoteness(_) => Kernel::SlicedRemoteness,
            TieredKernel::SlicedFrames(_) => Kernel::SlicedFrames,
        }
    }

    /// Where the kernel keeps remoteness, in a solve with remoteness or not.
    pub fn remoteness(&self, remoteness: bool) -> RemStore {
        match self {
            TieredKernel::SlicedRemoteness(_) => RemStore::Nibbles,
            TieredKernel::PlainRemoteness(_) => RemStore::Streamed,
            TieredKernel::PerPosition if remoteness => RemStore::EngineBytes,
            _ => RemStore::None,
        }
    }

    /// Bytes the kernel keeps resident while it solves the tiers `solving` of `game`: the
    /// cells (`resident_cells`) and what the kernel keeps besides — a remoteness byte per
    /// index (per-position with remoteness, plain remoteness), the loss planes (bitplane),
    /// nothing (per-position values only; the row kernel's tables are counted with its
    /// cells), two key tiers' nibbles and the merged columns (the row kernel with remoteness).
    pub fn memory<G: Tiered>(&self, game: &G, solving: Range<u32>, remoteness: bool) -> u64 {
        let working = match self {
            // In place of the values kernel's cells and tables, counted below.
            TieredKernel::SlicedRemoteness(b) => {
                return super::kernels::sliced_remoteness::resident_bytes(b.index);
            }
            TieredKernel::SlicedRows(b) => {
                return super::kernels::sliced_rows::resident_bytes(b.index);
            }
            TieredKernel::SlicedFrames(b) => {
                return super::kernels::sliced_frames::resident_bytes(b.index);
            }
            TieredKernel::PerPosition if remoteness => game.size(),
            TieredKernel::PerPosition => 0,
            TieredKernel::PlainRemoteness(_) => game.size(),
            TieredKernel::BitPlane(b) => super::kernels::bitplane::memory_estimate(b.cells),
        };
        resident_cells(game, solving).saturating_add(working)
    }
}

/// Bytes the kernel `engine` would use needs for a whole build of `game` from scratch (without
/// the process's own, [`super::PROCESS_BYTES`]); the counter engine's for a game the tiered
/// engine cannot solve.
pub fn memory_estimate(engine: Engine, game: &AnyGame, remoteness: bool) -> u64 {
    let kernel = kernel(game, engine, remoteness, true).unwrap_or(Kernel::Counter);
    kernel_memory(kernel, game, remoteness)
}

/// Bytes the bit-plane kernel's loss planes take for a plain board of `cells` cells, for a
/// caller that sizes builds before it has their games (a sweep over many graphs).
pub fn plain_board_planes(cells: u32) -> u64 {
    super::kernels::bitplane::memory_estimate(cells)
}

/// Bytes `kernel` needs for a whole build of `game` from scratch (without the process's own);
/// the counter engine's where the kernel is not one of the tiered engine for the game.
pub fn kernel_memory(kernel: Kernel, game: &AnyGame, remoteness: bool) -> u64 {
    let counter = || crate::with_game!(game, g => super::memory_estimate(g.size(), g.max_children(), remoteness));
    if kernel == Kernel::Counter {
        return counter();
    }
    with_tiered_game!(
        game,
        g => match TieredKernel::with(g, kernel) {
            Some(k) => k.memory(g, 0..g.tier_count(), remoteness),
            None => counter(),
        },
        _ => counter()
    )
}

/// The most tiers the engine's remoteness byte can follow (remoteness is below the number of
/// tiers, and `2 * (remoteness + 1) + 1` must fit a byte).
pub const MAX_TIERS: u32 = 127;

/// Why the tiered engine cannot solve a game, or `None` when it can.
pub fn unsupported<G: Tiered>(game: &G) -> Option<String> {
    match game.tier_count() {
        0 if game.size() > 0 => Some(format!("{} lists no tiers", game.spec())),
        n if n > MAX_TIERS => Some(format!(
            "{} has {n} tiers, more than the tiered engine follows ({MAX_TIERS})",
            game.spec()
        )),
        _ => None,
    }
}

/// The number of positions of tier `t` where tiers are index ranges (0 past the last tier).
fn range_len<G: Tiered>(game: &G, t: u32) -> Option<u64> {
    if t >= game.tier_count() {
        return Some(0);
    }
    game.tier_range(t).map(|r| r.end - r.start)
}

/// Bytes of cells a solve of the tiers `solving` keeps resident: where tiers are index ranges,
/// those of a solved tier and its child tier at most (finished tiers live in the table's file,
/// which the kernel may write out); otherwise all of them. (The row kernels of a sliced board
/// count their own: [`TieredKernel::memory`].)
fn resident_cells<G: Tiered>(game: &G, solving: Range<u32>) -> u64 {
    if game.tier_range(0).is_none() {
        return game.size().div_ceil(4);
    }
    solving
        .map(|t| range_len(game, t).unwrap_or(0) + range_len(game, t + 1).unwrap_or(0))
        .max()
        .unwrap_or(0)
        .div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_follows_shape_and_options() {
        use Kernel::*;
        use Shape::*;
        let cases = [
            // (shape, engine, remoteness, fresh) -> kernel
            (Graph, Engine::Counter, false, true, Some(Counter)),
            (Graph, Engine::Tiered, false, true, None),
            (Tiers, Engine::Tiered, false, true, Some(PerPosition)),
            (Tiers, Engine::Tiered, true, false, Some(PerPosition)),
            (PlainBoard, Engine::Tiered, false, true, Some(BitPlane)),
            (PlainBoard, Engine::Tiered, false, false, Some(PerPosition)),
            (
                PlainBoard,
                Engine::Tiered,
                true,
                true,
                Some(PlainRemoteness),
            ),
            (PlainBoard, Engine::Tiered, true, false, Some(PerPosition)),
            (PlainBoard, Engine::Counter, true, true, Some(Counter)),
            (SlicedBoard, Engine::Tiered, false, true, Some(SlicedRows)),
            (SlicedBoard, Engine::Tiered, false, false, Some(SlicedRows)),
            (
                SlicedBoard,
                Engine::Tiered,
                true,
                true,
                Some(SlicedRemoteness),
            ),
            (
                SlicedBoard,
                Engine::Tiered,
                true,
                false,
                Some(SlicedRemoteness),
            ),
        ];
        for (shape, engine, rem, fresh, want) in cases {
            assert_eq!(
                choose(shape, engine, rem, fresh),
                want,
                "{shape:?} {engine:?} rem {rem} fresh {fresh}"
            );
            if let Some(k) = want {
                assert_eq!(k.engine(), engine);
            }
        }
    }

    /// The kernel [`choose`] picks always applies, and the tiered engine's kernels that apply
    /// to a shape are the ones [`TieredKernel::with`] can make for a game of it.
    #[test]
    fn the_chosen_kernel_applies_and_names_parse_back() {
        use Shape::*;
        for shape in [Graph, Tiers, PlainBoard, SlicedBoard] {
            for (rem, fresh) in [(false, true), (true, true), (false, false), (true, false)] {
                let all = applicable(shape, rem, fresh);
                assert!(all.contains(&Kernel::Counter), "{shape:?}");
                if let Some(k) = choose(shape, Engine::Tiered, rem, fresh) {
                    assert!(all.contains(&k), "{shape:?} rem {rem} fresh {fresh}: {k}");
                }
                assert_eq!(all.len() > 1, shape != Graph, "{shape:?}");
            }
        }
        for k in Kernel::ALL {
            assert_eq!(Kernel::parse(k.name()), Ok(k));
        }
        let e = Kernel::parse("fast").unwrap_err();
        assert_eq!(e.name, "fast");
        assert!(e.to_string().contains("sliced-rows"), "{e}");
        let game = AnyGame::open("hex:3,sym", u64::MAX).unwrap();
        let err = check_kernel(&game, Kernel::BitPlane, false, true).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("hex:3,sym") && text.contains("counter, per-position, sliced-rows"));
        crate::with_tiered_game!(&game, g => {
            for k in applicable(Shape::of(&game), false, true) {
                assert_eq!(TieredKernel::with(g, k).is_some(), k != Kernel::Counter, "{k}");
            }
        }, _ => unreachable!());
    }

    #[test]
    fn names_are_distinct_and_serialised_as_such() {
        let names: std::collections::HashSet<_> = Kernel::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), Kernel::ALL.len());
        for k in Kernel::ALL {
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::json!(k.name())
            );
        }
    }

    #[test]
    fn games_declare_their_shapes() {
        for (spec, shape) in [
            ("hex:3", Shape::PlainBoard),
            ("hex:3,start=L", Shape::Tiers),
            ("hex:3,start=L,sym", Shape::SlicedBoard),
            ("bridgit:2,start=R,sliced", Shape::SlicedBoard),
            (
                concat!(
                    "digraph:",
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../data/seed001.txt"
                ),
                Shape::Graph,
            ),
        ] {
            let game = AnyGame::open(spec, u64::MAX).unwrap();
            assert_eq!(Shape::of(&game), shape, "{spec}");
        }
    }
}
