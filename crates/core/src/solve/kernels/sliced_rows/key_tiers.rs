//! The key tiers of a sliced board in the order a solve decides them, fullest first, and the
//! tiers (filled cells) each one completes, for the solve's reports and checkpoints.

use crate::game::shape::sliced::Sliced;
use crate::solve::finished::{FinishedTiers, TierDone};

/// The positions of key tier `k`.
pub(crate) fn key_tier_len(s: &Sliced, k: usize) -> u64 {
    let cells = key_tier_cells(s, k);
    cells.end - cells.start
}

/// The cells of key tier `k` (its rows are contiguous; empty past the last tier).
pub(crate) fn key_tier_cells(s: &Sliced, k: usize) -> std::ops::Range<u64> {
    s.tier_rows.get(k).map_or(0..0, |r| {
        let rows = &s.rows[r.clone()];
        match (rows.first(), rows.last()) {
            (Some(a), Some(b)) => a.start..b.start + b.len as u64,
            _ => 0..0,
        }
    })
}

/// The key tiers a solve from `done_from` decides and the tiers it reports as they complete;
/// the single-process solve and the one across ranks (`crate::solve::distributed::sliced`) share it, so
/// both report the same tiers with the same positions.
pub(crate) struct KeyTiers {
    /// The fullest key tier left (-1 when none is).
    pub first_key: i64,
    /// Positions of the key tiers left.
    pub todo: u64,
    /// A resumed solve: the first index of the rows to clear before deciding them again.
    pub clear_from: Option<u64>,
    /// The tiers (filled cells) reported so far.
    reported: FinishedTiers,
    low: u32,
}

impl KeyTiers {
    /// The plan of a solve of the tiers below `done_from` (the tier count for a fresh solve).
    ///
    /// A resumed solve starts at the key tier below the last complete one: tier `done_from`
    /// complete means every key tier from `done_from - low cells` up is, and the rows below (a
    /// contiguous end of the table, as rows are stored fullest key tier first) are cleared
    /// first, since an interrupted run may have written some of them.
    pub fn new(s: &Sliced, done_from: u32) -> KeyTiers {
        let lw = s.low_digits();
        let hw = s.key_digits();
        let tiers = s.tier_sizes.len() as u32;
        let done_from = done_from.min(tiers);
        // The key tiers left: those below `done_from - lw` (all of them for a fresh solve).
        let first_key = if done_from == tiers {
            hw as i64
        } else {
            done_from as i64 - lw as i64 - 1
        };
        let todo: u64 = (0..=first_key.max(-1))
            .filter(|&k| k >= 0)
            .map(|k| key_tier_len(s, k as usize))
            .sum();
        let clear_from = (done_from < tiers && first_key >= 0).then(|| {
            s.rows[s.tier_rows[first_key as usize].clone()]
                .first()
                .map_or(s.size(), |r| r.start)
        });
        KeyTiers {
            first_key,
            todo,
            clear_from,
            reported: FinishedTiers::below(done_from),
            low: lw,
        }
    }

    /// Reports to `after` the tiers that key tier `k`, just decided, completes: tier `t` is
    /// complete when key tier `t - low cells` is (every key tier for the tiers below), and the
    /// first tier a key tier completes reports that key tier's positions (the others none).
    /// `false` when `after` stopped the solve.
    pub fn finished(
        &mut self,
        s: &Sliced,
        k: u32,
        after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
    ) -> crate::Result<bool> {
        let complete = if k == 0 { 0 } else { k + self.low };
        let mut positions = key_tier_len(s, k as usize);
        let first_gets_all = |_| std::mem::take(&mut positions);
        self.reported
            .complete_from(complete, first_gets_all, None, &[], after)
    }

    /// Reports the tiers a resumed solve found complete beyond its checkpoint (all but
    /// reported), once every key tier is decided.
    pub fn rest(
        &mut self,
        after: &mut impl FnMut(TierDone<'_>) -> crate::Result<bool>,
    ) -> crate::Result<()> {
        // All are complete whatever `after` answers: it is asked again after a stop.
        while !self.reported.complete_from(0, |_| 0, None, &[], after)? {}
        Ok(())
    }
}
