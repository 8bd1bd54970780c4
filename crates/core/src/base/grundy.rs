//! Generalized Sprague-Grundy values (Smith 1966; Fraenkel and Yesha) of the positions of an
//! impartial game, and the sum rule that gives a sum of such games — several tokens on one
//! digraph, a move moving one of them — its value, its outcome and its winning moves. Neutral
//! ground like [`crate::base::cells`]: the labelling kernel (`crate::solve::grundy`) computes the
//! values, the table files store them, probes combine them (docs/SUMS.md).
//!
//! A position's value is a number `n` or `∞(K)`, `K` the finite values among its followers
//! (written `inf{0,2}`). The one invariant: a value is only ever read as the whole of what
//! the definition gives — a finite value with its mex and reversal conditions, an infinite one
//! with exactly its followers' finite values — so [`sum`] may combine values without looking
//! at the positions again.

use std::fmt;

use serde::Serialize;

use super::value::Value;

/// The generalized Sprague-Grundy value of a position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Grundy {
    /// A finite value: a sum with finite values only is lost for the player to move exactly
    /// when their XOR is 0, as in Nim.
    Finite(u32),
    /// `∞(K)`: no finite value; `K` (increasing, distinct) holds the finite values of the
    /// position's followers.
    Infinite(Vec<u32>),
}

impl Grundy {
    /// The outcome of a single token here, for the player to move: a loss at value 0, a win at
    /// any other finite value, and at `∞(K)` a win when `0` is in `K` (a move to a lost
    /// position), else a draw.
    pub fn value(&self) -> Value {
        match self {
            Grundy::Finite(0) => Value::Loss,
            Grundy::Finite(_) => Value::Win,
            Grundy::Infinite(k) if k.first() == Some(&0) => Value::Win,
            Grundy::Infinite(_) => Value::Draw,
        }
    }

    pub fn is_finite(&self) -> bool {
        matches!(self, Grundy::Finite(_))
    }

    /// Reads `3`, `inf{0,2}` or `inf{}` (what [`fmt::Display`] writes).
    pub fn parse(text: &str) -> Option<Grundy> {
        let t = text.trim();
        if let Some(inner) = t.strip_prefix("inf{").and_then(|r| r.strip_suffix('}')) {
            let mut k: Vec<u32> = Vec::new();
            for w in inner.split(',').filter(|w| !w.trim().is_empty()) {
                k.push(w.trim().parse().ok()?);
            }
            let sorted = k.windows(2).all(|p| p[0] < p[1]);
            return sorted.then_some(Grundy::Infinite(k));
        }
        t.parse().ok().map(Grundy::Finite)
    }
}

impl fmt::Display for Grundy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grundy::Finite(n) => write!(f, "{n}"),
            Grundy::Infinite(k) => {
                let list: Vec<String> = k.iter().map(u32::to_string).collect();
                write!(f, "inf{{{}}}", list.join(","))
            }
        }
    }
}

/// JSON: `"grundy": 3`, or `"grundy": "inf", "reach": [0, 2]` (meant to be flattened into an
/// answer object).
impl Serialize for Grundy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Grundy::Finite(n) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("grundy", n)?;
                map.end()
            }
            Grundy::Infinite(k) => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("grundy", "inf")?;
                map.serialize_entry("reach", k)?;
                map.end()
            }
        }
    }
}

/// The value of a sum of positions (tokens) whose values are `values`: the XOR of the finite
/// ones when all are finite; `∞(K ^ s)` when exactly one is `∞(K)` and the others XOR to `s`
/// (every element of `K` XORed with `s`); `∞()` when two or more are infinite (Smith's sum
/// rule). Its [`Grundy::value`] is the sum's outcome for the player to move: with finite values
/// only a loss exactly when the XOR is 0; with one infinite value a win when `s` is in `K`,
/// else a draw; with two or more a draw. The empty sum is 0 (no move: lost).
pub fn sum(values: &[Grundy]) -> Grundy {
    let mut x = 0u32;
    let mut infinite: Vec<&Vec<u32>> = Vec::new();
    for v in values {
        match v {
            Grundy::Finite(n) => x ^= n,
            Grundy::Infinite(k) => infinite.push(k),
        }
    }
    match infinite[..] {
        [] => Grundy::Finite(x),
        [k] => {
            let mut shifted: Vec<u32> = k.iter().map(|&a| a ^ x).collect();
            shifted.sort_unstable();
            Grundy::Infinite(shifted)
        }
        _ => Grundy::Infinite(Vec::new()),
    }
}

/// The moves that win a sum for the player to move: each `(token, follower)` moves the token at
/// `tokens[token]` (whose value is `values[token]`) to `follower`, and leaves a sum of finite
/// values whose XOR is 0, lost for the opponent (a follower of larger value than its token's
/// serves as well as a smaller one) — the only positions a winning move can reach,
/// since a sum with an infinite value is never lost. `followers(v)` lists the followers of
/// vertex `v` with their values. Tokens on the same vertex make the same moves: only the first
/// of them is listed, and a follower reached by several edges once. Empty unless the sum is won.
pub fn winning_moves<E>(
    tokens: &[u64],
    values: &[Grundy],
    mut followers: impl FnMut(u64) -> Result<Vec<(u64, Grundy)>, E>,
) -> Result<Vec<(usize, u64)>, E> {
    assert_eq!(tokens.len(), values.len(), "a value for every token");
    let infinite: Vec<usize> = (0..values.len())
        .filter(|&i| !values[i].is_finite())
        .collect();
    let xor_except = |skip: usize| -> u32 {
        values
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(_, v)| match v {
                Grundy::Finite(n) => *n,
                Grundy::Infinite(_) => 0,
            })
            .fold(0, |a, b| a ^ b)
    };
    // Which token may move, and the finite value its follower must have.
    let mut wanted: Vec<(usize, u32)> = Vec::new();
    match infinite[..] {
        // Any token may move to the others' XOR: down to it (there is always such a follower
        // when it is smaller, by the mex) or up to it (where a follower has it).
        [] if xor_except(usize::MAX) != 0 => {
            for i in 0..values.len() {
                if !tokens[..i].contains(&tokens[i]) {
                    wanted.push((i, xor_except(i)));
                }
            }
        }
        [i] => {
            let s = xor_except(i);
            if let Grundy::Infinite(k) = &values[i]
                && k.binary_search(&s).is_ok()
            {
                wanted.push((i, s));
            }
        }
        _ => {}
    }
    let mut moves = Vec::new();
    for (i, target) in wanted {
        let mut seen = Vec::new();
        for (child, g) in followers(tokens[i])? {
            if g == Grundy::Finite(target) && !seen.contains(&child) {
                seen.push(child);
                moves.push((i, child));
            }
        }
    }
    Ok(moves)
}

/// Why a sum's text is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SumError {
    #[error("an empty sum (tokens are separated by '+', e.g. 4+9+11)")]
    Empty,
    /// Token `token` (from 1) is empty: two `+` in a row, or one at an end.
    #[error("token {token} is empty (tokens are separated by '+', e.g. 4+9+11)")]
    EmptyToken { token: usize },
}

/// The tokens of a sum's text: position texts separated by `+` (`4+9+11`), spaces around them
/// allowed; spaces alone separate tokens too (`4 9 11`, what a URL query makes of `+`). `Err`
/// says what is malformed (an empty sum, an empty token between two `+`).
pub fn split_sum(text: &str) -> Result<Vec<&str>, SumError> {
    if text.trim().is_empty() {
        return Err(SumError::Empty);
    }
    let mut tokens = Vec::new();
    for piece in text.split('+') {
        if piece.trim().is_empty() {
            return Err(SumError::EmptyToken {
                token: tokens.len() + 1,
            });
        }
        tokens.extend(piece.split_whitespace());
    }
    Ok(tokens)
}

/// Which condition of a position's value its followers' values break ([`check_local`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocalError {
    /// A finite value that is not the mex of the followers' finite values.
    #[error(
        "value {value}, but its followers' finite values {finite:?} leave {mex} as the least value none of them has"
    )]
    NotMex {
        value: u32,
        finite: Vec<u32>,
        mex: u32,
    },
    /// A finite value with an infinite follower that has no move back to it.
    #[error("value {value}, but a follower of value {follower} has no follower of value {value}")]
    Unanswered { value: u32, follower: Grundy },
    /// An infinite value whose reach set is not the followers' finite values.
    #[error("value {value}, but its followers' finite values are {finite:?}")]
    ReachSet { value: Grundy, finite: Vec<u32> },
    /// An infinite value every infinite follower of which answers at the mex.
    #[error(
        "value {value}, but every infinite follower has a follower of value {mex} (the position's value would be {mex})"
    )]
    Answered { value: Grundy, mex: u32 },
}

/// Checks the conditions that define one position's value against its followers' values
/// (`followers`, one entry per move): a finite `n` is the least finite value no follower has
/// (mex), and every follower of infinite value `∞(L)` has `n` in `L` (from any follower of
/// larger value the opponent's move can be answered by one back to `n`; a follower of larger
/// finite value has one by its own mex). `∞(K)` lists exactly the followers' finite values,
/// and some follower `∞(L)` lacks `mex(K)` in `L` (a move the opponent cannot answer at
/// `mex(K)`). `Err` says which condition fails.
///
/// These are local: a labelling could pass them all and still be wrong (a 2-cycle labelled 0
/// and 1 does), because the finite values must also be reached in finitely many steps — what
/// the labelling's rounds ensure and no single position shows.
pub fn check_local(value: &Grundy, followers: &[Grundy]) -> Result<(), LocalError> {
    let mut finite: Vec<u32> = followers
        .iter()
        .filter_map(|g| match g {
            Grundy::Finite(n) => Some(*n),
            Grundy::Infinite(_) => None,
        })
        .collect();
    finite.sort_unstable();
    finite.dedup();
    let mex = finite
        .iter()
        .enumerate()
        .find(|&(i, &v)| i as u32 != v)
        .map_or(finite.len() as u32, |(i, _)| i as u32);
    let reaches = |g: &Grundy, n: u32| match g {
        Grundy::Infinite(l) => l.binary_search(&n).is_ok(),
        Grundy::Finite(_) => true,
    };
    match value {
        Grundy::Finite(n) => {
            if *n != mex {
                return Err(LocalError::NotMex {
                    value: *n,
                    finite,
                    mex,
                });
            }
            if let Some(g) = followers.iter().find(|g| !reaches(g, *n)) {
                return Err(LocalError::Unanswered {
                    value: *n,
                    follower: g.clone(),
                });
            }
            Ok(())
        }
        Grundy::Infinite(k) => {
            if *k != finite {
                return Err(LocalError::ReachSet {
                    value: value.clone(),
                    finite,
                });
            }
            if !followers.iter().any(|g| !g.is_finite() && !reaches(g, mex)) {
                return Err(LocalError::Answered {
                    value: value.clone(),
                    mex,
                });
            }
            Ok(())
        }
    }
}

/// The values of every position of a game as the labelling leaves them and a table stores
/// them: one code a position — `n` for a finite value `n` (below [`Labels::finite`]),
/// `finite + s` for `∞(K)` with `K` the reach set `s`, [`Labels::UNUSED`] for an index that is
/// no position — and the distinct reach sets as bitsets of [`Labels::words`] words each, in the
/// order of the first position that has each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    pub codes: Vec<u32>,
    /// The number of finite values, 0 to the largest: the largest finite value plus one, or 0
    /// when no position has one.
    pub finite: u32,
    /// The reach sets, [`Labels::words`] 64-bit words each; bit `j` of word `j / 64` is set
    /// when `j` is in the set.
    pub sets: Vec<u64>,
    /// Labelling stages run: one per finite value, and a last one that labels none where
    /// positions were still open after the largest value.
    pub stages: u32,
    /// Parent edges walked by the labelling.
    pub parent_visits: u64,
    /// What each stage run by the labelling did (not stage 0 when it came from a solve).
    pub stage_reports: Vec<StageReport>,
}

/// One stage of the labelling: the positions it found open, labelled with its value, and the
/// parent edges it walked, in how long.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StageReport {
    /// The value the stage labels.
    pub value: u32,
    pub open: u64,
    pub labelled: u64,
    /// Positions it found infinite (open and unmarked at its end).
    pub infinite: u64,
    pub parent_visits: u64,
    pub seconds: f64,
}

impl Labels {
    /// The code of an index that is no position.
    pub const UNUSED: u32 = u32::MAX;

    /// Words of one reach set: enough bits for every finite value.
    pub fn words(&self) -> usize {
        words_per_set(self.finite)
    }

    /// The number of distinct reach sets.
    pub fn set_count(&self) -> u64 {
        match self.words() {
            0 => self.sets_without_words(),
            w => (self.sets.len() / w) as u64,
        }
    }

    /// Without finite values every reach set is empty: one set if any position is infinite.
    fn sets_without_words(&self) -> u64 {
        self.codes.iter().any(|&c| c != Self::UNUSED) as u64
    }

    /// The value of position `pos`, or `None` for an unused index.
    pub fn get(&self, pos: u64) -> Option<Grundy> {
        decode(self.codes[pos as usize], self.finite, |s| {
            let w = self.words();
            set_members(&self.sets[s as usize * w..(s as usize + 1) * w])
        })
    }

    /// How many positions are infinite.
    pub fn infinite_count(&self) -> u64 {
        self.codes
            .iter()
            .filter(|&&c| c != Self::UNUSED && c >= self.finite)
            .count() as u64
    }
}

/// Words of a reach set over `finite` values.
pub fn words_per_set(finite: u32) -> usize {
    (finite as usize).div_ceil(64)
}

/// The values in a reach set's words, increasing.
pub fn set_members(words: &[u64]) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, &w) in words.iter().enumerate() {
        let mut bits = w;
        while bits != 0 {
            out.push(i as u32 * 64 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
    out
}

/// The value a code stands for in a labelling with `finite` finite values, the reach set `s`
/// read by `set(s)`; `None` for [`Labels::UNUSED`].
pub fn decode(code: u32, finite: u32, set: impl FnOnce(u32) -> Vec<u32>) -> Option<Grundy> {
    if code == Labels::UNUSED {
        None
    } else if code < finite {
        Some(Grundy::Finite(code))
    } else {
        Some(Grundy::Infinite(set(code - finite)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inf(k: &[u32]) -> Grundy {
        Grundy::Infinite(k.to_vec())
    }

    #[test]
    fn single_tokens_and_text() {
        assert_eq!(Grundy::Finite(0).value(), Value::Loss);
        assert_eq!(Grundy::Finite(3).value(), Value::Win);
        assert_eq!(inf(&[0, 2]).value(), Value::Win);
        assert_eq!(inf(&[1]).value(), Value::Draw);
        assert_eq!(inf(&[]).value(), Value::Draw);
        for g in [Grundy::Finite(7), inf(&[0, 2]), inf(&[])] {
            assert_eq!(Grundy::parse(&g.to_string()), Some(g.clone()), "{g}");
        }
        assert_eq!(inf(&[0, 2]).to_string(), "inf{0,2}");
        assert_eq!(Grundy::parse("inf{2,0}"), None);
        assert_eq!(Grundy::parse("x"), None);
        assert_eq!(
            serde_json::to_string(&inf(&[1, 3])).unwrap(),
            r#"{"grundy":"inf","reach":[1,3]}"#
        );
        assert_eq!(
            serde_json::to_string(&Grundy::Finite(2)).unwrap(),
            r#"{"grundy":2}"#
        );
    }

    #[test]
    fn the_sum_rule() {
        use Grundy::Finite as F;
        assert_eq!(sum(&[F(1), F(2), F(3)]), F(0));
        assert_eq!(sum(&[F(1), F(2)]).value(), Value::Win);
        assert_eq!(sum(&[]), F(0));
        // One infinite value: its reach set shifted by the others' XOR.
        assert_eq!(sum(&[inf(&[0, 2]), F(2)]), inf(&[0, 2]));
        assert_eq!(sum(&[inf(&[0, 3]), F(1)]), inf(&[1, 2]));
        assert_eq!(sum(&[inf(&[0, 3]), F(1)]).value(), Value::Draw);
        assert_eq!(sum(&[inf(&[0, 3]), F(3)]).value(), Value::Win);
        // Two: a draw, whatever their sets.
        assert_eq!(sum(&[inf(&[0]), inf(&[0])]), inf(&[]));
    }

    #[test]
    fn winning_moves_follow_the_rule() {
        use Grundy::Finite as F;
        // Vertex v's followers: values by a table, ids 10 * v + k.
        let graph = |v: u64| -> Result<Vec<(u64, Grundy)>, ()> {
            Ok(match v {
                1 => vec![(10, F(0)), (11, F(1)), (10, F(0))],
                2 => vec![(20, F(0)), (21, F(1)), (22, inf(&[0]))],
                3 => vec![(30, F(1)), (31, F(0))],
                _ => vec![],
            })
        };
        // Values 2 and 1: token 0 moves down to a 1, token 1 up to a 2 (vertex 3 has none).
        let m = winning_moves(&[2, 3], &[F(2), F(1)], graph).unwrap();
        assert_eq!(m, vec![(0, 21)]);
        // Values 0 and 1 at vertices 3 and 1: token 0 up to a 1 (30), token 1 down to a 0.
        let m = winning_moves(&[3, 1], &[F(0), F(1)], graph).unwrap();
        assert_eq!(m, vec![(0, 30), (1, 10)]);
        // Equal tokens move alike: listed once; a follower reached twice once.
        let m = winning_moves(&[1, 1, 9], &[F(1), F(1), F(1)], graph).unwrap();
        assert_eq!(m, vec![(0, 10)]);
        // XOR 0: none.
        assert!(
            winning_moves(&[1, 1], &[F(1), F(1)], graph)
                .unwrap()
                .is_empty()
        );
        // One infinite value: only it moves, to the others' XOR.
        let m = winning_moves(&[2, 3], &[inf(&[1]), F(1)], graph).unwrap();
        assert_eq!(m, vec![(0, 21)]);
        assert!(
            winning_moves(&[2, 3], &[inf(&[1]), F(2)], graph)
                .unwrap()
                .is_empty()
        );
        assert!(
            winning_moves(&[2, 2], &[inf(&[0]), inf(&[0])], graph)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn sum_texts() {
        assert_eq!(split_sum("4+9+11"), Ok(vec!["4", "9", "11"]));
        assert_eq!(split_sum(" 4 + 9 "), Ok(vec!["4", "9"]));
        assert_eq!(split_sum("4 9 11"), Ok(vec!["4", "9", "11"]));
        assert_eq!(split_sum("7"), Ok(vec!["7"]));
        assert_eq!(split_sum("4++9"), Err(SumError::EmptyToken { token: 2 }));
        assert_eq!(split_sum("4+"), Err(SumError::EmptyToken { token: 2 }));
        let e = split_sum("+4").unwrap_err();
        assert!(e.to_string().starts_with("token 1 is empty"), "{e}");
        assert!(
            split_sum("  ")
                .unwrap_err()
                .to_string()
                .starts_with("an empty sum")
        );
    }

    #[test]
    fn local_conditions() {
        use Grundy::Finite as F;
        assert!(check_local(&F(2), &[F(0), F(1), F(3)]).is_ok());
        assert!(check_local(&F(1), &[F(0), F(3)]).is_ok());
        assert!(check_local(&F(1), &[F(0), F(1)]).is_err());
        assert!(check_local(&F(1), &[F(0), inf(&[0])]).is_err());
        assert!(check_local(&F(1), &[F(0), inf(&[0, 1])]).is_ok());
        assert!(check_local(&inf(&[0]), &[F(0), inf(&[0])]).is_ok());
        assert!(check_local(&inf(&[0]), &[F(0), inf(&[1])]).is_err());
        assert!(check_local(&inf(&[]), &[F(0)]).is_err());
        assert!(check_local(&inf(&[]), &[]).is_err());
        // The 2-cycle labelled 0 and 1 passes: local conditions do not see the cycle.
        assert!(check_local(&F(0), &[F(1)]).is_ok());
        assert!(check_local(&F(1), &[F(0)]).is_ok());
    }

    #[test]
    fn labels_decode() {
        let l = Labels {
            codes: vec![0, 1, 2, 3, Labels::UNUSED],
            finite: 2,
            sets: vec![0b01, 0b11],
            stages: 3,
            parent_visits: 0,
            stage_reports: Vec::new(),
        };
        assert_eq!(l.words(), 1);
        assert_eq!(l.set_count(), 2);
        assert_eq!(l.infinite_count(), 2);
        assert_eq!(
            (0..5).map(|p| l.get(p)).collect::<Vec<_>>(),
            vec![
                Some(Grundy::Finite(0)),
                Some(Grundy::Finite(1)),
                Some(inf(&[0])),
                Some(inf(&[0, 1])),
                None
            ]
        );
        assert_eq!(set_members(&[1 << 63, 1]), vec![63, 64]);
    }
}
