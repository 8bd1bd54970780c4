//! Exact values of Hackenbush positions: a component without green edges is a number (the
//! simplicity rule over its options), a green-only component a nimber (mex over its options),
//! and a sum of such components the sum. Values are computed on demand and memoised per
//! component.
//!
//! The invariant: the memo maps a component (a grounded set whose edges meet only at the
//! ground) to its value, and nothing else.

use std::collections::HashMap;

use super::{Hackenbush, bits};
use crate::game::Value;
use crate::game::cgt::numbers::{self, Dyadic, GameValue};

/// The outcome class from the values of the same position with Left and with Right to move:
/// `L` Left wins whoever starts, `R` Right does, `N` the mover wins, `P` the mover loses.
pub fn outcome_class(left_to_move: Value, right_to_move: Value) -> Option<char> {
    match (left_to_move, right_to_move) {
        (Value::Win, Value::Loss) => Some('L'),
        (Value::Loss, Value::Win) => Some('R'),
        (Value::Win, Value::Win) => Some('N'),
        (Value::Loss, Value::Loss) => Some('P'),
        _ => None,
    }
}

/// A hasher for edge-set keys: the SplitMix64 finaliser, cheaper than the default SipHash and
/// mixing every key bit into the low bits the table indexes with.
#[derive(Default)]
pub(super) struct MaskHasher(u64);

impl std::hash::Hasher for MaskHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = self.0.rotate_left(17) ^ x;
    }

    fn finish(&self) -> u64 {
        crate::base::splitmix::mix(self.0)
    }
}

pub(super) type Memo = HashMap<u64, ComponentValue, std::hash::BuildHasherDefault<MaskHasher>>;

/// What is known of one component's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ComponentValue {
    /// Red-blue: a number.
    Number(Dyadic),
    /// Green only: a nimber.
    Nimber(u64),
    /// Mixed green and red/blue (or out of range): no closed form here.
    Unknown,
}

impl Hackenbush {
    /// The exact value of a position's edge set, when every component is red-blue (a number)
    /// or green-only (a nimber); `None` when some component mixes green with red or blue.
    pub fn game_value(&self, pos: u64) -> Option<GameValue> {
        self.value_of_set(self.set_of(pos))
    }

    /// As [`Self::game_value`], for a grounded edge set.
    pub fn value_of_set(&self, set: u64) -> Option<GameValue> {
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        self.sum_value(set, &mut memo)
    }

    fn sum_value(&self, set: u64, memo: &mut Memo) -> Option<GameValue> {
        let mut total = GameValue::ZERO;
        for comp in self.components(set) {
            let v = match self.component_value(comp, memo) {
                ComponentValue::Number(x) => GameValue {
                    number: x,
                    nimber: 0,
                },
                ComponentValue::Nimber(n) => GameValue {
                    number: Dyadic::ZERO,
                    nimber: n,
                },
                ComponentValue::Unknown => return None,
            };
            total = total.checked_add(v)?;
        }
        Some(total)
    }

    /// The value of one component (a grounded set whose edges meet only at the ground).
    fn component_value(&self, comp: u64, memo: &mut Memo) -> ComponentValue {
        if let Some(&p) = memo.get(&comp) {
            return p;
        }
        let green = comp & self.green;
        let value = if green == 0 {
            // {Left's options | Right's options}: only the best of each side matters.
            let mut lo: Option<Dyadic> = None;
            let mut hi: Option<Dyadic> = None;
            let mut known = true;
            for e in bits(comp) {
                let child = self.grounded(comp & !(1 << e));
                match self.sum_value(child, memo) {
                    Some(v) if v.nimber == 0 => {
                        if self.removable[0] >> e & 1 == 1 {
                            lo = Some(lo.map_or(v.number, |l| l.max(v.number)));
                        } else {
                            hi = Some(hi.map_or(v.number, |h| h.min(v.number)));
                        }
                    }
                    _ => {
                        known = false;
                        break;
                    }
                }
            }
            match known.then(|| numbers::simplest_between(lo, hi)).flatten() {
                Some(x) => ComponentValue::Number(x),
                None => ComponentValue::Unknown,
            }
        } else if green == comp {
            let mut options = Vec::new();
            for e in bits(comp) {
                let child = self.grounded(comp & !(1 << e));
                match self.sum_value(child, memo) {
                    Some(v) => options.push(v.nimber),
                    None => {
                        memo.insert(comp, ComponentValue::Unknown);
                        return ComponentValue::Unknown;
                    }
                }
            }
            ComponentValue::Nimber(numbers::mex(options))
        } else {
            ComponentValue::Unknown
        };
        memo.insert(comp, value);
        value
    }
}
