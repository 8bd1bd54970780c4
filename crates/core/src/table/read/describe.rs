//! A table described as a whole: [`Info`] (`retrodb info`) and every position written out
//! (`retrodb dump`).

use std::io::{BufWriter, Write};

use serde::Serialize;

use super::Table;
use crate::base::error::{Error, Result};
use crate::game::Notation;
use crate::table::format::{Encoding, SourceRef};
use crate::with_game;

impl<B: AsRef<[u8]> + Sync> Table<B> {
    /// What `retrodb info --json` prints: the game, the layout, the value counts.
    pub fn info(&self) -> Info {
        let h = &self.header;
        let file_bytes = self.bytes().len() as u64;
        let [unused, win, loss, draw] = h.counts;
        let used = h.size.saturating_sub(unused);
        let (source, source_file) = match &h.source {
            SourceRef::None => ("none", None),
            SourceRef::Embedded { source, .. } => ("embedded", Some(source.name.clone())),
            SourceRef::Referenced(source) => ("referenced", Some(source.name.clone())),
        };
        Info {
            file: self.path.display().to_string(),
            game: h.spec.clone(),
            format_version: h.version,
            encoding: match h.encoding {
                Encoding::Raw => "raw",
                Encoding::Zstd => "zstd",
                Encoding::ZstdOmitted => "zstd-one-mover",
            },
            frame_positions: h.frame_positions,
            zstd_level: h.level,
            size: h.size,
            positions: used,
            win,
            loss,
            draw,
            unused,
            rounds: h.rounds,
            remoteness_bytes: h.remoteness_encoding.bytes_per_position(),
            file_bytes,
            bits_per_position: if used > 0 {
                file_bytes as f64 * 8.0 / used as f64
            } else {
                0.0
            },
            source,
            source_file,
            grundy: h.grundy.map(|g| GrundyInfo {
                largest_finite: g.finite.checked_sub(1),
                reach_sets: g.set_count,
                bytes_per_value: g.width,
            }),
        }
    }

    /// Writes every used position as `position<TAB>value[<TAB>remoteness]`, in index order.
    pub fn dump(&self, out: &mut dyn Write) -> Result<()> {
        let size = self.header.size;
        let mut w = BufWriter::with_capacity(1 << 16, out);
        let io = |e| Error::io("<stdout>", e);
        // Every row has the same columns: with remoteness, a draw's third column is `-`; the
        // generalized Sprague-Grundy value comes last, where the table has it.
        let rem = self.has_remoteness();
        let grundy = self.has_grundy();
        with_game!(&self.game, g => {
            for entry in self.used(0..size) {
                let (pos, v) = entry?;
                write!(w, "{}\t{v}", g.position_text(pos)).map_err(io)?;
                match self.remoteness(pos)? {
                    Some(r) => write!(w, "\t{r}"),
                    None if rem => write!(w, "\t-"),
                    None => Ok(()),
                }
                .map_err(io)?;
                if grundy {
                    match self.grundy(pos)? {
                        Some(x) => write!(w, "\t{x}"),
                        None => write!(w, "\t-"),
                    }
                    .map_err(io)?;
                }
                writeln!(w).map_err(io)?;
            }
            Ok::<(), Error>(())
        })?;
        w.flush().map_err(io)
    }
}

/// A table described as a whole ([`Table::info`]; `retrodb info --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Info {
    pub file: String,
    pub game: String,
    pub format_version: u32,
    /// `raw` or `zstd`.
    pub encoding: &'static str,
    /// Positions per compressed frame (0 for raw tables).
    pub frame_positions: u64,
    pub zstd_level: i32,
    /// Indices, used or not.
    pub size: u64,
    /// Used indices.
    pub positions: u64,
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    pub unused: u64,
    pub rounds: Option<u32>,
    /// Bytes a position's remoteness takes (0: the table has none; 0.5 for remoteness in
    /// half a byte, relative to the value).
    pub remoteness_bytes: f64,
    pub file_bytes: u64,
    /// The whole file's bits over the used positions.
    pub bits_per_position: f64,
    /// The game's input file: `none`, `embedded` or `referenced`.
    pub source: &'static str,
    pub source_file: Option<String>,
    /// The generalized Sprague-Grundy values, where the table holds them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grundy: Option<GrundyInfo>,
}

/// A table's generalized Sprague-Grundy values described ([`Info::grundy`]).
#[derive(Clone, Debug, Serialize)]
pub struct GrundyInfo {
    /// The largest finite value (`None` when every position is infinite).
    pub largest_finite: Option<u32>,
    /// Distinct reach sets of the infinite positions.
    pub reach_sets: u64,
    /// Bytes of a position's stored code.
    pub bytes_per_value: u8,
}
