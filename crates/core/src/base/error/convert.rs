//! Errors of converting a table (compressing, decompressing) that the table or the options
//! refuse before any byte is written.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    #[error("{path} is already compressed")]
    AlreadyCompressed { path: String },

    #[error("{path} is not compressed")]
    NotCompressed { path: String },

    /// A frame size that is not a positive multiple of 32 positions at most 2^30.
    #[error(
        "frame size {frame_positions} must be a positive multiple of 32 positions, at most 2^30"
    )]
    FrameSize { frame_positions: u64 },

    #[error("zstd level {level} is outside 1..=22")]
    Level { level: i32 },

    /// `--one-mover` of a game whose moves do not pass the turn.
    #[error(
        "{path}: --one-mover needs a game whose moves pass the turn (a cell game); {spec} is not"
    )]
    OneMoverGame { path: String, spec: String },

    /// A remoteness too large for the raw table's nibbles.
    #[error("{path}: position {index}'s remoteness does not fit the table's nibbles")]
    NibbleOverflow { path: String, index: u64 },
}
