//! The table file header: its byte layout, encoding and checked decoding.
//!
//! `docs/FORMAT.md` is the specification; this module is its one implementation. Decoding never
//! trusts a field: every offset and length is checked against the file before use, so a damaged
//! or foreign file is an error, never a panic or a wrong answer.

use crate::base::error::table::{Checked, TableErrorKind};
use crate::base::error::{Error, Result};
use crate::games::Source;

pub const MAGIC: [u8; 8] = *b"RETRODB\0";
/// The newest version this crate writes. Version 1 (read too) always recorded rounds; version 2
/// records them only where the build followed remoteness (all-ones otherwise); version 3 holds a
/// sliced index's rows in increasing low configuration (docs/SLICES.md). A table is written in
/// the oldest version that describes it ([`version_for`]), so tables of other games stay byte
/// for byte what version 2 wrote; version 4 adds a compressed table's zstd dictionary
/// ([`DICTIONARY_VERSION`]), version 5 remoteness in half a byte ([`NIBBLE_VERSION`]),
/// version 6 the generalized Sprague-Grundy values ([`GRUNDY_VERSION`]), version 7 a zstd
/// dictionary for a compressed table's remoteness ([`REMOTENESS_DICTIONARY_VERSION`]).
pub const VERSION: u32 = 7;
/// The first version whose compressed tables may carry a second zstd dictionary, for the
/// remoteness stream: its header has [`REMOTENESS_DICTIONARY_FIELDS`] more bytes, last before
/// the header's checksum; only tables with one are written in it, and every table of it has one.
pub const REMOTENESS_DICTIONARY_VERSION: u32 = 7;
/// Bytes of the header's remoteness dictionary fields: its length (u32), 4 reserved bytes.
pub const REMOTENESS_DICTIONARY_FIELDS: u64 = 8;
/// The first version whose tables may hold generalized Sprague-Grundy values: its header has
/// [`GRUNDY_FIELDS`] more bytes, after the embedded input; only tables with the values are
/// written in it, and every table of it has them.
pub const GRUNDY_VERSION: u32 = 6;
/// Bytes of the header's generalized Sprague-Grundy fields ([`GrundyFields`]).
pub const GRUNDY_FIELDS: u64 = 48;
/// The first version whose remoteness may be stored in half a byte a position
/// ([`RemotenessEncoding::Nibbles`]); only tables with it are written in it.
pub const NIBBLE_VERSION: u32 = 5;
/// The first version whose compressed tables may carry a zstd dictionary (its length in header
/// bytes 164..168, reserved before); only tables with one are written in it.
pub const DICTIONARY_VERSION: u32 = 4;
/// The first version whose sliced rows are in increasing low configuration; tables of the sliced
/// index written before it are refused ([`TableErrorKind::RowOrder`]).
pub const ROW_ORDER_VERSION: u32 = 3;
/// The oldest version this crate reads.
pub const OLDEST_VERSION: u32 = 1;
/// The rounds field's value for "not recorded" (version 2).
const NO_ROUNDS: u32 = u32::MAX;
/// Bytes of the header before the variable-length game spec.
pub const FIXED: usize = 168;
/// Sections start on page boundaries so they can be memory-mapped on their own.
pub const PAGE: u64 = 4096;
/// Default bytes per checksummed block of a section.
pub const BLOCK: u32 = 64 << 10;

/// How the value cells are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// 2-bit cells, 4 to a byte, little-endian within the byte.
    Raw = 0,
    /// The same bytes cut into frames of `frame_positions` positions, each an independent zstd
    /// frame, followed by a zstd seekable-format seek table.
    Zstd = 1,
    /// As `Zstd`, but the positions the game marks omissible (cell games: Right to move) are
    /// left out: their cells hold a filler, and a lookup answers them by a one-move search over
    /// their children, which are all stored ([`crate::game::Omissions::omissible_run`]).
    ZstdOmitted = 2,
}

impl Encoding {
    /// Whether the cells are zstd frames.
    pub fn is_zstd(self) -> bool {
        matches!(self, Encoding::Zstd | Encoding::ZstdOmitted)
    }
}

/// Where the game's input file lives relative to the table.
#[derive(Clone, Debug)]
pub enum SourceRef {
    /// The game needs no input file (`hex:4`).
    None,
    /// The input's bytes are in the header at `offset..offset + source.len`.
    Embedded { source: Source, offset: u64 },
    /// The input is read from `source.name` and must still have its length and hash.
    Referenced(Source),
}

/// A section of the file: a byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Section {
    pub offset: u64,
    pub len: u64,
}

impl Section {
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
    pub fn blocks(&self, block: u64) -> u64 {
        self.len.div_ceil(block)
    }
}

/// Where a table keeps its generalized Sprague-Grundy values, and their shape (docs/FORMAT.md,
/// "Generalized Sprague-Grundy values").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrundyFields {
    /// One code of `width` bytes a position (raw), or a zstd stream of them (compressed).
    pub values: Section,
    /// The reach sets, `set_count` of [`crate::base::grundy::words_per_set`]`(finite)` 64-bit words
    /// each, in both encodings.
    pub sets: Section,
    /// The number of finite values (the largest plus one; 0 when no position has one).
    pub finite: u32,
    /// Bytes of a code: 1, 2 or 4.
    pub width: u8,
    pub set_count: u64,
}

impl GrundyFields {
    /// Bytes of the reach sets.
    pub fn sets_len(finite: u32, set_count: u64) -> u64 {
        set_count.saturating_mul(crate::base::grundy::words_per_set(finite) as u64 * 8)
    }

    /// The narrowest width whose all-ones code (an unused index) lies above every value's code.
    pub fn width_for(finite: u32, set_count: u64) -> u8 {
        match finite as u64 + set_count {
            n if n < 0xFF => 1,
            n if n < 0xFFFF => 2,
            _ => 4,
        }
    }

    /// The fields as a header holds them at byte `g` of `bytes` (after the embedded input).
    fn decode(bytes: &[u8], g: usize) -> std::result::Result<GrundyFields, TableErrorKind> {
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let section = |o: usize| Section {
            offset: u64_at(o),
            len: u64_at(o + 8),
        };
        let width = bytes[g + 36];
        if ![1, 2, 4].contains(&width) {
            return Err(TableErrorKind::Damaged(format!(
                "bad generalized Sprague-Grundy code width {width}"
            )));
        }
        Ok(GrundyFields {
            values: section(g),
            sets: section(g + 16),
            finite: u32_at(g + 32),
            width,
            set_count: u64_at(g + 40),
        })
    }
}

impl SourceRef {
    /// The input a header of source kind `kind` describes, for a game input called `name`:
    /// embedded right after the spec (`spec_len` bytes from the fixed fields) or referred to.
    fn decode(
        kind: u8,
        name: String,
        spec_len: u64,
        embedded_len: u64,
        src_len: u64,
        src_hash: u64,
    ) -> std::result::Result<SourceRef, TableErrorKind> {
        Ok(match kind {
            0 => SourceRef::None,
            1 => SourceRef::Embedded {
                source: Source {
                    name,
                    len: embedded_len,
                    hash: src_hash,
                    bytes: None,
                },
                offset: FIXED as u64 + spec_len,
            },
            2 => SourceRef::Referenced(Source {
                name,
                len: src_len,
                hash: src_hash,
                bytes: None,
            }),
            k => return Err(TableErrorKind::Damaged(format!("unknown source kind {k}"))),
        })
    }
}

#[derive(Clone, Debug)]
pub struct Header {
    /// The format version the file was written in (a header is always encoded in the version
    /// its spec needs, [`version_for`]).
    pub version: u32,
    pub header_len: u64,
    pub size: u64,
    pub encoding: Encoding,
    /// How the remoteness is stored (the header's remoteness width byte).
    pub remoteness_encoding: RemotenessEncoding,
    pub block: u32,
    /// `[unused, win, loss, draw]`.
    pub counts: [u64; 4],
    pub cells: Section,
    pub remoteness: Section,
    pub sums: Section,
    pub sums_hash: u64,
    /// Retrograde rounds (largest remoteness + 1), where the build followed remoteness.
    pub rounds: Option<u32>,
    /// Positions per zstd frame (compressed tables; 0 for raw).
    pub frame_positions: u64,
    /// The zstd level the frames were made with (compressed tables; 0 for raw).
    pub level: i32,
    /// A compressed table's zstd dictionary, right after the header (empty when none).
    pub dictionary: Section,
    /// A compressed table's zstd dictionary for the remoteness stream, right after the first
    /// (empty when none; version 7).
    pub remoteness_dictionary: Section,
    /// The generalized Sprague-Grundy values, in tables that have them (version 6).
    pub grundy: Option<GrundyFields>,
    pub spec: String,
    pub source: SourceRef,
}

/// The version a table of `spec` is written in: [`ROW_ORDER_VERSION`] for the sliced index
/// (`,sliced` and `,sym` specs), 2 for every other game.
pub fn version_for(spec: &str) -> u32 {
    let sliced = spec
        .split(',')
        .skip(1)
        .any(|option| option == "sliced" || option == "sym");
    if sliced { ROW_ORDER_VERSION } else { 2 }
}

pub fn align(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

impl Header {
    /// The header's length in bytes for a spec and an embedded input of these sizes, with or
    /// without the generalized Sprague-Grundy fields.
    pub fn len_for(spec: &str, embedded: u64, grundy: bool) -> u64 {
        FIXED as u64 + spec.len() as u64 + embedded + if grundy { GRUNDY_FIELDS } else { 0 } + 8
    }

    /// Encodes the header; `embedded` is the input file's bytes when the source is embedded.
    pub fn encode(&self, embedded: &[u8]) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.header_len as usize);
        b.extend_from_slice(&MAGIC);
        let version = if self.remoteness_dictionary.len > 0 {
            REMOTENESS_DICTIONARY_VERSION
        } else if self.grundy.is_some() {
            GRUNDY_VERSION
        } else if self.remoteness_encoding == RemotenessEncoding::Nibbles {
            NIBBLE_VERSION
        } else if self.dictionary.len > 0 {
            DICTIONARY_VERSION
        } else {
            version_for(&self.spec)
        };
        b.extend_from_slice(&version.to_le_bytes());
        b.extend_from_slice(&(self.header_len as u32).to_le_bytes());
        b.extend_from_slice(&self.size.to_le_bytes());
        b.push(self.encoding as u8);
        b.push(self.remoteness_encoding.header_byte());
        let (kind, src) = match &self.source {
            SourceRef::None => (0u8, None),
            SourceRef::Embedded { source, .. } => (1, Some(source)),
            SourceRef::Referenced(source) => (2, Some(source)),
        };
        b.push(kind);
        b.push(0);
        b.extend_from_slice(&self.block.to_le_bytes());
        for c in self.counts {
            b.extend_from_slice(&c.to_le_bytes());
        }
        for s in [self.cells, self.remoteness, self.sums] {
            b.extend_from_slice(&s.offset.to_le_bytes());
            b.extend_from_slice(&s.len.to_le_bytes());
        }
        b.extend_from_slice(&self.sums_hash.to_le_bytes());
        b.extend_from_slice(&self.rounds.unwrap_or(NO_ROUNDS).to_le_bytes());
        b.extend_from_slice(&(self.spec.len() as u32).to_le_bytes());
        let embedded_len = if kind == 1 { embedded.len() as u64 } else { 0 };
        b.extend_from_slice(&embedded_len.to_le_bytes());
        b.extend_from_slice(&src.map_or(0, |s| s.len).to_le_bytes());
        b.extend_from_slice(&src.map_or(0, |s| s.hash).to_le_bytes());
        b.extend_from_slice(&self.frame_positions.to_le_bytes());
        b.extend_from_slice(&self.level.to_le_bytes());
        b.extend_from_slice(&(self.dictionary.len as u32).to_le_bytes());
        debug_assert_eq!(b.len(), FIXED);
        b.extend_from_slice(self.spec.as_bytes());
        if kind == 1 {
            b.extend_from_slice(embedded);
        }
        if let Some(g) = &self.grundy {
            for s in [g.values, g.sets] {
                b.extend_from_slice(&s.offset.to_le_bytes());
                b.extend_from_slice(&s.len.to_le_bytes());
            }
            b.extend_from_slice(&g.finite.to_le_bytes());
            b.extend_from_slice(&[g.width, 0, 0, 0]);
            b.extend_from_slice(&g.set_count.to_le_bytes());
        }
        if self.remoteness_dictionary.len > 0 {
            b.extend_from_slice(&(self.remoteness_dictionary.len as u32).to_le_bytes());
            b.extend_from_slice(&[0; 4]);
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        debug_assert_eq!(b.len() as u64, self.header_len);
        b
    }

    /// Decodes and checks the header of a file of `file_len` bytes whose start is `bytes`.
    pub fn decode(path: &std::path::Path, bytes: &[u8], file_len: u64) -> Result<Header> {
        let fail = |kind: TableErrorKind| Error::table_kind(path, kind);
        let bad = |msg: String| fail(TableErrorKind::Damaged(msg));
        let (version, header_len) = Header::check_prefix(bytes).map_err(fail)?;
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let size = u64_at(16);
        let encoding = match bytes[24] {
            0 => Encoding::Raw,
            1 => Encoding::Zstd,
            2 => Encoding::ZstdOmitted,
            e => return Err(bad(format!("unknown payload encoding {e}"))),
        };
        let Some(remoteness_encoding) = RemotenessEncoding::from_header_byte(bytes[25], version)
        else {
            return Err(bad(format!("bad remoteness width {}", bytes[25])));
        };
        let block = u32_at(28);
        if block == 0 || block % 8 != 0 {
            return Err(bad(format!("bad checksum block size {block}")));
        }
        let counts = [u64_at(32), u64_at(40), u64_at(48), u64_at(56)];
        let section = |o: usize| Section {
            offset: u64_at(o),
            len: u64_at(o + 8),
        };
        let (cells, remoteness, sums) = (section(64), section(80), section(96));
        let sums_hash = u64_at(112);
        let rounds = Some(u32_at(120)).filter(|&r| version == 1 || r != NO_ROUNDS);
        let spec_len = u32_at(124) as u64;
        let embedded_len = u64_at(128);
        let src_len = u64_at(136);
        let src_hash = u64_at(144);
        let frame_positions = u64_at(152);
        let level = u32_at(160) as i32;
        let (dictionary_len, rem_dict_len, grundy) =
            Header::optional_fields(bytes, version, header_len, spec_len, embedded_len)
                .map_err(fail)?;
        let spec = std::str::from_utf8(&bytes[FIXED..FIXED + spec_len as usize])
            .map_err(|_| bad("game spec is not UTF-8".into()))?
            .to_string();
        if version < version_for(&spec) {
            return Err(fail(TableErrorKind::RowOrder {
                got: version,
                changed: ROW_ORDER_VERSION,
            }));
        }
        let name = spec.split_once(':').map_or("", |(_, a)| a).to_string();
        let source = SourceRef::decode(bytes[26], name, spec_len, embedded_len, src_len, src_hash)
            .map_err(fail)?;
        let header = Header {
            version,
            header_len,
            size,
            encoding,
            remoteness_encoding,
            block,
            counts,
            cells,
            remoteness,
            sums,
            sums_hash,
            rounds,
            frame_positions,
            level,
            dictionary: Section {
                offset: if dictionary_len > 0 { header_len } else { 0 },
                len: dictionary_len,
            },
            remoteness_dictionary: Section {
                offset: if rem_dict_len > 0 {
                    header_len + dictionary_len
                } else {
                    0
                },
                len: rem_dict_len,
            },
            grundy,
            spec,
            source,
        };
        header.check_layout(file_len).map_err(fail)?;
        Ok(header)
    }

    /// The fields after the fixed ones whose presence the version and the header's length tell:
    /// the dictionaries' lengths (0 for none) and the generalized Sprague-Grundy fields.
    fn optional_fields(
        bytes: &[u8],
        version: u32,
        header_len: u64,
        spec_len: u64,
        embedded_len: u64,
    ) -> std::result::Result<(u64, u64, Option<GrundyFields>), TableErrorKind> {
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        // Bytes 164..168 are a dictionary's length in a compressed table of version 4 or later,
        // and reserved (unused, checked by `verify`) in every other table.
        let dictionary_len = if version >= DICTIONARY_VERSION && bytes[24] != 0 {
            u32_at(164) as u64
        } else {
            0
        };
        // Version 7's remoteness dictionary fields are the header's last before its checksum.
        let rem_dict_fields = if version >= REMOTENESS_DICTIONARY_VERSION {
            if bytes[24] == 0 {
                return Err(TableErrorKind::Damaged(format!(
                    "a raw table of version {version}"
                )));
            }
            REMOTENESS_DICTIONARY_FIELDS
        } else {
            0
        };
        let Some(base) = (FIXED as u64 + 8 + rem_dict_fields)
            .checked_add(spec_len)
            .and_then(|n| n.checked_add(embedded_len))
        else {
            return Err(TableErrorKind::Damaged("header lengths disagree".into()));
        };
        // Version 6 tables all have the Sprague-Grundy fields; version 7 tables when the
        // header's length leaves room for them.
        let grundy_len = match version {
            GRUNDY_VERSION => GRUNDY_FIELDS,
            v if v >= REMOTENESS_DICTIONARY_VERSION && header_len == base + GRUNDY_FIELDS => {
                GRUNDY_FIELDS
            }
            _ => 0,
        };
        if base + grundy_len != header_len {
            return Err(TableErrorKind::Damaged("header lengths disagree".into()));
        }
        let rem_dict_len = if rem_dict_fields > 0 {
            let len = u32_at(header_len as usize - 16) as u64;
            if len == 0 {
                return Err(TableErrorKind::Damaged(format!(
                    "a table of version {version} without a remoteness dictionary"
                )));
            }
            len
        } else {
            0
        };
        // The generalized Sprague-Grundy fields follow the embedded input.
        let grundy = if grundy_len > 0 {
            let g = (FIXED as u64 + spec_len + embedded_len) as usize;
            Some(GrundyFields::decode(bytes, g)?)
        } else {
            None
        };
        Ok((dictionary_len, rem_dict_len, grundy))
    }
}

mod checks;
mod remoteness;
pub use remoteness::{
    RemotenessEncoding, bytes_of_engine, get_remoteness, nibble_of, nibbles_of_engine,
    put_remoteness, remoteness_bytes, remoteness_of_nibble, remoteness_width,
};

#[cfg(test)]
mod tests;
