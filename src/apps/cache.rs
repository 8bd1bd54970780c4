//! A cache of tables built on demand, for commands that need a table with remoteness but were
//! not given one (`research`, `play`): the applications' own, since it reads the environment
//! (the core reads none).
//!
//! The directory is `$RETRODB_CACHE`, else `$XDG_CACHE_HOME/retrodb`, else
//! `$HOME/.cache/retrodb`, else `.retrodb-cache`; a game's file is its spec with every character
//! other than letters, digits and `-` replaced by `_`, plus `-remoteness.rdb`. The invariant: a
//! file is only ever opened, or built when absent — never overwritten.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::base::error::{Error, Result};
use crate::base::progress::Progress;
use crate::games::AnyGame;
use crate::table::Table;
use crate::table::builder::{BuildOptions, build};

/// The cache directory (see the module docs).
pub fn dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("RETRODB_CACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("retrodb")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("retrodb")))
        .unwrap_or_else(|| PathBuf::from(".retrodb-cache"))
}

/// The cache file of a game spec.
pub fn file_for(spec: &str) -> PathBuf {
    let name: String = spec
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir().join(format!("{name}-remoteness.rdb"))
}

/// Opens the table of `spec` with remoteness at `path` (default: [`file_for`]), building it
/// there first when the file is absent; the flag says whether it was built. A file holding
/// another game, or one without remoteness, is refused. The build reports to `progress`, with
/// its notes (a FIFO waited on, stale work files removed).
pub fn open_or_build(
    spec: &str,
    path: Option<&Path>,
    progress: Arc<dyn Progress>,
) -> Result<(Table, bool)> {
    // Only the cache's own directory is made; a directory the user named must exist, as for
    // `build -o` (a mistyped path is refused, not created).
    let (path, own_dir) = match path {
        Some(p) => (p.to_path_buf(), false),
        None => (file_for(spec), true),
    };
    let built = !path.exists();
    if built {
        if own_dir {
            crate::table::output_dir(&dir())?;
        }
        let game = AnyGame::open_with(spec, crate::base::memory::default_limit(), &*progress)?;
        let opts = BuildOptions {
            remoteness: true,
            progress: Some(progress),
            ..BuildOptions::default()
        };
        build(&game, &path, &opts)?;
    }
    let t = Table::open(&path)?;
    let held = t.game().spec();
    if held != spec {
        return Err(Error::table(&path, format!("holds {held}, not {spec}")));
    }
    if !t.has_remoteness() {
        return Err(Error::table(
            &path,
            format!("has no remoteness; rebuild it with 'retrodb build {spec} --remoteness'"),
        ));
    }
    Ok((t, built))
}
