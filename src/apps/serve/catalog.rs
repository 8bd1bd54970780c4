//! The tables being served, by name, and what happens when their files change on disk.
//!
//! Each name is fixed at start with its path; what the name serves is the table last opened
//! from that path. Every lookup of a name first looks at the file (one `fstat` of the open
//! table, one `stat` of the path, about a microsecond together):
//!
//! - a new file renamed over the path (how tables are replaced: every retrodb writer does it)
//!   is opened and served from then on; requests that already hold the old table finish on it;
//! - a file changed in place (an operator's `cp` over it) trips the old table's guard, so its
//!   lookups answer `table_changed` (503) naming the file, never bytes of the new file taken for
//!   the old; the file is opened again as soon as it reads as a whole table (a `cp` that has
//!   finished), and served from then on.
//!
//! A file that cannot be opened is told once on stderr (`retrodb serve: table NAME: ...`), and
//! the name keeps its table (an intact old one, or a changed one that answers `table_changed`)
//! until it can. A table opened again is checked as every table is, block by block on first use;
//! the start's whole-file check (`--no-verify` skips it) is not repeated.
//!
//! The invariant: a name's path never changes, and a request holds the table it started with
//! (an `Arc`), so a replacement never changes the bytes under a running lookup.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use super::error::ServeError;
use crate::base::error::{Error, Result};
use crate::table::Table;
use std::io::Write;

/// One table being served.
pub struct Served {
    pub name: String,
    pub table: Table,
    /// The position the web board opens at.
    pub start: Option<String>,
}

impl Served {
    fn open(name: &str, path: &Path) -> Result<Served> {
        let table = Table::open(path)?;
        let start = table.game().start().map(
            |p| crate::with_game!(table.game(), g => crate::game::Notation::position_text(g, p)),
        );
        Ok(Served {
            name: name.to_string(),
            table,
            start,
        })
    }
}

/// A name, its path, and the table it serves now.
struct Entry {
    name: String,
    path: PathBuf,
    current: RwLock<Arc<Served>>,
    /// Held by the one request that opens the file again; the others go on with the table
    /// they find.
    reopening: Mutex<()>,
    /// The last failure to open the file again, so that each is told once.
    told: Mutex<Option<String>>,
}

/// The tables being served, by name. Cloning shares them (the API's and the board's routes
/// read the same tables).
#[derive(Clone)]
pub struct Catalog {
    entries: Arc<[Entry]>,
    by_name: Arc<HashMap<String, usize>>,
}

/// The table files a directory holds: its `*.rdb` files, hidden ones (a build's work files)
/// left out, in name order.
fn tables_in(dir: &Path) -> Result<Vec<PathBuf>, ServeError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with('.') && name.ends_with(".rdb") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(ServeError::NoTableIn {
            dir: dir.display().to_string(),
        });
    }
    Ok(files)
}

impl Catalog {
    /// Opens every table given (a directory: every `*.rdb` file in it). With `verify`, every
    /// checksum of every table is checked first, so a damaged file is refused at start rather
    /// than at its first unlucky lookup.
    pub fn open(paths: &[PathBuf], verify: bool) -> Result<Catalog, ServeError> {
        let mut files = Vec::new();
        for p in paths {
            if p.is_dir() {
                files.extend(tables_in(p)?);
            } else {
                files.push(p.clone());
            }
        }
        let mut entries: Vec<Entry> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for file in files {
            let name = file
                .file_stem()
                .and_then(|s| s.to_str())
                .filter(|s| !s.is_empty())
                .ok_or_else(|| ServeError::FileName {
                    path: file.display().to_string(),
                })?
                .to_string();
            if let Some(&other) = by_name.get(&name) {
                return Err(ServeError::SameName {
                    name,
                    first: entries[other].path.display().to_string(),
                    second: file.display().to_string(),
                });
            }
            let served = Served::open(&name, &file)?;
            if verify {
                served.table.verify_checksums()?;
            }
            by_name.insert(name.clone(), entries.len());
            entries.push(Entry {
                name,
                path: file,
                current: RwLock::new(Arc::new(served)),
                reopening: Mutex::new(()),
                told: Mutex::new(None),
            });
        }
        if entries.is_empty() {
            return Err(ServeError::NoTable);
        }
        Ok(Catalog {
            entries: entries.into(),
            by_name: Arc::new(by_name),
        })
    }

    /// A table by its name, as its file is now; `None` for anything else (a name is never
    /// read as a path).
    pub fn get(&self, name: &str) -> Option<Arc<Served>> {
        self.by_name
            .get(name)
            .map(|&i| self.current(&self.entries[i]))
    }

    /// The tables in the order they were given, as their files are now.
    pub fn tables(&self) -> Vec<Arc<Served>> {
        self.entries.iter().map(|e| self.current(e)).collect()
    }

    /// The names in the order they were given.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// What `entry` serves now: its table, or the file opened again where it changed.
    fn current(&self, entry: &Entry) -> Arc<Served> {
        let now = Arc::clone(&entry.current.read().unwrap_or_else(|e| e.into_inner()));
        let changed_in_place = now.table.check_unchanged().is_err();
        if !changed_in_place && !now.table.path_names_another_file() {
            return now;
        }
        // One request opens the file again; the others answer from the table they have.
        let Ok(_reopening) = entry.reopening.try_lock() else {
            return now;
        };
        match Served::open(&entry.name, &entry.path) {
            Ok(new) => {
                let new = Arc::new(new);
                *entry.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::clone(&new);
                *entry.told.lock().unwrap_or_else(|e| e.into_inner()) = None;
                let how = if changed_in_place {
                    "changed in place"
                } else {
                    "was replaced"
                };
                tell(format_args!(
                    "retrodb serve: table {}: {} {how}; serving the new file",
                    entry.name,
                    entry.path.display()
                ));
                new
            }
            Err(e) => {
                let text = e.to_string();
                let mut told = entry.told.lock().unwrap_or_else(|e| e.into_inner());
                if told.as_deref() != Some(text.as_str()) {
                    tell(format_args!(
                        "retrodb serve: table {}: its file changed and cannot be served yet: \
                         {text}",
                        entry.name
                    ));
                    *told = Some(text);
                }
                now
            }
        }
    }
}

/// A line on stderr about the served files (never a panic when stderr cannot be written).
fn tell(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr(), "{line}");
}
