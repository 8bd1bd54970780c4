//! What every layer shares, beside the stack of docs/ARCHITECTURE.md: the 2-bit cells and the
//! decision rule ([`cells`]), bounds and cancellation of work done for a request ([`budget`]), generalized Sprague-Grundy values and the sum rule ([`grundy`]),
//! what "no remoteness" is in each encoding ([`remoteness`]), memory limits and disk space
//! ([`memory`]), the progress trait every long operation reports through ([`progress`]) and
//! the one random generator ([`splitmix`]). Any layer may use them; they import no layer but
//! the error (and `grundy` the game contract's values).

pub mod budget;
pub mod cells;
pub mod grundy;
pub mod memory;
pub mod progress;
pub mod remoteness;
pub mod splitmix;
