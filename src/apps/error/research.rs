//! Errors of the research reports: a table that is not the one a report reads, options it
//! cannot use, a table whose tiers disagree with its header, a file its charts cannot draw.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResearchError {
    /// The report reads Bridg-It tables and `spec` is another game.
    #[error("research needs a Bridg-It table")]
    NotBridgit,

    /// A Bridg-It table of another size than asked.
    #[error("table {path} holds {spec}, not bridgit:{n}")]
    OtherSize { path: String, spec: String, n: u32 },

    /// The complete report of a table that is not every configuration with remoteness.
    #[error(
        "table {path} holds {spec}{}: the complete report needs bridgit:{n} with remoteness (every configuration, either player to move); give --sample N for the figures a uniform sample of the play population can give from it",
        if *.remoteness { "" } else { " without remoteness" }
    )]
    NotComplete {
        path: String,
        spec: String,
        n: u32,
        remoteness: bool,
    },

    /// The sample of a table whose game has Right moving first.
    #[error("table {path} holds {spec}: the play population has Left moving first")]
    RightFirst { path: String, spec: String },

    /// No convention, or a convention of 0 free moves.
    #[error("research: give at least one convention C >= 1 (free moves of a finished board)")]
    Conventions,

    #[error("research: --sample needs at least 1 position")]
    EmptySample,

    /// A size the sampling by Lehman's criterion does not take, for that population.
    #[error(
        "research bridgit: Lehman's sampling takes sizes 2 to 6 for the population 'all' and 2 to 4 for 'play', not size {n} for '{population}'"
    )]
    LehmanSize { n: u32, population: String },

    /// A board size `research late` does not take.
    #[error("research late: --size {n} is not supported (sizes 2 to 4)")]
    LateSize { n: u32 },

    /// More empty cells asked of `research late` (`option` is `--exact-to` or `--sample-to`)
    /// than the board has.
    #[error(
        "research late: {option} {empty} is more empty cells than bridgit:{n} has; give 0 to {cells}"
    )]
    LateEmpty {
        option: &'static str,
        empty: u32,
        n: u32,
        cells: u32,
    },

    /// Game values of a game that is not a plain board's full table.
    #[error("{spec}: game values need the full table of a plain board")]
    NotPlainBoard { spec: String },

    /// A Bridg-It board whose Left graph has no two edge-disjoint spanning trees.
    #[error("bridgit:{n}: Left's graph has no two spanning trees")]
    NoSpanningTrees { n: u32 },

    /// A board alternation reaches that the table's game has no index for.
    #[error("{spec} holds no index for a board alternation reaches")]
    NoIndex { spec: String },

    /// A table whose values disagree with Lehman's criterion: the table is wrong.
    #[error(
        "table {path} disagrees with Lehman's criterion on {disagreements} of the {values} values compared; the first: {position}, the table says {table} for the mover, Lehman {lehman} (the table is wrong: `retrodb verify` it, and build it again)"
    )]
    NotLehman {
        path: String,
        disagreements: u64,
        values: u64,
        position: String,
        table: crate::base::value::Value,
        lehman: crate::base::value::Value,
    },

    /// A position the scan reached that the table holds no value for.
    #[error("table holds no value for {position}")]
    NoValue { position: String },

    /// The tiers of a table whose game is not solved tier by tier (`takes`: the spec kinds
    /// that are).
    #[error(
        "{path}: research tiers takes the tables of games solved tier by tier ({takes}); its game {spec} is solved without tiers"
    )]
    NoTiers {
        path: String,
        spec: String,
        takes: String,
    },

    /// An index the game's tier walk lists that the table holds as unused.
    #[error(
        "{path}: the game's tier walk lists index {index} ({position}), which the table holds as unused"
    )]
    UnusedInTier {
        path: String,
        index: u64,
        position: String,
    },

    /// Tiers that do not add up to the header's counts: `tiers` and `header` are
    /// `[positions, win, loss, draw]`.
    #[error(
        "{path}: the tiers hold {} positions ({} win, {} loss, {} draw) but the header counts {} ({} win, {} loss, {} draw)",
        .tiers[0], .tiers[1], .tiers[2], .tiers[3], .header[0], .header[1], .header[2], .header[3]
    )]
    TierCounts {
        path: String,
        tiers: [u64; 4],
        header: [u64; 4],
    },

    /// A file `research chart` cannot draw: unreadable, not JSON, or not a report it knows.
    #[error("research chart: {path}: {reason}")]
    ChartInput { path: String, reason: String },

    /// Reports `research chart` cannot draw together (of two kinds, or two of one size).
    #[error("research chart: {first} and {second}: {reason}")]
    ChartClash {
        first: String,
        second: String,
        reason: String,
    },

    /// The drawing library refused a chart (a bug of the chart, not of its input).
    #[error("research chart: drawing {chart} failed: {reason}")]
    ChartDraw { chart: String, reason: String },
}
