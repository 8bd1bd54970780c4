//! The `retrodb` command line: parses arguments, calls the library, prints. No game logic lives
//! here; each subcommand is one file under `cli/`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            // The library's messages already name the file and the cause: one line.
            eprintln!("retrodb: {e}");
            ExitCode::FAILURE
        }
    }
}
