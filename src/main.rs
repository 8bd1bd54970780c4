//! The `retrodb` command line: parses arguments, calls the library, prints. No game logic lives
//! here; each subcommand is one file under `cli/`.

#[macro_use]
mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Before anything that may use an instruction of the build's x86-64 level.
    if let Some(message) = retrodb::base::cpu::unsupported_message() {
        errln!("retrodb: {message}");
        return ExitCode::FAILURE;
    }
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return cli::out::clap_exit(&e),
    };
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => match cli::stdout_error(&e) {
            // The reader closed the pipe (`| head`): what it wanted it has.
            Some(out) if out.is_closed_pipe() => ExitCode::SUCCESS,
            Some(out) => {
                errln!("retrodb: {out}");
                ExitCode::FAILURE
            }
            None => {
                // The library's messages already name the file and the cause: one line.
                errln!("retrodb: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
