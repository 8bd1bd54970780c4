//! SplitMix64 (Steele, Lea and Flood): the crate's one small deterministic generator, and the
//! 64-bit mixer behind it for hashing a counter into a random-looking index. Everything random in
//! retrodb (sampled positions, random inputs, test data) is drawn from here, so the draws are the
//! same on every machine and every version of the crate.
//!
//! The invariant: the constants and the order of the steps are fixed; changing them changes
//! which positions `verify --sample` and `verify --lehman` check for a given seed, and every
//! random graph or tree made from a seed.

/// The golden-ratio increment of the generator's state.
pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The finaliser: every bit of `z` mixed into every bit of the result.
#[inline]
pub fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator's next output from state `x`: a well-mixed 64-bit hash of a counter.
#[inline]
pub fn hash(x: u64) -> u64 {
    mix(x.wrapping_add(GAMMA))
}

/// The generator: `SplitMix64(seed)`, then [`SplitMix64::next_u64`] or [`SplitMix64::below`].
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        let out = hash(self.0);
        self.0 = self.0.wrapping_add(GAMMA);
        out
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_outputs() {
        // The first outputs of SplitMix64 seeded with 0 (the published reference values).
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
        assert_eq!(hash(GAMMA), 0x6E78_9E6A_A1B9_65F4);
    }
}
