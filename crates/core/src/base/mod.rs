//! What every layer shares, beside the stack of docs/ARCHITECTURE.md: the 2-bit cells and the
//! decision rule ([`cells`]), bounds and cancellation of work done for a request ([`budget`]), generalized Sprague-Grundy values and the sum rule ([`grundy`]),
//! what "no remoteness" is in each encoding (`remoteness`), memory limits and disk space
//! ([`memory`]), lines read with a cap on their length ([`lines`]) and the inputs read
//! through that cap, devices refused ([`inputs`]), the progress trait every
//! long operation reports through ([`progress`]), the one random generator ([`splitmix`]), and
//! the kernels' instruction level chosen at run time and the check that the CPU has the
//! instructions the build uses ([`cpu`]), and the value of a
//! position ([`value`], which the game contract re-exports). Any layer may use them; they
//! import no layer but the error.

pub mod budget;
pub mod cells;
pub mod cpu;
pub mod error;
pub mod grundy;
pub mod inputs;
pub mod lines;
pub mod memory;
pub mod progress;
pub(crate) mod remoteness;
pub mod splitmix;
pub mod value;
