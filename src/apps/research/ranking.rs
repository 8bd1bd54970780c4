//! The option-ranking conjecture: a player's options ranked by `b` alone.
//!
//! For the player `P` to move and an empty cell `e`, the first key is `b_P` after `P` claims `e`
//! (fewer is better), the second is `b_P` after the opponent claims `e` instead. As stated, a
//! smaller second key is better; the prose around the statement argues the other way (the gap the
//! opponent would most like to take is the one to take first), so [`Variant::Reversed`] ranks a
//! larger second key first. Options equal on both keys are conjectured equivalent, unless some
//! option wins at once (first key 0). `b = ∞` is larger than every count.
//!
//! The invariant: ranking reads cell states only, never the table, so comparing it with the
//! table's order is a fair test.

use std::cmp::Ordering;

use super::geometry::{PlayerGraph, key};
use crate::games::cell::{EMPTY, Player};

/// Which way the second key counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// As the statement's formula has it: smaller `b` after the opponent takes the gap is better.
    Stated,
    /// The reverse: larger `b` after the opponent takes the gap is better.
    Reversed,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Stated, Variant::Reversed];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Stated => "stated",
            Variant::Reversed => "reversed",
        }
    }
}

/// The two keys of one option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionKeys {
    pub cell: u32,
    /// `b` of the mover after claiming the cell (`None` = infinity).
    pub own: Option<u32>,
    /// `b` of the mover after the opponent claims the cell.
    pub taken: Option<u32>,
}

/// The keys of every option of `graph.player` (who must be the mover) in a position.
pub fn option_keys(graph: &PlayerGraph, cells: &[u8]) -> Vec<OptionKeys> {
    let mine = graph.player.cell();
    let theirs = graph.player.other().cell();
    let mut work = cells.to_vec();
    (0..cells.len())
        .filter(|&i| cells[i] == EMPTY)
        .map(|i| {
            work[i] = mine;
            let own = graph.bridges_needed(&work);
            work[i] = theirs;
            let taken = graph.bridges_needed(&work);
            work[i] = EMPTY;
            OptionKeys {
                cell: i as u32,
                own,
                taken,
            }
        })
        .collect()
}

/// How the conjecture orders two options: `Greater` when `a` is ranked above `b`, `Equal` when
/// it calls them equivalent (or, with an immediate win among the options, leaves them unordered).
pub fn compare(a: &OptionKeys, b: &OptionKeys, variant: Variant) -> Ordering {
    let first = key(b.own).cmp(&key(a.own));
    let second = match variant {
        Variant::Stated => key(b.taken).cmp(&key(a.taken)),
        Variant::Reversed => key(a.taken).cmp(&key(b.taken)),
    };
    first.then(second)
}

/// The cells the conjecture ranks first (all options tied at the top).
pub fn top(options: &[OptionKeys], variant: Variant) -> Vec<u32> {
    let Some(best) = options
        .iter()
        .max_by(|a, b| compare(a, b, variant))
        .copied()
    else {
        return Vec::new();
    };
    options
        .iter()
        .filter(|o| compare(o, &best, variant) == Ordering::Equal)
        .map(|o| o.cell)
        .collect()
}

/// The player the keys are for, by the mover.
pub fn graph_for(graphs: &[PlayerGraph; 2], mover: Player) -> &PlayerGraph {
    &graphs[mover as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(cell: u32, own: Option<u32>, taken: Option<u32>) -> OptionKeys {
        OptionKeys { cell, own, taken }
    }

    #[test]
    fn keys_order_as_stated_and_reversed() {
        let a = o(0, Some(1), Some(2));
        let b = o(1, Some(1), Some(3));
        let c = o(2, Some(2), Some(9));
        let d = o(3, None, None);
        assert_eq!(compare(&a, &c, Variant::Stated), Ordering::Greater);
        assert_eq!(compare(&a, &b, Variant::Stated), Ordering::Greater);
        assert_eq!(compare(&a, &b, Variant::Reversed), Ordering::Less);
        assert_eq!(compare(&c, &d, Variant::Reversed), Ordering::Greater);
        assert_eq!(compare(&a, &a, Variant::Reversed), Ordering::Equal);
        assert_eq!(top(&[a, b, c, d], Variant::Stated), vec![0]);
        assert_eq!(top(&[a, b, c, d], Variant::Reversed), vec![1]);
        // Infinity after the opponent's claim is the largest second key.
        let e = o(4, Some(1), None);
        assert_eq!(top(&[a, b, e], Variant::Reversed), vec![4]);
    }

    #[test]
    fn empty_board_keys() {
        // Size 2: Left needs 2 bridges; any claim leaves 1 or 2; the opponent's claim of a gap on
        // every shortest path raises Left's need.
        let g = PlayerGraph::bridgit(2, Player::Left);
        let keys = option_keys(&g, &[EMPTY; 5]);
        assert_eq!(keys.len(), 5);
        assert!(keys.iter().all(|k| k.own.is_some() && k.taken.is_some()));
        assert!(keys.iter().any(|k| k.own == Some(1)));
    }
}
