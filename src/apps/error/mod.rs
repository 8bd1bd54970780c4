//! The applications' error: what the core's [`crate::Error`] says, or what an application
//! refuses on its own terms (an oracle's graph or census piece, a research report's table or
//! options, an opponent or start of the terminal game). The core's error has no variant for an
//! application; an application's functions return [`AppError`], which the command line prints as
//! it prints the core's.

pub use crate::base::error::cut;

mod oracle;
mod play;
mod research;

pub use oracle::OracleError;
pub use play::PlayError;
pub use research::ResearchError;

/// An application's result.
pub type Result<T, E = AppError> = std::result::Result<T, E>;

/// An error of an application (`apps/`): the core's, or one of the application's own.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// What the library's core refused (a table, a spec, a file, a limit).
    #[error(transparent)]
    Core(#[from] crate::Error),

    /// An oracle's sweep or check that refuses its graph, position or table.
    #[error(transparent)]
    Oracle(#[from] OracleError),

    /// Playing against a table: an opponent or start refused, input ended.
    #[error(transparent)]
    Play(#[from] PlayError),

    /// A research report refusing its table or options.
    #[error(transparent)]
    Research(#[from] ResearchError),
}

impl From<crate::base::error::PositionError> for AppError {
    fn from(e: crate::base::error::PositionError) -> Self {
        AppError::Core(e.into())
    }
}

impl From<crate::base::error::LookupError> for AppError {
    fn from(e: crate::base::error::LookupError) -> Self {
        AppError::Core(e.into())
    }
}

impl From<crate::base::error::table::TableError> for AppError {
    fn from(e: crate::base::error::table::TableError) -> Self {
        AppError::Core(e.into())
    }
}

impl AppError {
    /// The core's error, if that is what this is.
    pub fn core(&self) -> Option<&crate::Error> {
        match self {
            AppError::Core(e) => Some(e),
            _ => None,
        }
    }
}
