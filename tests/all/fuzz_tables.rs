//! Arbitrary and damaged bytes fed to the table reader: it never panics, and it never answers
//! from a damaged table — every lookup either fails or gives the intact table's answer, and
//! checksum verification fails.
//!
//! The cases run in memory ([`Table::from_bytes`] over a `Vec`). `RETRODB_FUZZ_CASES` sets how
//! many per property (default 2,000; `scripts/fuzz-tables.sh` runs a million).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use retrodb::Value;
use retrodb::games::AnyGame;
use retrodb::table::builder::{self, BuildOptions};
use retrodb::table::{Table, zstd::Params};

/// Small real tables: raw and compressed, with and without remoteness, with an embedded input.
struct Sample {
    bytes: Vec<u8>,
    /// Every index's value and remoteness in the intact table.
    answers: Vec<(Option<Value>, Option<u32>)>,
}

fn samples() -> &'static [Sample] {
    static SAMPLES: OnceLock<Vec<Sample>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let seed = format!("digraph:{}", manifest.join("data/seed001.txt").display());
        let builds: [(&str, bool, bool); 4] = [
            ("hex:2", false, false),
            ("hex:2", true, true),
            ("bridgit:2", true, false),
            (&seed, true, true),
        ];
        builds
            .iter()
            .enumerate()
            .map(|(k, &(spec, remoteness, compress))| {
                let out: PathBuf = dir.path().join(format!("s{k}.rdb"));
                let opts = BuildOptions {
                    remoteness,
                    compress: compress.then(|| Params {
                        // Small frames, so a table has several.
                        frame_positions: 64,
                        ..Params::default()
                    }),
                    ..BuildOptions::default()
                };
                let game = AnyGame::open(spec, u64::MAX).unwrap();
                builder::build(&game, &out, &opts).unwrap();
                let bytes = std::fs::read(&out).unwrap();
                let t = Table::from_bytes(&out, bytes.clone(), 1 << 20).unwrap();
                let answers = (0..t.header().size)
                    .map(|p| (t.value(p).unwrap(), t.remoteness(p).unwrap()))
                    .collect();
                Sample { bytes, answers }
            })
            .collect()
    })
}

fn cases() -> u32 {
    std::env::var("RETRODB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// Opens `bytes` and, if it opens, reads every index the way a user could.
fn read_all(bytes: Vec<u8>) -> Option<Table<Vec<u8>>> {
    let t = Table::from_bytes(Path::new("fuzz.rdb"), bytes, 1 << 16).ok()?;
    let size = t.header().size.min(1 << 16);
    for p in 0..size {
        let _ = t.value(p);
        let _ = t.remoteness(p);
        let _ = t.probe(p);
    }
    let _ = t.verify_checksums();
    Some(t)
}

/// What may be done to a real table.
#[derive(Debug, Clone)]
enum Damage {
    /// XOR these bytes (each mask non-zero) at these positions (taken modulo the length).
    Flip(Vec<(usize, u8)>),
    /// Cut the file to this fraction of its length (in 1/1000).
    Truncate(u16),
    /// Append bytes.
    Append(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        6 => prop::collection::vec((any::<usize>(), 1u8..=255), 1..4).prop_map(Damage::Flip),
        1 => (0u16..1000).prop_map(Damage::Truncate),
        1 => prop::collection::vec(any::<u8>(), 1..64).prop_map(Damage::Append),
    ]
}

fn apply(bytes: &[u8], d: &Damage) -> Vec<u8> {
    let mut b = bytes.to_vec();
    match d {
        Damage::Flip(flips) => {
            for &(at, mask) in flips {
                let n = b.len();
                b[at % n] ^= mask;
            }
        }
        Damage::Truncate(permille) => b.truncate(b.len() * *permille as usize / 1000),
        Damage::Append(more) => b.extend_from_slice(more),
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Random bytes, and random bytes behind a real header's magic: never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..3000),
        magic in any::<bool>(),
    ) {
        let mut bytes = bytes;
        if magic && bytes.len() >= 8 {
            bytes[..8].copy_from_slice(&samples()[0].bytes[..8]);
        }
        read_all(bytes);
    }

    /// A damaged real table: never a panic, every answer the intact one's or an error, and
    /// verification fails.
    #[test]
    fn damaged_tables_never_answer_wrongly(which in 0usize..4, d in damage()) {
        let sample = &samples()[which];
        let bytes = apply(&sample.bytes, &d);
        prop_assume!(bytes != sample.bytes);
        let Ok(t) = Table::from_bytes(Path::new("fuzz.rdb"), bytes, 1 << 16) else {
            return Ok(());
        };
        prop_assert_eq!(t.header().size as usize, sample.answers.len());
        for (p, &(value, rem)) in sample.answers.iter().enumerate() {
            if let Ok(v) = t.value(p as u64) {
                prop_assert_eq!(v, value, "value of index {} after {:?}", p, d);
            }
            if let Ok(r) = t.remoteness(p as u64) {
                prop_assert_eq!(r, rem, "remoteness of index {} after {:?}", p, d);
            }
        }
        prop_assert!(t.verify_checksums().is_err(), "verify passed after {:?}", d);
    }
}
