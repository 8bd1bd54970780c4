//! Errors of a build's output that refuse it before it writes: another process writing the same
//! table, an interrupted build there that is not this one, an output that is the game's input.

use super::cut;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Another process holds the output's lock file `lock`.
    #[error(
        "{output}: another retrodb process is writing it (it holds {lock}); wait for it to finish or stop it"
    )]
    Locked { output: String, lock: String },

    /// The work files at `checkpoint` are of another build (`why` says what differs).
    #[error(
        "{checkpoint}: the interrupted build there is not this one: {why}. Run it as it was (its game, input and options) to resume it, or add --restart to discard its work files and start over"
    )]
    OtherBuild { checkpoint: String, why: String },

    /// An output (or one of its work files) at `path` that is the game's input file.
    #[error(
        "{path}: this is the input file of {} ({}); a build writes its table there, which would destroy the input: give another output with -o",
        cut(.spec), cut(.input)
    )]
    OverwritesInput {
        path: String,
        spec: String,
        input: String,
    },
}
