//! The `retrodb` command line ([`retrodb::apps::cli`], a part of the library so that a program with
//! games of its own can run it too).

use std::process::ExitCode;

fn main() -> ExitCode {
    retrodb::apps::cli::main()
}
