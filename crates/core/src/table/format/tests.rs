use super::*;
use proptest::prelude::*;

use crate::base::cells;

/// A header-sized run of bytes with the magic, the version, its own length and a valid
/// checksum, everything else arbitrary: what a damaged or hostile file can look like once it
/// gets past the first checks.
fn checksummed(mut body: Vec<u8>) -> Vec<u8> {
    body[..8].copy_from_slice(&MAGIC);
    body[8..12].copy_from_slice(&VERSION.to_le_bytes());
    let len = body.len() as u32 + 8;
    body[12..16].copy_from_slice(&len.to_le_bytes());
    // Lengths that agree, so decoding goes on to the layout checks.
    let spec_len = (body.len() - FIXED) as u32;
    body[124..128].copy_from_slice(&spec_len.to_le_bytes());
    body[128..136].copy_from_slice(&0u64.to_le_bytes());
    for b in &mut body[FIXED..] {
        *b = b'a' + *b % 26;
    }
    // Small section fields half the time, so some layouts are almost valid.
    if body[0x40].is_multiple_of(2) {
        for f in (64..112).step_by(8) {
            let v = u64::from_le_bytes(body[f..f + 8].try_into().unwrap()) % 5000;
            body[f..f + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

proptest! {
    #[test]
    fn decoding_arbitrary_headers_never_panics(
        body in prop::collection::vec(any::<u8>(), FIXED..FIXED + 64),
        extra in 0u64..1 << 20,
    ) {
        let bytes = checksummed(body);
        let _ = Header::decode(std::path::Path::new("t.rdb"), &bytes, bytes.len() as u64 + extra);
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = Header::decode(std::path::Path::new("t.rdb"), &bytes, bytes.len() as u64);
    }
}

#[test]
fn a_real_header_round_trips() {
    let h = Header {
        version: VERSION,
        header_len: Header::len_for("hex:4", 0, false),
        size: 100,
        encoding: Encoding::Raw,
        remoteness_encoding: RemotenessEncoding::None,
        block: BLOCK,
        counts: [10, 40, 50, 0],
        cells: Section {
            offset: PAGE,
            len: 32,
        },
        remoteness: Section::default(),
        sums: Section {
            offset: PAGE + 32,
            len: 8,
        },
        sums_hash: 7,
        rounds: Some(3),
        frame_positions: 0,
        level: 0,
        dictionary: Section::default(),
        remoteness_dictionary: Section::default(),
        grundy: None,
        spec: "hex:4".into(),
        source: SourceRef::None,
    };
    let bytes = h.encode(&[]);
    let back = Header::decode(std::path::Path::new("t.rdb"), &bytes, PAGE + 40).unwrap();
    assert_eq!(
        (back.size, back.counts, back.spec.as_str()),
        (100, [10, 40, 50, 0], "hex:4")
    );
    assert_eq!(
        (back.cells, back.sums, back.rounds),
        (h.cells, h.sums, Some(3))
    );
    // One byte short of the checksum section: truncated.
    assert!(Header::decode(std::path::Path::new("t.rdb"), &bytes, PAGE + 39).is_err());
}

/// A header with generalized Sprague-Grundy fields: version 6, 48 more bytes after the
/// spec, every field back as written; a bad code width is refused; without the fields the
/// same header is version 2 and byte for byte the shorter one.
#[test]
fn grundy_fields_round_trip() {
    let g = GrundyFields {
        values: Section {
            offset: 2 * PAGE,
            len: 100,
        },
        sets: Section {
            offset: 2 * PAGE + 104,
            len: 16,
        },
        finite: 5,
        width: 1,
        set_count: 2,
    };
    let spec = "digraph:g.txt";
    let h = Header {
        version: VERSION,
        header_len: Header::len_for(spec, 0, true),
        size: 100,
        encoding: Encoding::Raw,
        remoteness_encoding: RemotenessEncoding::None,
        block: BLOCK,
        counts: [0, 40, 50, 10],
        cells: Section {
            offset: PAGE,
            len: 32,
        },
        remoteness: Section::default(),
        sums: Section {
            offset: 2 * PAGE + 120,
            len: 24,
        },
        sums_hash: 7,
        rounds: None,
        frame_positions: 0,
        level: 0,
        dictionary: Section::default(),
        remoteness_dictionary: Section::default(),
        grundy: Some(g),
        spec: spec.into(),
        source: SourceRef::None,
    };
    let path = std::path::Path::new("t.rdb");
    let file_len = 2 * PAGE + 144;
    let bytes = h.encode(&[]);
    assert_eq!(bytes.len() as u64, FIXED as u64 + 13 + GRUNDY_FIELDS + 8);
    let back = Header::decode(path, &bytes, file_len).unwrap();
    assert_eq!(
        (back.version, back.grundy, back.spec.as_str()),
        (6, Some(g), spec)
    );
    assert_eq!(back.grundy_sums(), (1, 2));
    assert!(back.check_unused(&bytes).is_ok());
    // A code width that is not 1, 2 or 4.
    let mut bad = bytes.clone();
    bad[FIXED + 13 + 36] = 3;
    let n = bad.len();
    let sum = xxhash_rust::xxh3::xxh3_64(&bad[..n - 8]);
    bad[n - 8..].copy_from_slice(&sum.to_le_bytes());
    let e = Header::decode(path, &bad, file_len)
        .unwrap_err()
        .to_string();
    assert!(e.contains("code width 3"), "{e}");
    // Without the fields: version 2, 48 bytes shorter.
    let plain = Header {
        header_len: Header::len_for(spec, 0, false),
        grundy: None,
        ..h
    };
    let short = plain.encode(&[]);
    assert_eq!(short.len() + GRUNDY_FIELDS as usize, bytes.len());
    assert_eq!(u32::from_le_bytes(short[8..12].try_into().unwrap()), 2);
}

/// The remoteness encoding goes to and from exactly the header bytes tables have always had:
/// 0, 1, 2, 4 and 0x80 (nibbles, from version 5 on); any other byte is refused.
#[test]
fn remoteness_encodings_keep_their_header_bytes() {
    use RemotenessEncoding::*;
    for (encoding, byte) in [
        (None, 0u8),
        (Bytes(1), 1),
        (Bytes(2), 2),
        (Bytes(4), 4),
        (Nibbles, 0x80),
    ] {
        assert_eq!(encoding.header_byte(), byte);
        assert_eq!(
            RemotenessEncoding::from_header_byte(byte, NIBBLE_VERSION),
            Some(encoding)
        );
    }
    assert_eq!(
        RemotenessEncoding::from_header_byte(0x80, NIBBLE_VERSION - 1),
        Option::None
    );
    for bad in [3u8, 8, 0x81, 0xff] {
        assert_eq!(
            RemotenessEncoding::from_header_byte(bad, VERSION),
            Option::None
        );
    }
    assert_eq!(Nibbles.section_len(17), 16);
    assert_eq!(Bytes(2).section_len(17), 34);
    assert_eq!(None.section_len(17), 0);
    assert_eq!(Nibbles.frame_len(33), 17);
}

/// A compressed header with a remoteness dictionary: version 7, 8 more bytes before the
/// checksum (after the Sprague-Grundy fields when there are some), the dictionary placed after
/// the cells' one; a length of zero or a reserved byte set is refused; without it the same
/// header is written in the version before, byte for byte 8 bytes shorter.
#[test]
fn a_remoteness_dictionary_round_trips() {
    let spec = "hex:3";
    let path = std::path::Path::new("t.rdb");
    for grundy in [false, true] {
        let g = GrundyFields {
            values: Section {
                offset: 3000,
                len: 100,
            },
            sets: Section {
                offset: 3100,
                len: 0,
            },
            finite: 3,
            width: 1,
            set_count: 0,
        };
        let header_len = Header::len_for(spec, 0, grundy) + REMOTENESS_DICTIONARY_FIELDS;
        // Checksums: two streams of one frame (and the values' stream), two dictionaries.
        let sums = 8 * (2 * 2 + 2 * grundy as u64 + 2);
        let h = Header {
            version: VERSION,
            header_len,
            size: 100,
            encoding: Encoding::ZstdOmitted,
            remoteness_encoding: RemotenessEncoding::Nibbles,
            block: BLOCK,
            counts: [0, 60, 40, 0],
            cells: Section {
                offset: header_len + 1500,
                len: 500,
            },
            remoteness: Section {
                offset: header_len + 2000,
                len: 500,
            },
            sums: Section {
                offset: 3200,
                len: sums,
            },
            sums_hash: 7,
            rounds: Some(5),
            frame_positions: 128,
            level: 15,
            dictionary: Section {
                offset: header_len,
                len: 1000,
            },
            remoteness_dictionary: Section {
                offset: header_len + 1000,
                len: 500,
            },
            grundy: grundy.then_some(g),
            spec: spec.into(),
            source: SourceRef::None,
        };
        let file_len = 3200 + sums;
        let bytes = h.encode(&[]);
        assert_eq!(bytes.len() as u64, header_len);
        let back = Header::decode(path, &bytes, file_len).unwrap();
        assert_eq!(back.version, REMOTENESS_DICTIONARY_VERSION);
        assert_eq!(
            (back.dictionary, back.remoteness_dictionary),
            (h.dictionary, h.remoteness_dictionary)
        );
        assert_eq!((back.grundy, back.rounds), (h.grundy, Some(5)));
        assert!(back.check_unused(&bytes).is_ok());
        let resum = |mut bad: Vec<u8>| {
            let n = bad.len();
            let sum = xxhash_rust::xxh3::xxh3_64(&bad[..n - 8]);
            bad[n - 8..].copy_from_slice(&sum.to_le_bytes());
            bad
        };
        let n = bytes.len();
        // A length of zero: a version 7 table always has the dictionary.
        let mut zero = bytes.clone();
        zero[n - 16..n - 12].fill(0);
        let e = Header::decode(path, &resum(zero), file_len)
            .unwrap_err()
            .to_string();
        assert!(e.contains("without a remoteness dictionary"), "{e}");
        // A reserved byte set: decoded, but refused by the check of unused fields.
        let mut reserved = bytes.clone();
        reserved[n - 10] = 1;
        let reserved = resum(reserved);
        let back = Header::decode(path, &reserved, file_len).unwrap();
        assert!(back.check_unused(&reserved).is_err());
        // Without it: the version before, 8 bytes shorter, the cells' dictionary kept.
        let plain = Header {
            header_len: header_len - REMOTENESS_DICTIONARY_FIELDS,
            remoteness_dictionary: Section::default(),
            ..h.clone()
        };
        let short = plain.encode(&[]);
        assert_eq!(short.len() + 8, bytes.len());
        let version = u32::from_le_bytes(short[8..12].try_into().unwrap());
        assert_eq!(
            version,
            if grundy {
                GRUNDY_VERSION
            } else {
                NIBBLE_VERSION
            }
        );
    }
}

/// An engine byte (`2 * (remoteness + 1) + lost`, 0 for none) of a game whose remoteness
/// follows its value's parity, up to remoteness 29.
fn engine_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(0u8),
        (0u32..15).prop_map(|n| (2 * (2 * n + 1) + 1) as u8),
        (0u32..15).prop_map(|n| (2 * (2 * n).max(1)) as u8),
        Just(2u8),
    ]
}

proptest! {
    /// `nibbles_of_engine`, eight positions a word, gives each position the nibble
    /// `nibble_of` gives its value and remoteness, whatever the lengths (odd ones, an output
    /// longer than the input).
    #[test]
    fn engine_bytes_pack_to_each_positions_nibble(
        bytes in proptest::collection::vec(engine_byte(), 0..80),
        extra in 0usize..4,
    ) {
        let mut out = vec![0xAAu8; bytes.len().div_ceil(2) + extra];
        nibbles_of_engine(&bytes, &mut out);
        for (i, &b) in bytes.iter().enumerate() {
            let (code, r) = match b {
                0 => (cells::DRAW, None),
                b if b & 1 == 1 => (cells::LOSS, Some((b / 2 - 1) as u32)),
                b => (cells::WIN, Some((b / 2 - 1) as u32)),
            };
            let want = nibble_of(code, r).expect("the remoteness fits a nibble");
            prop_assert_eq!(out[i / 2] >> (4 * (i % 2)) & 15, want, "position {}", i);
        }
        if bytes.len() % 2 == 1 {
            prop_assert_eq!(out[bytes.len() / 2] >> 4, 0);
        }
        prop_assert!(out[bytes.len().div_ceil(2)..].iter().all(|&o| o == 0));
    }
}
