//! Errors of a distributed build's MPI transport: a process not started by a launcher, an MPI
//! library without the threads retrodb needs, an exchange over MPI's counts. (A rank that
//! fails is `Error::Rank`.)

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MpiError {
    #[error(
        "--mpi: this process was not started by an MPI launcher; run it as `mpirun -np K retrodb build ... --mpi` (or under srun)"
    )]
    NoLauncher,

    #[error("--mpi: MPI is initialised already")]
    Initialised,

    /// The thread level the library offers (as MPI names it), below `MPI_THREAD_FUNNELED`.
    #[error(
        "--mpi: the MPI library offers threads at the level {level} only; retrodb's ranks solve with threads and need MPI_THREAD_FUNNELED"
    )]
    Threading { level: String },

    /// An exchange of `count` items (`what`) over MPI's 32-bit counts.
    #[error("an MPI exchange of {count} {what} is over MPI's 32-bit counts")]
    Count { count: usize, what: String },
}
