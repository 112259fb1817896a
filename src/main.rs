//! The pgnfen command line: flags → command → exit status (0, 1, 2).

use std::process::ExitCode;

use clap::FromArgMatches;

mod cli;
mod commands;
mod format;
mod progress;
mod signals;

use cli::{Cli, Command};
use commands::{Error, Outcome};

fn main() -> ExitCode {
    // Parsed with the definition that hides the global options where they do
    // not apply (`cli::command`), so that `--help` shows what `man` would.
    let parsed = cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Interrupted runs remove their temporary files (exit 130, 143, 129).
    if let Err(e) = signals::install() {
        eprintln!("pgnfen: cannot handle signals: {e}");
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
            // own (a GitHub workflow command reads standard error too).
            eprintln!("pgnfen: {}", pgnfen::escape::controls(&e.to_string()));
            ExitCode::from(2)
        }
    }
}
