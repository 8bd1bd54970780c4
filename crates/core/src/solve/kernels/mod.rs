//! The tiered engine's kernels that decide positions by a board's shape, one file each, named
//! for the kernel ([`super::plan::Kernel`]); the per-position kernel, which reads the game's
//! tier walk, lives with the dispatcher ([`super::tiered`]).
//!
//! - [`bitplane`]: a plain board, values only, 64 configurations a word operation.
//! - `plain_remoteness`: a plain board with remoteness, children by arithmetic;
//!   [`plain_remoteness_streamed`] runs it with its remoteness handed to a stream.
//! - [`sliced_rows`]: a sliced board, values only, a row at a time.
//! - [`sliced_remoteness`]: a sliced board with remoteness, a row at a time, a nibble a position.

pub(crate) mod bitplane;
pub(crate) mod plain_remoteness;
#[cfg(target_arch = "x86_64")]
mod plain_remoteness_avx2;
pub(crate) mod plain_remoteness_streamed;
pub(crate) mod sliced_frames;
pub(crate) mod sliced_remoteness;
pub(crate) mod sliced_rows;
