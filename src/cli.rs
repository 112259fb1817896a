//! Every flag of pgnfen, in one place (docs/commands.md).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use clap_complete::Shell;

use pgnfen::class::Class;
use pgnfen::fen::{Dialect, EpPolicy};

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
    #[arg(short = 'j', long = "threads", global = true, value_name = "N", value_parser = parse_threads)]
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
    /// Read plain files with read() instead of memory-mapping them (slower; a
    /// mapped file that another program truncates still ends the run cleanly)
    #[arg(long, global = true)]
    pub no_mmap: bool,
}

/// `-j N`: at least one thread (`0` would silently mean "all cores").
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave -j out to use every core)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy the games of the given classes, Chess960 start positions or tag values byte for byte
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen filter --class standard -o classical.pgn.zst --rest others.pgn.zst lichess.pgn.zst\n",
        "  pgnfen filter --class chess960 --chess960-position 518,0 tcec.pgn\n",
        "  pgnfen filter --tag 'WhiteElo>=2500' --tag 'Event~Classical' -o strong.pgn lichess.pgn.zst\n",
        "\n",
        exit_status!()
    ))]
    Filter(FilterArgs),
    /// Write each game to a file per class, in one pass
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen split -o 'by-class/{class}.pgn.zst' lichess.pgn.zst\n",
        "  pgnfen split --class chess960,crc --tag 'WhiteElo>=2000' -o 'out/{class}.pgn' tcec.pgn\n",
        "\n",
        exit_status!()
    ))]
    Split(SplitArgs),
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
    /// Write every game's headers as a table: Parquet, CSV or JSON lines
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen export -o games.parquet lichess.pgn.zst\n",
        "  pgnfen export --tags White,Black,WhiteElo,BlackElo -o elo.csv.zst tcec.pgn\n",
        "  pgnfen export --tags all --tag 'Variant~960' -o chess960.jsonl games.pgn\n",
        "\n",
        "Columns: file, game, offset, length, line, class, chess960_position, variant, fen,\n",
        "problems, the tag columns (WhiteElo and BlackElo as integers), other_tags.\n",
        "\n",
        exit_status!()
    ))]
    Export(ExportArgs),
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
    /// Classes to keep: standard, setup, chess960, crc, other, malformed (default: every class)
    #[arg(long, value_delimiter = ',', value_name = "CLASS[,CLASS...]")]
    pub class: Vec<Class>,
    /// Keep only Chess960 games from these start positions (0 to 959)
    #[arg(long = "chess960-position", value_delimiter = ',', value_name = "N[,N...]", value_parser = parse_chess960_position)]
    pub chess960_position: Vec<u16>,
    /// Keep only games whose tag satisfies EXPR: NAME OP VALUE, OP one of = != ~ !~ < <= > >= (repeatable, all must hold)
    #[arg(long = "tag", value_name = "EXPR", value_parser = pgnfen::select::parse_tag_expr)]
    pub tag: Vec<pgnfen::select::TagExpr>,
    /// Output for the kept games (default: standard output)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output for every other game
    #[arg(long, value_name = "FILE")]
    pub rest: Option<PathBuf>,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

/// A Chess960 start position number, with a message in words (not Rust range syntax).
fn parse_chess960_position(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(n) if n < 960 => Ok(n),
        _ => Err(format!(
            "{s:?} is not a Chess960 start position number (0 to 959)"
        )),
    }
}

#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Write only games of these classes (default: every class)
    #[arg(long, value_delimiter = ',', value_name = "CLASS[,CLASS...]")]
    pub class: Vec<Class>,
    /// Write only games whose tag satisfies EXPR (as for filter; repeatable, all must hold)
    #[arg(long = "tag", value_name = "EXPR", value_parser = pgnfen::select::parse_tag_expr)]
    pub tag: Vec<pgnfen::select::TagExpr>,
    /// Output file name, `{class}` replaced by each game's class (e.g. 'out/{class}.pgn.zst')
    #[arg(short, long, value_name = "TEMPLATE", required = true)]
    pub output: String,
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
    /// Also insert a missing [SetUp "1"] before the FEN tag, and [Variant "Chess960"]
    /// for a Chess960 game without a Variant tag
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
    /// With --format csv: write cells as they are, without the single quote put
    /// before a cell that starts with =, +, -, @, tab or CR (a spreadsheet
    /// formula)
    #[arg(long)]
    pub csv_raw: bool,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Count only games whose tag satisfies EXPR (as for filter; repeatable, all must hold)
    #[arg(long = "tag", value_name = "EXPR", value_parser = pgnfen::select::parse_tag_expr)]
    pub tag: Vec<pgnfen::select::TagExpr>,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format (default: from -o's ending, .parquet, .csv or .jsonl; JSON
    /// lines on standard output)
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
    /// Tag columns: NAME[,NAME...], or `all` for one column per tag name met
    /// (not with standard input) [default: Event, Site, Date, Round, White,
    /// Black, Result, WhiteElo, BlackElo, ECO, Opening, TimeControl,
    /// Termination, UTCDate, UTCTime]; every other tag goes to other_tags
    #[arg(long, value_name = "NAME[,NAME...]|all")]
    pub tags: Option<String>,
    /// Export only games whose tag satisfies EXPR (as for filter; repeatable, all must hold)
    #[arg(long = "tag", value_name = "EXPR", value_parser = pgnfen::select::parse_tag_expr)]
    pub tag: Vec<pgnfen::select::TagExpr>,
    /// Output file (default: standard output); .csv and .jsonl may end in .gz, .bz2 or .zst
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// CSV: write text cells as they are (by default control characters are
    /// escaped and a cell starting with =, +, -, @, tab or CR gets a leading ')
    #[arg(long)]
    pub csv_raw: bool,
    /// PGN files (`-` for standard input, the default)
    pub inputs: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Apache Parquet, zstd-compressed column chunks
    Parquet,
    /// Comma-separated values with a header row; problems and other_tags as JSON text
    Csv,
    /// One JSON object per line
    Jsonl,
}

#[derive(Debug, Args)]
pub struct FenArgs {
    /// Rewrite every record in this dialect (with --format json: accepted, the
    /// object holds all three dialects)
    #[arg(long, value_enum)]
    pub to: Option<Dialect>,
    /// En passant policy (default: the dialect's)
    #[arg(long, value_enum)]
    pub ep: Option<EpPolicy>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// A FEN or EPD record given on the command line (repeatable); these come
    /// before the records of the files
    #[arg(
        short = 'r',
        long = "record",
        value_name = "RECORD",
        allow_hyphen_values = true
    )]
    pub records: Vec<String>,
    /// Output file (default: standard output); may name an input, which is read
    /// before it is replaced
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// FEN or EPD files, one record a line, compressed or not (`-` for standard
    /// input, the default when neither a FILE nor -r is given)
    pub inputs: Vec<String>,
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
