//! A census in pieces: the graphs of one vertex count split `MOD` ways (as `nauty-geng -c N
//! RES/MOD` splits them), each piece's counts written to a file of its own, and the files merged
//! into the counts of the whole.
//!
//! A piece file is JSON ([`PieceFile`]): the piece `RES/MOD`, the vertex count, retrodb's version
//! and commit, the options, the graphs read and the `--list` lines (each counted, with the xxh3
//! of the lines as text, newlines included: `nauty-geng -cq 10 3/64 | xxhsum -H3` gives the
//! input's), the [`Tally`], and a checksum of all of that. A file is written under a temporary
//! name and renamed into place, so a piece file that exists is finished; an existing one is never
//! overwritten.
//!
//! The invariant: [`merge`] answers only from piece files that read back whole with their
//! checksum, of one modulus, vertex count and set of options, each piece once; a missing piece is
//! an error unless a partial merge is asked for, and then it is named.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{Xxh3Default, xxh3_64};

use super::{Tally, VertexSweep, VertexSweepReport};
use crate::Error;
use crate::apps::error::{AppError, OracleError, Result};
use crate::base::progress::Progress;

/// What a piece file's `format` field holds; a file with another value is of another format.
pub const FORMAT: &str = "retrodb vertex census piece 1";

/// Lines of text counted and hashed as they pass.
pub(super) struct LineHasher {
    lines: u64,
    hash: Xxh3Default,
}

impl Default for LineHasher {
    fn default() -> Self {
        LineHasher {
            lines: 0,
            hash: Xxh3Default::new(),
        }
    }
}

impl LineHasher {
    /// One line, without its newline.
    pub(super) fn line(&mut self, text: &str) {
        self.lines += 1;
        self.hash.update(text.as_bytes());
        self.hash.update(b"\n");
    }

    /// Whole lines, each ending in a newline.
    pub(super) fn lines(&mut self, text: &str) {
        self.lines += text.bytes().filter(|&b| b == b'\n').count() as u64;
        self.hash.update(text.as_bytes());
    }

    pub(super) fn digest(&self) -> LinesDigest {
        LinesDigest {
            lines: self.lines,
            xxh3: format!("{:016x}", self.hash.digest()),
        }
    }
}

/// Lines of text: how many, and the xxh3-64 of all of them (newlines included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinesDigest {
    pub lines: u64,
    pub xxh3: String,
}

/// Piece `res` of `of`: the graphs `nauty-geng RES/MOD` gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Piece {
    pub res: u64,
    pub of: u64,
}

impl Piece {
    /// Reads `RES/MOD`, `RES < MOD`.
    pub fn parse(text: &str) -> std::result::Result<Piece, OracleError> {
        let bad = || OracleError::PieceSpec {
            text: text.to_string(),
        };
        let (res, of) = text.split_once('/').ok_or_else(bad)?;
        let (res, of): (u64, u64) = (
            res.trim().parse().map_err(|_| bad())?,
            of.trim().parse().map_err(|_| bad())?,
        );
        if res >= of {
            return Err(bad());
        }
        Ok(Piece { res, of })
    }
}

impl std::fmt::Display for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.res, self.of)
    }
}

/// The options a piece ran with; the pieces of one census must share them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PieceOptions {
    pub engine_sample: u64,
    pub minimax_all_to: usize,
    pub minimax_sample: u64,
}

/// One piece's results, as its file holds them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceFile {
    /// [`FORMAT`].
    pub format: String,
    pub piece: Piece,
    /// The vertex count of every graph of the piece (`None` for a piece without graphs).
    pub vertices: Option<usize>,
    /// retrodb's version, and the commit it was built from (`unknown` if not told at build time).
    pub retrodb: String,
    pub commit: String,
    pub options: PieceOptions,
    /// The graphs read, as graph6 lines.
    pub input: LinesDigest,
    /// The `--list` lines (written or not): one per graph and terminal pair.
    pub list: LinesDigest,
    /// The threads the census ran on, and its wall time in milliseconds.
    pub threads: usize,
    pub wall_ms: u64,
    pub tally: Tally,
    /// xxh3-64 of the file's content: this struct as compact JSON with this field empty.
    pub checksum: String,
}

impl PieceFile {
    /// The file of piece `piece` from a finished census; refused if its graphs have more than one
    /// vertex count.
    pub fn new(
        piece: Piece,
        sweep: &VertexSweep,
        commit: &str,
        threads: usize,
        wall_ms: u64,
    ) -> Result<PieceFile> {
        let tally = sweep.tally().clone();
        Self::refuse_mixed(&tally)?;
        let (input, list) = sweep.digests();
        let o = sweep.options();
        let mut file = PieceFile {
            format: FORMAT.to_string(),
            piece,
            vertices: tally.rows.first().map(|r| r.vertices),
            retrodb: env!("CARGO_PKG_VERSION").to_string(),
            commit: commit.to_string(),
            options: PieceOptions {
                engine_sample: o.engine_sample,
                minimax_all_to: o.minimax_all_to,
                minimax_sample: o.minimax_sample,
            },
            input,
            list,
            threads,
            wall_ms,
            tally,
            checksum: String::new(),
        };
        file.checksum = file.content_checksum();
        Ok(file)
    }

    /// The checksum of everything but the checksum.
    fn content_checksum(&self) -> String {
        let mut bare = self.clone();
        bare.checksum.clear();
        let bytes = serde_json::to_vec(&bare).expect("a piece file serialises");
        format!("{:016x}", xxh3_64(&bytes))
    }

    /// Refuses a piece file to write that exists already, or whose directory does not (asked
    /// before a census starts, so that no work is lost, and again when writing).
    pub fn refuse_existing(path: &Path) -> Result<()> {
        match path.exists() {
            true => Err(OracleError::PieceExists {
                path: path.display().to_string(),
            }
            .into()),
            false => Ok(crate::table::check_output(path, &[])?),
        }
    }

    /// Refuses a census whose graphs have more than one vertex count (asked after each batch, so
    /// that a wrong input is stopped early).
    pub fn refuse_mixed(tally: &Tally) -> Result<()> {
        match tally.rows.len() {
            0 | 1 => Ok(()),
            _ => Err(OracleError::PieceVertices {
                counts: tally.rows.iter().map(|r| r.vertices).collect(),
            }
            .into()),
        }
    }

    /// Writes the file to `path` (a temporary file beside it, renamed into place); refused if
    /// `path` exists.
    pub fn write(&self, path: &Path) -> Result<()> {
        Self::refuse_existing(path)?;
        let name = path
            .file_name()
            .map_or_else(|| "piece".into(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let mut text = serde_json::to_string_pretty(self).expect("a piece file serialises");
        text.push('\n');
        std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e).into())
    }

    /// Reads and checks a piece file: whole JSON of this format, its checksum, and counts that
    /// agree with each other. Read as [`crate::base::inputs`] reads (a device refused, a FIFO's
    /// wait told to `progress`, at most [`crate::base::inputs::MAX_REPORT`] bytes).
    pub fn read(path: &Path, progress: &dyn Progress) -> Result<PieceFile> {
        use crate::base::inputs;
        let damaged = |reason: String| OracleError::PieceDamaged {
            path: path.display().to_string(),
            reason,
        };
        let (_, bytes) = inputs::read_whole(path, inputs::MAX_REPORT, progress)?;
        let file: PieceFile = serde_json::from_slice(&bytes)
            .map_err(|e| damaged(format!("not a whole piece file ({e})")))?;
        if file.format != FORMAT {
            return Err(damaged(format!(
                "its format is '{}', this retrodb reads '{FORMAT}'",
                file.format
            ))
            .into());
        }
        let want = file.content_checksum();
        if file.checksum != want {
            return Err(damaged(format!(
                "its content hashes to {want}, not to the checksum {} it records",
                file.checksum
            ))
            .into());
        }
        let total = file.tally.total();
        let consistent = file.piece.res < file.piece.of
            && total.graphs == file.input.lines
            && total.terminal_pairs == file.list.lines
            && file.tally.crossings_in_order()
            && file.tally.rows.len() <= 1
            && file.vertices == file.tally.rows.first().map(|r| r.vertices);
        if !consistent {
            return Err(damaged("its counts disagree with each other".to_string()).into());
        }
        Ok(file)
    }
}

/// A piece in a merge: where it came from and what identifies its graphs and results.
#[derive(Clone, Debug, Serialize)]
pub struct PieceSummary {
    pub piece: Piece,
    pub file: String,
    pub commit: String,
    pub graphs: u64,
    pub terminal_pairs: u64,
    pub input_xxh3: String,
    pub list_xxh3: String,
    pub checksum: String,
    pub wall_ms: u64,
}

/// Pieces merged.
#[derive(Clone, Debug, Serialize)]
pub struct Merged {
    /// The modulus every piece shares, and their vertex count.
    pub of: u64,
    pub vertices: Option<usize>,
    pub options: PieceOptions,
    /// In increasing `RES`.
    pub pieces: Vec<PieceSummary>,
    /// The `RES` of the pieces no file held (empty unless the merge was partial).
    pub missing: Vec<u64>,
    /// The counts (in [`Merged::report`], not serialised with the pieces).
    #[serde(skip)]
    pub tally: Tally,
    /// The commits the pieces were run from, each once, in order.
    pub commits: Vec<String>,
    /// The pieces' wall times added.
    pub wall_ms: u64,
    /// xxh3-64 of the pieces' checksums in increasing `RES` (one line each): the set of files.
    pub checksum: String,
}

/// The piece files among `paths`: each directory's `.json` files (in name order), each file as
/// it is.
pub fn piece_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::io(p, e))?
                .map(|e| {
                    e.map(|e| e.path())
                        .map_err(|err| AppError::from(Error::io(p, err)))
                })
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .filter(|f| f.extension().is_some_and(|x| x == "json") && f.is_file())
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(OracleError::NoPieces {
            paths: names.join(", "),
        }
        .into());
    }
    Ok(out)
}

/// Refuses piece `p` (file `name`) unless it is a piece of the census `first` is (file
/// `first_name`): the same modulus and options, and the vertex count of the first piece with
/// graphs (`vertices`, with its file, once one is seen).
fn refuse_unlike(
    (first_name, first): (&str, &PieceFile),
    (name, p): (&str, &PieceFile),
    vertices: &mut Option<(usize, String)>,
) -> Result<()> {
    let unlike = |got: String, first: &str, expected: String| OracleError::PieceMismatch {
        path: name.to_string(),
        got,
        first: first.to_string(),
        expected,
    };
    if p.piece.of != first.piece.of {
        let (got, expected) = (format!("is piece {}", p.piece), first.piece.of);
        return Err(unlike(got, first_name, format!("is one of {expected}")).into());
    }
    if p.options != first.options {
        let o = |p: &PieceFile| {
            let o = &p.options;
            format!(
                "ran with --engine-sample {} --minimax-all-to {} --minimax-sample {}",
                o.engine_sample, o.minimax_all_to, o.minimax_sample
            )
        };
        return Err(unlike(o(p), first_name, o(first)).into());
    }
    match (p.vertices, vertices.as_ref()) {
        (Some(v), Some((w, other))) if v != *w => {
            let got = format!("has graphs of {v} vertices");
            Err(unlike(got, other, format!("of {w}")).into())
        }
        (Some(v), None) => {
            *vertices = Some((v, name.to_string()));
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Reads every piece file, checks that they are pieces of one census, each once, and adds their
/// tallies in increasing `RES`. A missing piece is refused unless `partial`. A FIFO's wait for
/// its writer is told to `progress`.
pub fn merge(files: &[PathBuf], partial: bool, progress: &dyn Progress) -> Result<Merged> {
    let mut read = Vec::with_capacity(files.len());
    for f in files {
        read.push((f.display().to_string(), PieceFile::read(f, progress)?));
    }
    let Some((first_name, first)) = read.first().cloned() else {
        return Err(OracleError::NoPieces {
            paths: String::new(),
        }
        .into());
    };
    let mut by_res: BTreeMap<u64, (String, PieceFile)> = BTreeMap::new();
    let mut by_input: BTreeMap<String, String> = BTreeMap::new();
    let mut vertices = None;
    for (name, p) in read {
        refuse_unlike((&first_name, &first), (&name, &p), &mut vertices)?;
        if let Some((other, _)) = by_res.get(&p.piece.res) {
            return Err(OracleError::PieceRepeated {
                piece: p.piece.to_string(),
                first: other.clone(),
                second: name,
            }
            .into());
        }
        if p.input.lines > 0
            && let Some(other) = by_input.insert(p.input.xxh3.clone(), name.clone())
        {
            return Err(OracleError::PieceRepeated {
                piece: format!("{} (as the graphs of another piece)", p.piece),
                first: other,
                second: name,
            }
            .into());
        }
        by_res.insert(p.piece.res, (name, p));
    }
    let of = first.piece.of;
    let missing: Vec<u64> = (0..of).filter(|r| !by_res.contains_key(r)).collect();
    if !missing.is_empty() && !partial {
        return Err(OracleError::PiecesMissing { of, missing }.into());
    }
    let mut tally = Tally::default();
    let mut pieces = Vec::with_capacity(by_res.len());
    let mut commits: Vec<String> = Vec::new();
    let mut sums = String::new();
    let vertices = vertices.map(|(v, _)| v);
    for (name, p) in by_res.into_values() {
        tally.merge(&p.tally);
        if !commits.contains(&p.commit) {
            commits.push(p.commit.clone());
        }
        sums.push_str(&p.checksum);
        sums.push('\n');
        pieces.push(PieceSummary {
            piece: p.piece,
            file: name,
            commit: p.commit,
            graphs: p.input.lines,
            terminal_pairs: p.list.lines,
            input_xxh3: p.input.xxh3,
            list_xxh3: p.list.xxh3,
            checksum: p.checksum,
            wall_ms: p.wall_ms,
        });
    }
    Ok(Merged {
        of,
        vertices,
        options: first.options,
        wall_ms: pieces.iter().map(|p| p.wall_ms).sum(),
        pieces,
        missing,
        tally,
        commits,
        checksum: format!("{:016x}", xxh3_64(sums.as_bytes())),
    })
}

impl Merged {
    /// The merged counts as a census report (the digests are the pieces', in [`Merged::pieces`];
    /// the seconds are the pieces' wall times added).
    pub fn report(&self) -> VertexSweepReport {
        let t = &self.tally;
        VertexSweepReport {
            rows: t.rows.clone(),
            total: t.total(),
            crossings: t.crossings.clone(),
            disagreeing: t.disagreeing.clone(),
            disagreeing_pairs: t.disagreeing_pairs,
            engine_sample: self.options.engine_sample,
            minimax_sample: self.options.minimax_sample,
            minimax_all_to: self.options.minimax_all_to,
            input: None,
            list: None,
            seconds: self.wall_ms as f64 / 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::oracle::graphs::{Graph, connected_graphs};
    use crate::apps::oracle::vertex_sweep::VertexSweepOptions;

    fn piece_of(graphs: &[Graph], piece: Piece) -> PieceFile {
        let mut sweep = VertexSweep::new(VertexSweepOptions {
            max_memory: 1 << 30,
            ..VertexSweepOptions::default()
        });
        let numbered: Vec<(u64, Graph)> = graphs.iter().cloned().map(|g| (0, g)).collect();
        sweep.add("graphs", &numbered, None).unwrap();
        PieceFile::new(piece, &sweep, "abc", 2, 5).unwrap()
    }

    #[test]
    fn pieces_are_named_res_of_mod() {
        assert_eq!(Piece::parse("3/64").unwrap(), Piece { res: 3, of: 64 });
        assert_eq!(Piece::parse("3/64").unwrap().to_string(), "3/64");
        for bad in ["64/64", "3", "3/", "/4", "-1/4", "1/0", "x/4"] {
            assert!(Piece::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_piece_file_reads_back_and_its_checksum_covers_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let graphs = connected_graphs(4).unwrap();
        let file = piece_of(&graphs, Piece { res: 1, of: 2 });
        assert_eq!(file.vertices, Some(4));
        assert_eq!(file.input.lines, 6);
        let path = dir.path().join("p.json");
        file.write(&path).unwrap();
        assert_eq!(
            PieceFile::read(&path, &crate::base::progress::Silent).unwrap(),
            file
        );
        // Written once: a second write is refused and leaves the file.
        assert!(file.write(&path).is_err());
        // Any value changed is caught, whitespace is not content.
        let text = std::fs::read_to_string(&path).unwrap();
        let spaced = text.replace(": ", ":  ");
        std::fs::write(&path, &spaced).unwrap();
        assert_eq!(
            PieceFile::read(&path, &crate::base::progress::Silent).unwrap(),
            file
        );
        let changed = text.replacen("\"threads\": 2", "\"threads\": 3", 1);
        assert_ne!(changed, text);
        std::fs::write(&path, changed).unwrap();
        let e = PieceFile::read(&path, &crate::base::progress::Silent)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is damaged") && e.contains("checksum"), "{e}");
        // A checksum recomputed over counts that disagree (graphs read, rows) is caught too.
        let mut forged = file.clone();
        forged.input.lines += 1;
        forged.checksum = forged.content_checksum();
        let bytes = serde_json::to_vec(&forged).unwrap();
        std::fs::write(&path, bytes).unwrap();
        let e = PieceFile::read(&path, &crate::base::progress::Silent)
            .unwrap_err()
            .to_string();
        assert!(e.contains("counts disagree"), "{e}");
    }

    #[test]
    fn merged_pieces_add_up_and_keep_the_smallest_examples() {
        let dir = tempfile::tempdir().unwrap();
        let graphs = connected_graphs(5).unwrap();
        let whole = piece_of(&graphs, Piece { res: 0, of: 1 });
        let mut files = Vec::new();
        for res in 0..3 {
            let part: Vec<Graph> = graphs.iter().skip(res).step_by(3).cloned().collect();
            let path = dir.path().join(format!("{res}.json"));
            piece_of(
                &part,
                Piece {
                    res: res as u64,
                    of: 3,
                },
            )
            .write(&path)
            .unwrap();
            files.push(path);
        }
        // In any order of the files.
        files.reverse();
        let merged = merge(&files, false, &crate::base::progress::Silent).unwrap();
        assert_eq!(merged.tally, whole.tally);
        assert_eq!(merged.missing, Vec::<u64>::new());
        assert_eq!(merged.commits, ["abc"]);
        assert_eq!(merged.wall_ms, 15);
        let partial = merge(&files[..2], true, &crate::base::progress::Silent).unwrap();
        assert_eq!(partial.missing, [0]);
        assert!(merge(&files[..2], false, &crate::base::progress::Silent).is_err());
    }
}
