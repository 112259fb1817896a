//! The pgnfen command line: flags → command → exit status (0, 1, 2).

use std::process::ExitCode;

/// `eprintln!` that ignores a standard error that cannot be written (closed,
/// `2>/dev/full`): a report that cannot be shown is no reason to panic, and
/// the exit status still says how the run went.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` likewise (see `say!`).
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod cli;
mod commands;
mod format;
mod progress;
mod signals;
mod usage;

use cli::Command;
use commands::{Error, Outcome};

fn main() -> ExitCode {
    let cli = match usage::parse() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    if let Command::Export(args) = &cli.command {
        // Before any other thread exists (see there).
        commands::export::tune_allocator(&cli.global, args);
    }
    // Interrupted runs remove their temporary files (exit 130, 143, 129).
    if let Err(e) = signals::install() {
        say!("pgnfen: cannot handle signals: {e}");
        return ExitCode::from(2);
    }
    let result = match &cli.command {
        Command::Filter(args) => commands::filter::run(&cli.global, args),
        Command::Split(args) => commands::split::run(&cli.global, args),
        Command::Convert(args) => commands::convert::run(&cli.global, args),
        Command::Check(args) => commands::check::run(&cli.global, args),
        Command::Stats(args) => commands::stats::run(&cli.global, args),
        Command::Export(args) => commands::export::run(&cli.global, args),
        Command::Fen(args) => commands::fen::run(&cli.global, args),
        Command::Index(args) => commands::index::run(&cli.global, args),
        Command::Completions(args) => commands::manual::run_completions(args.shell),
        Command::Man => commands::manual::run_man(),
        Command::Explain(args) => commands::explain::run(&args.code),
    };
    match result {
        Ok(Outcome::Clean) | Err(Error::BrokenPipe) => ExitCode::SUCCESS,
        Ok(Outcome::Problems) => ExitCode::from(1),
        Err(e) => {
            // One line whatever a name or a library's message holds: control
            // characters escaped, so that nothing in it can start a line of its
            // own (a GitHub workflow command reads standard error too), nor
            // hold the runner's older form of command, `##[error]`, which a
            // quoted argument could bring (`--tag 'White~##[error]('`).
            let message = pgnfen::escape::controls(&e.to_string()).into_owned();
            say!("pgnfen: {}", pgnfen::escape::legacy_command_free(&message));
            ExitCode::from(2)
        }
    }
}
