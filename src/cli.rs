//! Every flag of pgnfen, in one place (SPEC §4).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use clap_complete::Shell;

use crate::class::Class;
use crate::fen::{Dialect, EpPolicy};

/// The exit statuses, ending every command's `--help` (and in the man page).
macro_rules! exit_status {
    () => {
        "Exit status: 0 on success; 1 when `check` found an error (or a warning, with \
         --deny-warnings) or `fen` an invalid record; 2 on a usage or I/O error."
    };
}

#[derive(Debug, Parser)]
#[command(
    name = "pgnfen",
    version,
    about = "Classify, filter, convert and check the start-position headers (SetUp, FEN, Variant) of PGN archives",
    after_help = concat!(
        "Examples:\n",
        "  pgnfen stats lichess_db_standard_rated_2024-01.pgn.zst\n",
        "  pgnfen filter --class chess960 -o chess960.pgn --rest others.pgn games.pgn\n",
        "  pgnfen check --warnings --format github book.pgn\n",
        "\n",
        exit_status!()
    )
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct Global {
    /// Worker threads (default: all cores)
    #[arg(short = 'j', long = "threads", global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar and no summaries on standard error
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Show a progress bar on standard error (default when it is a terminal)
    #[arg(long, global = true, overrides_with = "no_progress")]
    pub progress: bool,
    /// Never show a progress bar
    #[arg(long, global = true, overrides_with = "progress")]
    pub no_progress: bool,
    /// Read plain files as streams instead of memory-mapping them (for files that
    /// another program may truncate while pgnfen reads them)
    #[arg(long, global = true)]
    pub no_mmap: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy the games of the given classes byte for byte
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen filter --class standard -o classical.pgn.zst --rest others.pgn.zst lichess.pgn.zst\n",
        "  pgnfen filter --class chess960 --chess960-position 518,0 tcec.pgn\n",
        "  pgnfen filter --class malformed games.pgn | pgnfen check\n",
        "\n",
        exit_status!()
    ))]
    Filter(FilterArgs),
    /// Rewrite FEN tags in another castling dialect, changing nothing else
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen convert --to shredder -o out.pgn in.pgn\n",
        "  pgnfen convert --to xfen --repair -o book.pgn book.pgn\n",
        "  pgnfen convert --to fen --ep legal games.pgn.gz > games.pgn\n",
        "\n",
        exit_status!()
    ))]
    Convert(ConvertArgs),
    /// Report malformed or inconsistent SetUp/FEN/Variant headers
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen check --warnings book.pgn\n",
        "  pgnfen check --format github --deny-warnings book.pgn\n",
        "  pgnfen check --format sarif book.pgn > pgnfen.sarif\n",
        "\n",
        exit_status!()
    ))]
    Check(CheckArgs),
    /// Count games by class, Chess960 start position and problem
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen stats archive.pgn.zst\n",
        "  pgnfen stats --format json archive.pgn | jq .classes\n",
        "\n",
        exit_status!()
    ))]
    Stats(StatsArgs),
    /// Convert and classify bare FEN records
    #[command(after_help = concat!(
        "Examples:\n",
        "  echo 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' | pgnfen fen --to shredder\n",
        "  pgnfen fen --format json < positions.fen\n",
        "\n",
        exit_status!()
    ))]
    Fen(FenArgs),
    /// Print a completion script for a shell
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen completions bash > ~/.local/share/bash-completion/completions/pgnfen\n",
        "  pgnfen completions zsh > ~/.zfunc/_pgnfen\n",
        "  pgnfen completions fish > ~/.config/fish/completions/pgnfen.fish\n",
        "\n",
        exit_status!()
    ))]
    Completions(CompletionsArgs),
    /// Print the manual page (roff)
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen man > ~/.local/share/man/man1/pgnfen.1\n",
        "  pgnfen man | man -l -\n",
        "\n",
        exit_status!()
    ))]
    Man,
    /// Print each game's byte span, first line and class as JSON lines (for tests and tools)
    #[command(hide = true)]
    Index(IndexArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Classes to keep
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        value_name = "CLASS[,CLASS...]"
    )]
    pub class: Vec<Class>,
    /// Keep only Chess960 games from these start positions (0-959)
    #[arg(long = "chess960-position", value_delimiter = ',', value_name = "N[,N...]", value_parser = clap::value_parser!(u16).range(0..960))]
    pub chess960_position: Vec<u16>,
    /// Output for the kept games (default: standard output)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output for every other game
    #[arg(long, value_name = "FILE")]
    pub rest: Option<PathBuf>,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The dialect to write
    #[arg(long, value_enum)]
    pub to: Dialect,
    /// En passant policy (default: the dialect's)
    #[arg(long, value_enum)]
    pub ep: Option<EpPolicy>,
    /// Also insert a missing [SetUp "1"] before the FEN tag
    #[arg(long)]
    pub repair: bool,
    /// Output file (default: standard output)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// How to print the problems (the summary goes to standard error in the
    /// machine formats)
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Also report warnings
    #[arg(long)]
    pub warnings: bool,
    /// Count warnings as errors for the exit status (implies --warnings)
    #[arg(long)]
    pub deny_warnings: bool,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct FenArgs {
    /// Write the records in this dialect
    #[arg(long, value_enum)]
    pub to: Option<Dialect>,
    /// En passant policy (default: the dialect's)
    #[arg(long, value_enum)]
    pub ep: Option<EpPolicy>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// FEN records (default: one a line from standard input)
    pub fens: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// Compiler-style diagnostics: file:line:column, the tag line, a caret
    Text,
    /// One JSON object per problem (JSON lines)
    Json,
    /// One row per problem, with a header row
    Csv,
    /// GitHub Actions workflow commands (::error/::warning) that annotate the file
    Github,
    /// One SARIF 2.1.0 log, for code-scanning dashboards
    Sarif,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn flags_are_consistent() {
        Cli::command().debug_assert();
    }
}
