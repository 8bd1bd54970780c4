//! Exact short-game values: dyadic rationals (the numbers of red-blue Hackenbush), the simplicity
//! rule that picks the value of `{L | R}`, and values of the form `x + *n` (a number plus a
//! nimber), printed the way combinatorial game theory writes them (`3/4`, `-5/8`, `2`, `*3`,
//! `1/2*`).
//!
//! Invariant: a [`Dyadic`] is always normalised — its numerator is odd or its exponent is zero —
//! so two equal values have equal fields and the derived `Eq` and `Hash` are the numeric ones.
//! Arithmetic is checked: an operation that would leave the representable range returns `None`
//! rather than a wrong value.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Exponents stay at or below this, which keeps every aligned numerator well inside `i128`
/// for values of magnitude below 2^20 (far beyond any Hackenbush position retrodb can index).
pub const MAX_EXP: u32 = 96;

/// A dyadic rational `num / 2^exp`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dyadic {
    num: i128,
    exp: u32,
}

impl Dyadic {
    pub const ZERO: Dyadic = Dyadic { num: 0, exp: 0 };

    /// The integer `n`.
    pub fn int(n: i64) -> Dyadic {
        Dyadic {
            num: n as i128,
            exp: 0,
        }
    }

    /// `num / 2^exp`, normalised; `None` when `exp` exceeds [`MAX_EXP`] after normalising.
    pub fn new(num: i128, exp: u32) -> Option<Dyadic> {
        let (mut num, mut exp) = (num, exp);
        if num == 0 {
            return Some(Dyadic::ZERO);
        }
        while exp > 0 && num % 2 == 0 {
            num /= 2;
            exp -= 1;
        }
        (exp <= MAX_EXP).then_some(Dyadic { num, exp })
    }

    pub fn numerator(self) -> i128 {
        self.num
    }

    /// The denominator is `2^exponent`.
    pub fn exponent(self) -> u32 {
        self.exp
    }

    pub fn is_integer(self) -> bool {
        self.exp == 0
    }

    pub fn signum(self) -> i32 {
        self.num.signum() as i32
    }

    /// The numerator scaled to denominator `2^exp` (`exp >= self.exp`), if it fits.
    fn scaled(self, exp: u32) -> Option<i128> {
        let shift = exp.checked_sub(self.exp)?;
        if shift >= 127 {
            return (self.num == 0).then_some(0);
        }
        let v = self.num.checked_mul(1i128 << shift)?;
        Some(v)
    }

    pub fn checked_add(self, other: Dyadic) -> Option<Dyadic> {
        let exp = self.exp.max(other.exp);
        Dyadic::new(self.scaled(exp)?.checked_add(other.scaled(exp)?)?, exp)
    }

    pub fn checked_neg(self) -> Option<Dyadic> {
        Some(Dyadic {
            num: self.num.checked_neg()?,
            exp: self.exp,
        })
    }

    /// The largest integer at or below the value.
    pub fn floor(self) -> i128 {
        // An arithmetic shift rounds towards minus infinity, which is the floor.
        self.num >> self.exp
    }

    /// The smallest integer at or above the value.
    pub fn ceil(self) -> i128 {
        -((-self.num) >> self.exp)
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / (self.exp as f64).exp2()
    }
}

impl PartialOrd for Dyadic {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dyadic {
    fn cmp(&self, other: &Self) -> Ordering {
        let exp = self.exp.max(other.exp);
        match (self.scaled(exp), other.scaled(exp)) {
            (Some(a), Some(b)) => a.cmp(&b),
            // Scaling overflows only for huge magnitudes; the integer parts decide then, and if
            // they tie the fractions (both in [0, 1)) compare at the common exponent.
            _ => self.floor().cmp(&other.floor()).then_with(|| {
                let fa = self.num - (self.floor() << self.exp);
                let fb = other.num - (other.floor() << other.exp);
                (fa << (exp - self.exp)).cmp(&(fb << (exp - other.exp)))
            }),
        }
    }
}

impl fmt::Display for Dyadic {
    /// `2`, `-3`, `3/4`, `-5/8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.exp == 0 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, 1u128 << self.exp)
        }
    }
}

/// Why a text is not a dyadic rational.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a dyadic rational (examples: 3, -2, 3/4, -5/8)")]
pub struct ParseDyadicError(pub String);

impl FromStr for Dyadic {
    type Err = ParseDyadicError;

    /// Reads what `Display` writes: an integer, or `a/b` with `b` a power of two.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseDyadicError(s.to_string());
        let t = s.trim();
        let (a, b) = t.split_once('/').unwrap_or((t, "1"));
        let num: i128 = a.trim().parse().map_err(|_| err())?;
        let den: u128 = b.trim().parse().map_err(|_| err())?;
        if den == 0 || !den.is_power_of_two() {
            return Err(err());
        }
        Dyadic::new(num, den.trailing_zeros()).ok_or_else(err)
    }
}

/// The simplest number strictly between `lo` and `hi` (`None` meaning minus and plus infinity):
/// the integer of least magnitude if there is one, otherwise the dyadic with the smallest
/// denominator. This is the value of the game `{lo | hi}` when `lo < hi`; `None` when the
/// interval is empty (`lo >= hi`), where no number lies between.
pub fn simplest_between(lo: Option<Dyadic>, hi: Option<Dyadic>) -> Option<Dyadic> {
    if let (Some(l), Some(h)) = (lo, hi)
        && l >= h
    {
        return None;
    }
    let above_lo = |x: Dyadic| lo.is_none_or(|l| x > l);
    let below_hi = |x: Dyadic| hi.is_none_or(|h| x < h);
    if above_lo(Dyadic::ZERO) && below_hi(Dyadic::ZERO) {
        return Some(Dyadic::ZERO);
    }
    // Zero is outside the interval, so the whole interval lies on one side of it.
    if let Some(l) = lo.filter(|l| l.signum() >= 0) {
        // Positive side: the least integer above `lo`, if it is below `hi`.
        let n = Dyadic::new(l.floor() + 1, 0)?;
        if below_hi(n) {
            return Some(n);
        }
    } else if let Some(h) = hi.filter(|h| h.signum() <= 0) {
        let n = Dyadic::new(h.ceil() - 1, 0)?;
        if above_lo(n) {
            return Some(n);
        }
    }
    // No integer between: both ends are finite and within one unit interval. The first
    // denominator 2^k whose grid has a point above `lo` and below `hi` gives the answer; it is
    // reached by k = max(exponents) + 1 at the latest.
    let (l, h) = (lo?, hi?);
    for k in 1..=(l.exp.max(h.exp) + 1).min(MAX_EXP) {
        let m = l.scaled(k.max(l.exp))? >> (k.max(l.exp) - k);
        let x = Dyadic::new(m + 1, k)?;
        if x > l && x < h {
            return Some(x);
        }
    }
    None
}

/// The least non-negative integer not in `values` (the minimum excluded value).
pub fn mex(values: impl IntoIterator<Item = u64>) -> u64 {
    let mut seen: Vec<u64> = values.into_iter().collect();
    seen.sort_unstable();
    seen.dedup();
    let mut m = 0;
    for v in seen {
        if v == m {
            m += 1;
        } else if v > m {
            break;
        }
    }
    m
}

/// A number plus a nimber, `x + *n`: the value of any sum of red-blue and green-only Hackenbush
/// components. Printed `x` when `n = 0`, `*n` when `x = 0` (`*` for `*1`), `x*n` otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameValue {
    pub number: Dyadic,
    pub nimber: u64,
}

impl GameValue {
    pub const ZERO: GameValue = GameValue {
        number: Dyadic::ZERO,
        nimber: 0,
    };

    /// The sum of two such values: numbers add, nimbers add by exclusive or.
    pub fn checked_add(self, other: GameValue) -> Option<GameValue> {
        Some(GameValue {
            number: self.number.checked_add(other.number)?,
            nimber: self.nimber ^ other.nimber,
        })
    }

    /// The outcome class this value implies: `L` (Left wins whoever starts) for positive,
    /// `R` for negative, `P` (the mover loses) for zero, `N` (the mover wins) for a non-zero
    /// nimber alone. A number plus a non-zero nimber has the number's class when the number is
    /// non-zero (the nimber is infinitesimal).
    pub fn outcome(self) -> char {
        match (self.number.signum(), self.nimber) {
            (1, _) => 'L',
            (-1, _) => 'R',
            (_, 0) => 'P',
            _ => 'N',
        }
    }
}

impl fmt::Display for GameValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let star = match self.nimber {
            0 => String::new(),
            1 => "*".to_string(),
            n => format!("*{n}"),
        };
        if self.number == Dyadic::ZERO && self.nimber != 0 {
            f.write_str(&star)
        } else {
            write!(f, "{}{star}", self.number)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dyadic {
        s.parse().unwrap()
    }

    #[test]
    fn normalises_prints_and_parses() {
        assert_eq!(Dyadic::new(6, 3), Some(d("3/4")));
        assert_eq!(Dyadic::new(-10, 4).unwrap().to_string(), "-5/8");
        assert_eq!(Dyadic::new(8, 2).unwrap().to_string(), "2");
        assert_eq!(Dyadic::new(0, 7).unwrap(), Dyadic::ZERO);
        assert_eq!(Dyadic::ZERO.to_string(), "0");
        for s in ["0", "1", "-1", "1/2", "-3/4", "5/8", "-1/1024", "17/16"] {
            assert_eq!(d(s).to_string(), s);
        }
        assert!("3/5".parse::<Dyadic>().is_err());
        assert!("1/0".parse::<Dyadic>().is_err());
        assert!("x".parse::<Dyadic>().is_err());
        assert_eq!(Dyadic::new(1, MAX_EXP + 1), None);
    }

    #[test]
    fn adds_compares_floors() {
        assert_eq!(d("1/2").checked_add(d("1/4")), Some(d("3/4")));
        assert_eq!(d("-5/8").checked_add(d("5/8")), Some(Dyadic::ZERO));
        assert_eq!(d("3/2").checked_add(d("1/2")), Some(d("2")));
        assert!(d("1/2") < d("3/4") && d("-1") < d("-1/2") && d("-1/1024") < Dyadic::ZERO);
        assert_eq!(d("-3/4").floor(), -1);
        assert_eq!(d("-3/4").ceil(), 0);
        assert_eq!(d("7/4").floor(), 1);
        assert_eq!(d("7/4").ceil(), 2);
        assert_eq!(d("-2").floor(), -2);
        assert_eq!(d("-2").ceil(), -2);
    }

    #[test]
    fn simplicity_rule_examples() {
        let s = |l: Option<&str>, h: Option<&str>| {
            simplest_between(l.map(d), h.map(d)).map(|x| x.to_string())
        };
        assert_eq!(s(None, None).as_deref(), Some("0"));
        assert_eq!(s(Some("0"), Some("1")).as_deref(), Some("1/2"));
        assert_eq!(s(Some("1"), None).as_deref(), Some("2"));
        assert_eq!(s(None, Some("-2")).as_deref(), Some("-3"));
        assert_eq!(s(Some("-1"), Some("-1/2")).as_deref(), Some("-3/4"));
        assert_eq!(s(Some("1/2"), Some("3/4")).as_deref(), Some("5/8"));
        assert_eq!(s(Some("-1"), Some("5")).as_deref(), Some("0"));
        assert_eq!(s(Some("1/2"), Some("7")).as_deref(), Some("1"));
        assert_eq!(s(Some("-7/2"), Some("-3/2")).as_deref(), Some("-2"));
        assert_eq!(s(Some("0"), None).as_deref(), Some("1"));
        assert_eq!(s(None, Some("0")).as_deref(), Some("-1"));
        assert_eq!(s(Some("3/8"), Some("1/2")).as_deref(), Some("7/16"));
        assert_eq!(s(Some("1"), Some("1")), None);
        assert_eq!(s(Some("2"), Some("1")), None);
    }

    /// The simplest number in (lo, hi) is, by definition, the one born first; check against a
    /// brute-force search over the numbers born on each day.
    #[test]
    fn simplicity_rule_agrees_with_birthday_search() {
        // All dyadics with exponent <= 5 and magnitude <= 4, as (birthday, value).
        let mut born: Vec<(u32, Dyadic)> = Vec::new();
        for num in -(4 << 5)..=(4 << 5) {
            let x = Dyadic::new(num, 5).unwrap();
            // Birthday: |integer part| + (exponent) for non-integers, |n| for integers.
            let day = if x.is_integer() {
                x.numerator().unsigned_abs() as u32
            } else {
                let whole = if x.signum() > 0 { x.floor() } else { x.ceil() };
                whole.unsigned_abs() as u32 + 1 + x.exponent()
            };
            born.push((day, x));
        }
        born.sort_by_key(|&(day, _)| day);
        let grid: Vec<Dyadic> = (-(3 << 3)..=(3 << 3))
            .map(|n| Dyadic::new(n, 3).unwrap())
            .collect();
        for (i, &l) in grid.iter().enumerate() {
            for &h in &grid[i + 1..] {
                let first_day = born.iter().find(|&&(_, x)| x > l && x < h).unwrap().0;
                let simplest: Vec<Dyadic> = born
                    .iter()
                    .filter(|&&(day, x)| day == first_day && x > l && x < h)
                    .map(|&(_, x)| x)
                    .collect();
                assert_eq!(simplest.len(), 1, "({l}, {h})");
                assert_eq!(
                    simplest_between(Some(l), Some(h)),
                    Some(simplest[0]),
                    "({l}, {h})"
                );
            }
        }
    }

    #[test]
    fn mex_and_game_values() {
        assert_eq!(mex([]), 0);
        assert_eq!(mex([0, 1, 3]), 2);
        assert_eq!(mex([1, 2]), 0);
        assert_eq!(mex([2, 0, 1, 1]), 3);
        let g = |x: &str, n| GameValue {
            number: d(x),
            nimber: n,
        };
        assert_eq!(g("0", 0).to_string(), "0");
        assert_eq!(g("0", 1).to_string(), "*");
        assert_eq!(g("0", 3).to_string(), "*3");
        assert_eq!(g("1/2", 1).to_string(), "1/2*");
        assert_eq!(g("-1", 2).to_string(), "-1*2");
        assert_eq!(g("1/2", 3).checked_add(g("1/4", 1)), Some(g("3/4", 2)));
        assert_eq!(g("0", 0).outcome(), 'P');
        assert_eq!(g("0", 2).outcome(), 'N');
        assert_eq!(g("-1/8", 2).outcome(), 'R');
        assert_eq!(g("1/8", 0).outcome(), 'L');
    }
}
