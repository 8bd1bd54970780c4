//! The row kernel with remoteness: its AVX2 packing of scores against the decoding table.

use super::*;

/// The scores a nibble holds: a win's remoteness up to 30, a loss's up to 31.
fn held() -> Vec<u8> {
    (1..=31u8).chain(224..=255).collect()
}

/// The vectors' cells, nibbles and largest remoteness are [`DECODE`]'s, for every score a
/// position has, in lanes of every cell and nibble word place.
#[cfg(target_arch = "x86_64")]
#[test]
fn packed_scores_decode_as_the_table() {
    if !crate::base::cpu::v3() {
        return;
    }
    // Three cell words of scores: every score, each at a lane that moves from word to word.
    let held = held();
    let scores: Vec<u8> = (0..96).map(|i| held[(i * 37) % held.len()]).collect();
    for words in [1, 3] {
        let scores = &scores[..32 * words];
        let (mut cells, mut nibbles) = (vec![0u64; words], vec![0u64; 2 * words]);
        // SAFETY: the CPU has AVX2 (v3); the lengths are as asked.
        let most = unsafe { pack_scores(scores, &mut cells, &mut nibbles) };
        let (mut want_cells, mut want_nibbles, mut want_most) =
            (vec![0u64; words], vec![0u64; 2 * words], 0u8);
        for (q, &score) in scores.iter().enumerate() {
            let (code, n, r) = DECODE[score as usize];
            want_cells[q / 32] |= (code as u64) << (2 * (q % 32));
            want_nibbles[q / 16] |= (n as u64) << (4 * (q % 16));
            want_most = want_most.max(r);
        }
        assert_eq!(cells, want_cells);
        assert_eq!(nibbles, want_nibbles);
        assert_eq!(most, want_most);
    }
    // Every score in the first lane too, its neighbours won at once.
    for score in held {
        let mut v = [1u8; 32];
        v[0] = score;
        let (mut c, mut n) = ([0u64; 1], [0u64; 2]);
        // SAFETY: as above.
        let most = unsafe { pack_scores(&v, &mut c, &mut n) };
        let (code, nib, r) = DECODE[score as usize];
        assert_eq!(c[0] & 3, code as u64, "{score}");
        assert_eq!(n[0] & 15, nib as u64, "{score}");
        assert_eq!(most, r, "{score}");
    }
}
