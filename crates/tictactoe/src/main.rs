//! retrodb's command line with tic-tac-toe registered: `tictactoe build ttt:3x3,3 -o t.rdb`,
//! `tictactoe probe t.rdb ...`, `tictactoe serve t.rdb`, and every other command.

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Err(e) = retrodb_tictactoe::register() {
        eprintln!("tictactoe: {e}");
        return ExitCode::FAILURE;
    }
    retrodb::apps::cli::main()
}
