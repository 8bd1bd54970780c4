//! The payload readers of a table, over plain `&[u8]` (a memory map, a `Vec`, a slice): raw
//! blocks checked against their checksums once each, compressed frames checked and decoded
//! through a cache, and the checks of the bytes no checksum covers.
//!
//! Invariant: no byte of the payload reaches a caller before the checksum that covers it has
//! matched — a raw block on first use (remembered in a bit), a compressed frame on every decode.

use std::sync::atomic::{AtomicU64, Ordering};

use super::format::{Header, Section};
use super::zstd::{FrameCache, Stream, decompress_frame};
use crate::base::error::table::{Checked, TableErrorKind};

/// How the cells and remoteness are stored.
pub(super) enum Payload {
    Raw(RawBlocks),
    Zstd(ZstdFrames),
}

/// A raw payload: which checksum blocks have been seen to match.
pub(super) struct RawBlocks {
    /// One bit per checksum block: set once the block has been seen to match.
    verified: Vec<AtomicU64>,
}

impl RawBlocks {
    pub fn new(blocks: usize) -> RawBlocks {
        RawBlocks {
            verified: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// Checks the block that holds byte `at` of `section` (once); `first_block` is the index of
    /// the section's first block in the checksum list `sums`.
    pub fn check_block(
        &self,
        bytes: &[u8],
        header: &Header,
        sums: &[u64],
        (section, first_block): (Section, u64),
        at: u64,
    ) -> Result<(), TableErrorKind> {
        let block = header.block as u64;
        let k = first_block + at / block;
        let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
        if self.verified[word].load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = section.offset + (at / block) * block;
        let end = (start + block).min(section.end());
        let hash = xxhash_rust::xxh3::xxh3_64(&bytes[start as usize..end as usize]);
        if hash != sums[k as usize] {
            return Err(TableErrorKind::Checksum {
                section: Checked::Blocks,
                block: Some(k),
            });
        }
        self.verified[word].fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }
}

/// A compressed payload: the cells' stream of frames, the remoteness' if stored, the zstd
/// dictionary the frames were made with if any, and a cache of decoded frames.
pub(super) struct ZstdFrames {
    pub cells: Stream,
    pub remoteness: Option<Stream>,
    /// The generalized Sprague-Grundy codes, where the table has them.
    pub grundy: Option<Stream>,
    pub dictionary: Option<zstd::zstd_safe::DDict<'static>>,
    pub cache: FrameCache,
}

impl ZstdFrames {
    /// Parses the streams of a compressed table and checks their seek tables.
    pub fn open(
        bytes: &[u8],
        header: &Header,
        sums: &[u64],
        cache_bytes: u64,
    ) -> Result<ZstdFrames, TableErrorKind> {
        let f = header.frame_positions;
        let size = header.size;
        let frames = size.div_ceil(f);
        let positions = |k: u64| f.min(size - k * f);
        let cells = open_stream(bytes, sums, 0, header.cells, frames, |k| {
            positions(k).div_ceil(4)
        })?;
        let encoding = header.remoteness_encoding;
        let remoteness = if encoding.is_stored() {
            let first = frames as usize + 1;
            Some(open_stream(
                bytes,
                sums,
                first,
                header.remoteness,
                frames,
                |k| encoding.frame_len(positions(k)),
            )?)
        } else {
            None
        };
        let grundy = match &header.grundy {
            Some(g) => {
                let first = header.grundy_sums().0 as usize;
                let w = g.width as u64;
                Some(open_stream(bytes, sums, first, g.values, frames, |k| {
                    positions(k) * w
                })?)
            }
            None => None,
        };
        // The dictionary's checksum is the list's last (docs/FORMAT.md), checked before zstd
        // reads a byte of it.
        let d = header.dictionary;
        let dictionary = if d.len > 0 {
            let dict = &bytes[d.offset as usize..d.end() as usize];
            if sums
                .last()
                .is_none_or(|&sum| xxhash_rust::xxh3::xxh3_64(dict) != sum)
            {
                return Err(TableErrorKind::Checksum {
                    section: Checked::Dictionary,
                    block: None,
                });
            }
            Some(zstd::zstd_safe::DDict::create(dict))
        } else {
            None
        };
        let grundy_bytes = header.grundy.map_or(0, |g| f * g.width as u64);
        let frame_bytes = f / 4 + encoding.frame_len(f) + grundy_bytes;
        Ok(ZstdFrames {
            cells,
            remoteness,
            grundy,
            dictionary,
            // Keys: cells' frames, then the remoteness' and the codes' (`frames` apart).
            cache: FrameCache::new(
                cache_bytes,
                frame_bytes,
                frames * if header.grundy.is_some() { 3 } else { 2 },
            ),
        })
    }

    /// Decodes frame `k` of `stream`, checking the compressed bytes first; `sums_first` is the
    /// index of the stream's first frame in the checksum list.
    pub fn decode(
        &self,
        bytes: &[u8],
        sums: &[u64],
        stream: &Stream,
        sums_first: usize,
        k: usize,
    ) -> Result<Vec<u8>, TableErrorKind> {
        let frame = stream.frame(bytes, k);
        if xxhash_rust::xxh3::xxh3_64(frame) != sums[sums_first + k] {
            return Err(TableErrorKind::Checksum {
                section: Checked::Frames,
                block: Some(k as u64),
            });
        }
        // The dictionary is the cells stream's, which is first in the checksum list.
        let dictionary = if sums_first == 0 {
            self.dictionary.as_ref()
        } else {
            None
        };
        decompress_frame(frame, stream.entries[k].decompressed as usize, dictionary)
            .map_err(|e| TableErrorKind::Damaged(format!("frame {k}: {e}")))
    }
}

/// Parses a compressed stream and checks its seek table against the checksum list.
fn open_stream(
    bytes: &[u8],
    sums: &[u64],
    first: usize,
    section: Section,
    frames: u64,
    decompressed: impl Fn(u64) -> u64,
) -> Result<Stream, TableErrorKind> {
    let table_len = 8 + frames * 12 + 9;
    if section.len < table_len {
        return Err(TableErrorKind::Damaged(
            "compressed stream is shorter than its seek table".into(),
        ));
    }
    let table = &bytes[(section.end() - table_len) as usize..section.end() as usize];
    if xxhash_rust::xxh3::xxh3_64(table) != sums[first + frames as usize] {
        return Err(TableErrorKind::Checksum {
            section: Checked::SeekTable,
            block: None,
        });
    }
    Stream::parse(bytes, section, frames, decompressed)
        .map_err(|e| TableErrorKind::Damaged(e.to_string()))
}

/// Checks the bytes no checksum covers: the padding between sections must be zero and nothing
/// may follow the last section (at most a few pages: cheap enough for every open).
pub(super) fn check_padding(h: &Header, bytes: &[u8]) -> Result<(), TableErrorKind> {
    let damaged = |what: String| Err(TableErrorKind::Damaged(what));
    let mut sections = vec![h.dictionary, h.cells, h.remoteness, h.sums];
    if let Some(g) = &h.grundy {
        sections.extend([g.values, g.sets]);
    }
    sections.retain(|s| s.len > 0);
    sections.sort_by_key(|s| s.offset);
    let mut at = h.header_len;
    for s in &sections {
        if s.offset < at {
            return damaged("sections overlap".into());
        }
        if bytes[at as usize..s.offset as usize]
            .iter()
            .any(|&b| b != 0)
        {
            return damaged(format!("padding bytes {at}..{} are not zero", s.offset));
        }
        at = s.end();
    }
    if bytes.len() as u64 != at {
        return damaged(format!(
            "{} bytes follow the last section",
            (bytes.len() as u64).saturating_sub(at)
        ));
    }
    Ok(())
}
