//! What the tiered engine's kernels share: the report of a finished tier ([`TierDone`]), the one
//! place that reports them (`FinishedTiers`), the remoteness bytes a solve keeps
//! ([`AnonBytes`]) and what a finished solve hands the table writer ([`Solved`]). The kernels
//! (`tiered`'s per-position one, [`super::kernels::bitplane`], [`super::kernels::sliced_rows`], [`super::kernels::sliced_remoteness`],
//! `plain_remoteness`) import these from here, and [`super::tiered`] dispatches to them: no kernel
//! imports the dispatcher.

use std::sync::atomic::AtomicU8;

use super::SolveStats;

/// A finished tier, as [`super::tiered::solve_tiers`] reports it.
pub struct TierDone<'a> {
    pub tier: u32,
    /// The rounds figure of the tiers finished so far (solves with remoteness only).
    pub rounds: Option<u32>,
    /// Positions the tier listed.
    pub positions: u64,
    /// What a later call needs to resume below this tier: every index's remoteness byte as the
    /// engine keeps it ([`crate::base::remoteness::ENGINE_NONE`] for none); empty for a values-only solve.
    pub remoteness: &'a [AtomicU8],
}

/// The tiers a solve has finished, reported to its `after` callback highest first, each once:
/// the one place where every kernel reports them. A kernel says, as its work allows (a tier, a
/// level of rows, a key tier at a time), that every tier from some tier up is complete.
pub(crate) struct FinishedTiers {
    /// The next tier to report (-1 once tier 0 is).
    next: i64,
}

impl FinishedTiers {
    /// For a solve of the tiers below `done_from` (the tier count for a fresh solve).
    pub fn below(done_from: u32) -> FinishedTiers {
        FinishedTiers {
            next: i64::from(done_from) - 1,
        }
    }

    /// Every tier from `from` up is complete: reports those not reported yet, highest first,
    /// tier `t` with `positions(t)` positions and the `rounds` and `remoteness` given. `false`
    /// when `after` stopped the solve after a tier above 0 (the tiers below it stay to report
    /// on the next call).
    pub fn complete_from(
        &mut self,
        from: u32,
        mut positions: impl FnMut(u32) -> u64,
        rounds: Option<u32>,
        remoteness: &[AtomicU8],
        after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
    ) -> crate::Result<bool> {
        while self.next >= i64::from(from) {
            let tier = self.next as u32;
            self.next -= 1;
            let go_on = after(TierDone {
                tier,
                rounds,
                positions: positions(tier),
                remoteness,
            })?;
            if !go_on && tier > 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Zeroed anonymous memory for remoteness bytes: reserved, not committed (pages appear when
/// first written), with huge pages advised. Page faults on a file mapping serialised the two
/// threads in the first tiers, which touch every page.
///
/// The map is held as an [`memmap2::MmapRaw`]: the solver's threads write through atomics made
/// from its raw pointer while only `&self` is shared, which a `&[u8]` from an `MmapMut` would
/// not allow.
pub struct AnonBytes {
    map: Option<memmap2::MmapRaw>,
}

impl AnonBytes {
    pub(crate) fn new(len: u64) -> std::io::Result<AnonBytes> {
        if len == 0 {
            return Ok(AnonBytes { map: None });
        }
        let len = usize::try_from(len).map_err(std::io::Error::other)?;
        let map = memmap2::MmapOptions::new()
            .len(len)
            .no_reserve_swap()
            .map_anon()?;
        // Advice only: without transparent huge pages the map works the same.
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(AnonBytes {
            map: Some(map.into()),
        })
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn bytes(&self) -> &[u8] {
        let Some(map) = &self.map else { return &[] };
        // SAFETY: the map is `map.len()` readable bytes, alive as long as `self`; writes go
        // through `atomics` (whose slices borrow `self` too, so they end before any `&mut self`)
        // and none happen while the solve reads plain bytes (after its last tier).
        unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) }
    }

    /// The bytes of `range` as plain bytes while the solve goes on elsewhere.
    ///
    /// # Safety
    ///
    /// No thread may write a byte of `range` while the slice lives (the solve is done with
    /// them: `super::kernels::plain_remoteness::final_tiers`), and the writes made before must happen before
    /// this call (a channel's message or a join orders them).
    pub unsafe fn final_range(&self, range: std::ops::Range<usize>) -> &[u8] {
        let Some(map) = &self.map else { return &[] };
        assert!(range.start <= range.end && range.end <= map.len());
        // SAFETY: inside the map (checked above), which lives as long as `self`; nobody writes
        // these bytes while the slice lives (the caller's promise).
        unsafe { std::slice::from_raw_parts(map.as_ptr().add(range.start), range.len()) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let Some(map) = &self.map else {
            return &mut [];
        };
        // SAFETY: as in `bytes`, and `&mut self` rules out every other slice of the map.
        unsafe { std::slice::from_raw_parts_mut(map.as_mut_ptr(), map.len()) }
    }

    /// Frees the memory of the whole pages inside bytes `range`: they read as zero after.
    pub(crate) fn discard(&self, range: std::ops::Range<usize>) {
        let Some(map) = &self.map else { return };
        let end = range.end.min(map.len());
        if range.start < end {
            let base = map.as_ptr() as usize;
            // SAFETY: inside the map, an anonymous mapping; the caller discards what no one
            // reads again.
            unsafe { crate::base::cells::drop_pages(base + range.start, base + end) }
        }
    }

    /// The bytes as atomic words (the map is page-aligned; its length a multiple of 8).
    pub(crate) fn words(&self) -> &[std::sync::atomic::AtomicU64] {
        let Some(map) = &self.map else { return &[] };
        // SAFETY: as in `atomics`.
        unsafe { crate::base::cells::mapped_atomics(map) }
    }

    /// The bytes as atomics, for the solver's threads.
    pub(super) fn atomics(&self) -> &[AtomicU8] {
        let Some(map) = &self.map else { return &[] };
        // SAFETY: the map is anonymous (no file, no other process), writable and lives as long
        // as `self`; a plain slice (`bytes`, `bytes_mut`) is only made where no atomic slice is
        // in use.
        unsafe { crate::base::cells::mapped_atomics(map) }
    }
}

/// What a finished tiered solve hands its caller: the stats and the remoteness as the kernel
/// held it.
pub struct Solved {
    pub stats: SolveStats,
    pub remoteness: Remoteness,
}

/// The remoteness of a finished tiered solve, as the kernel held it.
pub enum Remoteness {
    /// None kept (a values-only solve).
    None,
    /// A byte an index as the engine keeps it (`2 * (remoteness + 1) + lost`,
    /// [`crate::base::remoteness::ENGINE_NONE`] for none).
    EngineBytes(AnonBytes),
    /// A nibble an index, two a byte (the lower first), relative to the value: `r / 2` for a
    /// loss, `(r + 1) / 2` for a win, 0 for none; in anonymous memory.
    Nibbles(AnonBytes),
    /// Written to the caller's store as the kernel went
    /// ([`super::tiered::TierStores::nibbles`], [`super::tiered::TierStores::stream`]).
    InStore,
}
