//! A table's generalized Sprague-Grundy section (tables built with `--grundy`,
//! docs/SUMS.md): each position's code and the reachable-value sets of infinite values, read
//! and checked a block at a time like the cells.

use super::*;

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// Whether the table holds generalized Sprague-Grundy values (built with `--grundy`).
    pub fn has_grundy(&self) -> bool {
        self.header.grundy.is_some()
    }

    /// The error of asking values of a table that holds none.
    pub(in crate::table) fn no_grundy(&self) -> Error {
        Error::Lookup(LookupError::NoGrundy {
            path: self.path.display().to_string(),
            spec: self.header.spec.clone(),
            impartial: with_game!(&self.game, g => g.impartial()),
        })
    }

    /// Checks the raw block of a generalized Sprague-Grundy section that holds byte `at` of it
    /// (once); `first_block` is the section's first block in the checksum list.
    fn check_grundy_block(
        &self,
        section: crate::table::format::Section,
        first_block: u64,
        at: u64,
    ) -> Result<()> {
        let checked = self.grundy_blocks.check_block(
            self.bytes(),
            &self.header,
            &self.sums,
            (section, first_block),
            at,
        );
        self.intact()?;
        checked.map_err(|k| self.fail(k))
    }

    /// The stored generalized Sprague-Grundy code of position `pos` (below the size):
    /// [`crate::base::grundy::Labels`]'s codes, an unused index's `u32::MAX`.
    pub(crate) fn grundy_code(&self, pos: u64) -> Result<u32> {
        let g = self.header.grundy.ok_or_else(|| self.no_grundy())?;
        if pos >= self.header.size {
            return Err(self.out_of_range(pos));
        }
        let w = g.width as usize;
        let mut b = [0u8; 4];
        match self.payload.frames() {
            None => {
                let at = pos * w as u64;
                self.check_grundy_block(g.values, self.header.grundy_sums().0, at)?;
                let from = (g.values.offset + at) as usize;
                b[..w].copy_from_slice(&self.bytes()[from..from + w]);
            }
            Some(ZstdFrames { grundy, cache, .. }) => {
                let stream = grundy
                    .as_ref()
                    .expect("Sprague-Grundy fields mean a stream");
                let f = self.header.frame_positions;
                let k = (pos / f) as usize;
                let i = ((pos % f) * w as u64) as usize;
                let frames = self.frame_count();
                let first = self.header.grundy_sums().0 as usize;
                cache
                    .with(
                        (2 * frames + k) as u64,
                        || self.decode(stream, first, k),
                        |d| b[..w].copy_from_slice(&d[i..i + w]),
                    )
                    .map_err(|k| self.fail(k))?;
            }
        }
        self.intact()?;
        let code = u32::from_le_bytes(b);
        let all_ones = if w == 4 { u32::MAX } else { (1 << (8 * w)) - 1 };
        Ok(if code == all_ones {
            crate::base::grundy::Labels::UNUSED
        } else {
            code
        })
    }

    /// Reach set `id`'s values, from checked bytes.
    pub(crate) fn grundy_set(&self, id: u64) -> Result<Vec<u32>> {
        let g = self.header.grundy.ok_or_else(|| self.no_grundy())?;
        if id >= g.set_count {
            return Err(self.fail(TableErrorKind::Damaged(format!(
                "a Sprague-Grundy code names reach set {id}; the table has {}",
                g.set_count
            ))));
        }
        let len = crate::base::grundy::words_per_set(g.finite) as u64 * 8;
        let (from, to) = (id * len, (id + 1) * len);
        let block = self.header.block as u64;
        let first = self.header.grundy_sums().1;
        let mut at = from / block * block;
        while at < to {
            self.check_grundy_block(g.sets, first, at)?;
            at += block;
        }
        let bytes = &self.bytes()[(g.sets.offset + from) as usize..(g.sets.offset + to) as usize];
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        self.intact()?;
        Ok(crate::base::grundy::set_members(&words))
    }

    /// The generalized Sprague-Grundy codes of positions `first..first + n` of a raw table as
    /// stored, each block they touch checked first.
    pub(crate) fn raw_grundy_codes(&self, first: u64, n: u64) -> Result<&[u8]> {
        let g = self.header.grundy.ok_or_else(|| self.no_grundy())?;
        if self.is_compressed() || first + n > self.header.size {
            return Err(self.raw_refused("Sprague-Grundy codes", first, n));
        }
        let w = g.width as u64;
        let (from, to) = (first * w, (first + n) * w);
        let block = self.header.block as u64;
        let mut at = from / block * block;
        while at < to {
            self.check_grundy_block(g.values, self.header.grundy_sums().0, at)?;
            at += block;
        }
        Ok(&self.bytes()[(g.values.offset + from) as usize..(g.values.offset + to) as usize])
    }

    /// The whole reach sets section, every block checked.
    pub(crate) fn grundy_sets_bytes(&self) -> Result<&[u8]> {
        let g = self.header.grundy.ok_or_else(|| self.no_grundy())?;
        let block = self.header.block as u64;
        let mut at = 0;
        while at < g.sets.len {
            self.check_grundy_block(g.sets, self.header.grundy_sums().1, at)?;
            at += block;
        }
        Ok(&self.bytes()[g.sets.offset as usize..g.sets.end() as usize])
    }

    /// The generalized Sprague-Grundy value of a position (`None` for an unused index); an
    /// error for a table without the values.
    pub fn grundy(&self, pos: u64) -> Result<Option<crate::base::grundy::Grundy>> {
        let g = self.header.grundy.ok_or_else(|| self.no_grundy())?;
        let code = self.grundy_code(pos)?;
        Ok(if code == crate::base::grundy::Labels::UNUSED {
            None
        } else if code < g.finite {
            Some(crate::base::grundy::Grundy::Finite(code))
        } else {
            Some(crate::base::grundy::Grundy::Infinite(
                self.grundy_set((code - g.finite) as u64)?,
            ))
        })
    }
}
