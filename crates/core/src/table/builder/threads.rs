//! How many worker threads a front end may give the library's parallel work (a build, a batch
//! of probes, a verify): at least one, and at most [`MAX_PER_CORE`] per core of the machine,
//! since more only add switching (10,000 of them turned a 0.01 s build into minutes). The
//! command line's `--threads` and the Python module's `threads=` both start their pools here and
//! word a refusal with their own name for the option.
//!
//! The invariant: no pool is started for a refused number.

/// The most worker threads accepted per core of the machine.
pub const MAX_PER_CORE: usize = 8;

/// Why no pool of the threads asked for was started.
#[derive(Debug, thiserror::Error)]
pub enum ThreadsError {
    /// No thread at all.
    #[error("must be at least 1")]
    Zero,
    /// More than [`MAX_PER_CORE`] per core.
    #[error("at most {cap} on this machine ({MAX_PER_CORE} per core, {cores} cores)")]
    TooMany {
        asked: usize,
        cap: usize,
        cores: usize,
    },
    /// The system would not start them.
    #[error("cannot start {asked} threads: {source}")]
    Start {
        asked: usize,
        source: rayon::ThreadPoolBuildError,
    },
}

/// Refuses `n` threads unless there are between 1 and [`MAX_PER_CORE`] per core.
pub fn check(n: usize) -> Result<(), ThreadsError> {
    if n == 0 {
        return Err(ThreadsError::Zero);
    }
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let cap = MAX_PER_CORE * cores;
    if n > cap {
        return Err(ThreadsError::TooMany {
            asked: n,
            cap,
            cores,
        });
    }
    Ok(())
}

/// Makes the process's pool (rayon's global one, which every parallel step uses unless told
/// otherwise) `n` threads, once [`check`] allows them.
pub fn set_global(n: usize) -> Result<(), ThreadsError> {
    check(n)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|source| ThreadsError::Start { asked: n, source })
}

/// A pool of `n` threads of its own (work runs in it through `install`), once [`check`] allows
/// them.
pub fn pool(n: usize) -> Result<rayon::ThreadPool, ThreadsError> {
    check(n)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|source| ThreadsError::Start { asked: n, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_outside_one_to_the_cap_are_refused() {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        assert!(matches!(check(0), Err(ThreadsError::Zero)));
        check(1).unwrap();
        check(MAX_PER_CORE * cores).unwrap();
        let e = check(MAX_PER_CORE * cores + 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "at most {} on this machine (8 per core, {cores} cores)",
                8 * cores
            )
        );
        assert!(matches!(pool(0), Err(ThreadsError::Zero)));
        assert_eq!(pool(2).unwrap().current_num_threads(), 2);
    }
}
