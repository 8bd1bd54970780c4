//! A family registered at run time, defined here as a crate outside retrodb would define it:
//! it opens through the registry and is solved through `with_game!` like a built-in. (Its
//! tables, built, probed, verified, compressed and served, are the tic-tac-toe crate's tests:
//! `games/` imports no table.)

use std::sync::atomic::AtomicU64;

use crate::base::cells::{self, Cells};
use crate::base::error::{Error, Result};
use crate::game::{Game, Move, Notation, Omissions, PositionError, Status, Value};
use crate::games::{self, AnyGame, Family, SpecInput};
use crate::solve::{self, SolveOptions};

/// `toy:N`: a heap of N tokens, a move takes one or two, and the player who cannot move loses;
/// the heaps lost for the player to move are the multiples of 3.
struct Toy(u64);

impl Family for Toy {
    const KINDS: &'static [(&'static str, &'static str)] = &[("toy", "a heap, e.g. 10")];
    fn open(spec: &SpecInput<'_>) -> Result<Toy> {
        spec.arg.parse().map(Toy).map_err(|_| Error::Spec {
            spec: spec.spec.into(),
            msg: "expected a heap".into(),
        })
    }
}

impl Game for Toy {
    fn spec(&self) -> String {
        format!("toy:{}", self.0)
    }
    fn size(&self) -> u64 {
        self.0 + 1
    }
    fn status(&self, _pos: u64) -> Status {
        Status::Open
    }
    fn for_each_child(&self, pos: u64, mut f: impl FnMut(u64)) {
        (1..=2.min(pos)).for_each(|t| f(pos - t));
    }
    fn for_each_parent(&self, pos: u64, mut f: impl FnMut(u64)) {
        (1..=2)
            .filter(|t| pos + t <= self.0)
            .for_each(|t| f(pos + t));
    }
    fn max_children(&self) -> u64 {
        2
    }
}

impl Notation for Toy {
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        match text.parse() {
            Ok(n) if n <= self.0 => Ok(n),
            _ => Err(PositionError::new(text, "expected a heap")),
        }
    }
    fn position_text(&self, pos: u64) -> String {
        pos.to_string()
    }
    fn moves(&self, pos: u64) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_child(pos, |child| {
            moves.push(Move {
                name: format!("take{}", pos - child),
                child,
            })
        });
        moves
    }
}

impl Omissions for Toy {}

#[test]
fn a_registered_family_opens_and_solves_like_a_built_in() {
    crate::register::<Toy>().unwrap();
    // Again: nothing changes.
    crate::register::<Toy>().unwrap();
    assert!(games::is_registered("toy"));
    assert!(games::kinds().any(|(k, _)| *k == "toy"));
    assert!(!games::tiered_kinds().any(|k| k == "toy"));
    let game = AnyGame::open("toy:10", u64::MAX).unwrap();
    let AnyGame::External(inner) = &game else {
        panic!("a registered family's game is external");
    };
    assert_eq!(inner.downcast_ref::<Toy>().map(|t| t.0), Some(10));
    assert_eq!(game.spec(), "toy:10");
    crate::game::check_round_trip(inner, 0..11).unwrap();

    let words: Vec<AtomicU64> = (0..cells::words_for(11))
        .map(|_| AtomicU64::new(0))
        .collect();
    let c = Cells::new(&words, 11);
    crate::with_game!(&game, g => solve::counter::solve(g, &c, &SolveOptions::default()));
    for heap in 0..=10u64 {
        let want = if heap % 3 == 0 {
            Value::Loss
        } else {
            Value::Win
        };
        assert_eq!(cells::value(c.get(heap)), Some(want), "{heap}");
    }
}

#[test]
fn a_kind_read_by_another_family_is_refused() {
    struct Hex(Toy);
    impl Family for Hex {
        const KINDS: &'static [(&'static str, &'static str)] = &[("hex", "not the real one")];
        fn open(spec: &SpecInput<'_>) -> Result<Hex> {
            Toy::open(spec).map(Hex)
        }
    }
    impl Game for Hex {
        fn spec(&self) -> String {
            self.0.spec()
        }
        fn size(&self) -> u64 {
            self.0.size()
        }
        fn status(&self, pos: u64) -> Status {
            self.0.status(pos)
        }
        fn for_each_child(&self, pos: u64, f: impl FnMut(u64)) {
            self.0.for_each_child(pos, f)
        }
        fn for_each_parent(&self, pos: u64, f: impl FnMut(u64)) {
            self.0.for_each_parent(pos, f)
        }
        fn max_children(&self) -> u64 {
            2
        }
    }
    impl Notation for Hex {
        fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
            self.0.parse_position(text)
        }
        fn position_text(&self, pos: u64) -> String {
            self.0.position_text(pos)
        }
        fn moves(&self, pos: u64) -> Vec<Move> {
            self.0.moves(pos)
        }
    }
    impl Omissions for Hex {}
    let e = crate::register::<Hex>().unwrap_err().to_string();
    assert!(
        e.contains("'hex'") && e.contains("reads this kind already"),
        "{e}"
    );
    assert!(matches!(
        AnyGame::open("hex:2", u64::MAX),
        Ok(AnyGame::Cell(_))
    ));
}

#[test]
fn the_built_in_families_keep_their_own_variants() {
    for spec in [
        "hex:2",
        "subtract:5,1,2",
        concat!(
            "hackenbush:",
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/hackenbush-house.txt"
        ),
        concat!(
            "digraph:",
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/seed001.txt"
        ),
    ] {
        let game = AnyGame::open(spec, u64::MAX).unwrap();
        assert!(!matches!(game, AnyGame::External(_)), "{spec}");
    }
    let kinds: Vec<&str> = games::kinds().map(|(k, _)| *k).collect();
    for kind in ["digraph", "hackenbush", "hex", "subtract"] {
        assert!(kinds.contains(&kind), "{kinds:?}");
    }
    assert!(games::tiered_kinds().any(|k| k == "hex"));
    assert!(!games::tiered_kinds().any(|k| k == "subtract"));
}
