//! Every flag of pgnfen, in one place (docs/commands.md).
//!
//! `tests/manners.rs` compiles this file into the test itself (`#[path]`), to
//! check the flags, the man page and the completions without running the
//! binary: so it may use only `std`, `clap`, `clap_complete` and `pgnfen`,
//! never `crate::` items of the program.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

use clap_complete::Shell;

use pgnfen::class::Class;
use pgnfen::fen::{Dialect, EpPolicy};
use pgnfen::pipeline::Options;
use pgnfen::speed::Speed;

/// The exit statuses of the whole program, ending the top-level `--help` (the
/// man page lists them in its own section).
macro_rules! exit_status {
    () => {
        "Exit status: 0 on success; 1 when `check` found an error (or a warning, with \
         --deny-warnings) or `fen` an invalid record; 2 on a usage or I/O error."
    };
}

/// The exit statuses of a command that never exits with 1: each command's
/// `--help` says only what applies to it.
macro_rules! exit_status_plain {
    () => {
        "Exit status: 0 on success; 2 on a usage or I/O error."
    };
}

/// The commands that read no input (`man`, `completions`, `explain`): the
/// global options (`-j`, `-q`, `--progress`, `--no-mmap`, ...) mean nothing to
/// them, so their `--help` and the completions offered after them leave those out.
const NO_INPUT_COMMANDS: [&str; 3] = ["man", "completions", "explain"];

/// The command-line definition as parsed and completed: [`Cli`]'s, with the
/// global options hidden after the commands that read no input. clap copies a
/// global option into every command when the definition is built, except into
/// a command that already has an argument of that name: those commands get a
/// hidden copy first (still accepted, so `pgnfen -j4 man` is no error).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let globals: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.clone().global(false).hide(true))
        .collect();
    // Every command in turn (`mut_subcommand` moves a command to the end of
    // the list, so touching all of them in order keeps the order of `--help`).
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let hidden = NO_INPUT_COMMANDS.contains(&name.as_str());
        let globals = globals.clone();
        cmd = cmd.mut_subcommand(name, |sub| if hidden { sub.args(globals) } else { sub });
    }
    cmd
}

/// The definition the completion scripts are generated from: as [`command`],
/// but with the global options copied by hand into the commands that read
/// input instead of made global, because some generators (bash's) offer
/// hidden options too; after `man`, `completions` and `explain` none is offered.
pub fn completion_command() -> clap::Command {
    use clap::CommandFactory;
    let full = Cli::command();
    // The command again without its hidden subcommands (`index`): clap can
    // add a subcommand but not remove one, and the completion generators
    // list hidden ones, which `--help` and the manual leave out.
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let mut cmd = clap::Command::new(leak(full.get_name()))
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    if let Some(version) = full.get_version() {
        cmd = cmd.version(leak(version));
    }
    if let Some(about) = full.get_about() {
        cmd = cmd.about(about.clone());
    }
    let globals: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.clone().global(false))
        .collect();
    for a in &globals {
        cmd = cmd.mut_arg(a.get_id().clone(), |a| a.global(false));
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let takes_input = !NO_INPUT_COMMANDS.contains(&name.as_str());
        let globals = globals.clone();
        cmd = cmd.mut_subcommand(
            name,
            |sub| if takes_input { sub.args(globals) } else { sub },
        );
    }
    cmd
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
    /// Worker threads, 1 to 1024 (default: all cores; never more than the cores, nor than the input can keep busy)
    #[arg(short = 'j', long = "threads", global = true, value_name = "N", value_parser = parse_threads, value_hint = clap::ValueHint::Other)]
    pub threads: Option<usize>,
    /// No progress bar, summaries or notes on standard error (reports of bad records and FENs still show)
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Show progress on standard error: a bar on a terminal, else a plain line every few seconds
    /// (default: a bar when standard error is a terminal and the results do not stream to it)
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

/// `-j N`: at least one thread (`0` would silently mean "all cores"), at most
/// [`Options::MAX_THREADS`] (a million threads would take minutes just to start).
fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave -j out to use every core)".into()),
        Ok(n) if n > Options::MAX_THREADS => Err(format!(
            "must be at most {} (leave -j out to use every core)",
            Options::MAX_THREADS
        )),
        Ok(n) => Ok(n),
        // Past usize: as out of range as 1,025.
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(format!(
            "must be at most {} (leave -j out to use every core)",
            Options::MAX_THREADS
        )),
        Err(_) => Err("must be a whole number of threads, such as 2".into()),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy the games of the given classes, Chess960 start positions, tag values or speeds byte for byte
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen filter --class standard --speed classical -o classical.pgn.zst --rest others.pgn.zst lichess.pgn.zst\n",
        "  pgnfen filter --class chess960 --chess960-position 518,0 tcec.pgn\n",
        "  pgnfen filter --tag 'WhiteElo>=2500' --tag 'Event~Classical' -o strong.pgn lichess.pgn.zst\n",
        "\n",
        exit_status_plain!()
    ))]
    Filter(FilterArgs),
    /// Write each game to a file per class or speed, in one pass
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen split -o 'by-class/{class}.pgn.zst' lichess.pgn.zst\n",
        "  pgnfen split --class chess960,crc --tag 'WhiteElo>=2000' -o 'out/{class}.pgn' tcec.pgn\n",
        "  pgnfen split -o 'out/{speed}-{class}.pgn' lichess.pgn.zst\n",
        "\n",
        exit_status_plain!()
    ))]
    Split(SplitArgs),
    /// Rewrite FEN tags in another castling dialect, changing nothing else
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen convert --to shredder -o out.pgn in.pgn\n",
        "  pgnfen convert --to xfen --repair --in-place a.pgn b.pgn.gz c.pgn.zst\n",
        "  pgnfen convert --to fen --ep legal games.pgn.gz > games.pgn\n",
        "\n",
        exit_status_plain!()
    ))]
    Convert(ConvertArgs),
    /// Report malformed or inconsistent SetUp/FEN/Variant headers
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen check --warnings book.pgn\n",
        "  pgnfen check --format github --deny-warnings book.pgn\n",
        "  pgnfen check --format sarif book.pgn > pgnfen.sarif\n",
        "\n",
        "Exit status: 0 when no error was found; 1 when an error was (or a warning, with --deny-warnings); 2 on a usage or I/O error."
    ))]
    Check(CheckArgs),
    /// Count games by class, speed, Chess960 start position and problem
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen stats archive.pgn.zst\n",
        "  pgnfen stats --format json archive.pgn | jq .classes\n",
        "\n",
        exit_status_plain!()
    ))]
    Stats(StatsArgs),
    /// Write every game's headers as a table: Parquet, CSV or JSON lines
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen export -o games.parquet lichess.pgn.zst\n",
        "  pgnfen export --tags White,Black,WhiteElo,BlackElo -o elo.csv.zst tcec.pgn\n",
        "  pgnfen export --tags all --tag 'Variant~960' -o chess960.jsonl games.pgn\n",
        "\n",
        "Columns: file, game, offset, length, line, class, chess960_position, speed,\n",
        "time_base, time_increment, variant, fen,\n",
        "problems, the tag columns (WhiteElo and BlackElo as integers), other_tags.\n",
        "\n",
        exit_status_plain!()
    ))]
    Export(ExportArgs),
    /// Convert and classify bare FEN and EPD records
    #[command(after_help = concat!(
        "Examples:\n",
        "  echo 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' | pgnfen fen --to shredder\n",
        "  pgnfen fen --format json < positions.fen\n",
        "  pgnfen fen --to shredder --in-place book.epd openings.epd.gz\n",
        "\n",
        "Exit status: 0 on success; 1 when a record is invalid; 2 on a usage or I/O error."
    ))]
    Fen(FenArgs),
    /// Print a completion script for a shell
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen completions bash > ~/.local/share/bash-completion/completions/pgnfen\n",
        "  pgnfen completions zsh > ~/.zfunc/_pgnfen\n",
        "  pgnfen completions fish > ~/.config/fish/completions/pgnfen.fish\n",
        "\n",
        exit_status_plain!()
    ))]
    Completions(CompletionsArgs),
    /// Print the reference page of a problem code (as in docs/codes.md)
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen explain fen-syntax\n",
        "  pgnfen explain missing-clocks | less\n",
        "\n",
        "Exit status: 0 on success; 2 when CODE is not a problem code."
    ))]
    Explain(ExplainArgs),
    /// Print the manual page (roff)
    #[command(after_help = concat!(
        "Examples:\n",
        "  pgnfen man > ~/.cargo/share/man/man1/pgnfen.1\n",
        "  pgnfen man | man -l -\n",
        "\n",
        exit_status_plain!()
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
pub struct ExplainArgs {
    /// A problem code, as reports print it (`fen-syntax`, `missing-clocks`, ...)
    #[arg(value_name = "CODE")]
    pub code: String,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// The selections by tag and speed that `filter`, `split`, `stats` and
/// `export` share (a game must satisfy all that are given).
#[derive(Debug, Args)]
pub struct Selecting {
    /// Only games whose tag satisfies EXPR: NAME OP VALUE, OP one of = != ~ !~ < <= > >= (repeatable, all must hold)
    #[arg(long = "tag", value_name = "EXPR", value_parser = clap::value_parser!(pgnfen::select::TagExpr))]
    pub tag: Vec<pgnfen::select::TagExpr>,
    /// Only games of these speeds, from the TimeControl tag (default: every speed)
    #[arg(long, value_delimiter = ',', value_name = "SPEED[,SPEED...]", value_parser = choice_parser::<Speed>())]
    pub speed: Vec<Speed>,
}

impl Selecting {
    /// The library's selector of these expressions and speeds.
    pub fn selector(&self) -> pgnfen::select::Selector {
        pgnfen::select::Selector::new(&self.tag).with_speeds(&self.speed)
    }
}

#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Classes to keep: standard, setup, chess960, crc, other, malformed (any class when only other selections are given; filter needs at least one)
    #[arg(long, value_delimiter = ',', value_name = "CLASS[,CLASS...]", value_parser = choice_parser::<Class>())]
    pub class: Vec<Class>,
    /// Keep only Chess960 games from these start positions (0 to 959); a game of another class has no start position, so it is not kept (a --class list must include chess960)
    #[arg(long = "chess960-position", value_delimiter = ',', value_name = "N[,N...]", value_parser = parse_chess960_position)]
    pub chess960_position: Vec<u16>,
    #[command(flatten)]
    pub select: Selecting,
    /// Output for the kept games (default: standard output)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output for every other game
    #[arg(long, value_name = "FILE")]
    pub rest: Option<PathBuf>,
    /// Replay each game's mainline from its start position: the `first` move
    /// only, or `all` of them (games with an illegal move go to --rest)
    #[arg(long, value_name = "first|all", value_parser = choice_parser::<pgnfen::moves::MovesMode>())]
    pub moves: Option<pgnfen::moves::MovesMode>,
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// A Chess960 start position number, with a message in words (not Rust range
/// syntax); clap quotes the value before it.
fn parse_chess960_position(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(n) if n < pgnfen::fen::chess960::POSITIONS => Ok(n),
        _ if s.is_empty() => Err("an empty item in the list (a comma too many?)".into()),
        _ => Err("not a Chess960 start position number (0 to 959)".into()),
    }
}

#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Write only games of these classes (default: every class)
    #[arg(long, value_delimiter = ',', value_name = "CLASS[,CLASS...]", value_parser = choice_parser::<Class>())]
    pub class: Vec<Class>,
    #[command(flatten)]
    pub select: Selecting,
    /// Output file name, `{class}` and `{speed}` replaced by each game's class
    /// and speed (at least one of them, and no other word in braces; e.g.
    /// 'out/{speed}-{class}.pgn.zst'); missing folders are created, as
    /// `mkdir -p` does
    #[arg(short, long, value_name = "TEMPLATE", required = true)]
    pub output: PathBuf,
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The dialect to write (a FEN without its two clocks gets `0 1`)
    #[arg(long, value_name = "DIALECT", value_parser = choice_parser::<Dialect>())]
    pub to: Dialect,
    /// En passant policy (default: the dialect's)
    #[arg(long, value_name = "POLICY", value_parser = choice_parser::<EpPolicy>())]
    pub ep: Option<EpPolicy>,
    /// Also insert a missing [SetUp "1"] before the FEN tag, and [Variant "Chess960"]
    /// for a Chess960 game without a Variant tag
    #[arg(long)]
    pub repair: bool,
    /// Output file (default: standard output); with several inputs it may not
    /// name one of them (use --in-place)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Rewrite each input file to itself, atomically, keeping its mode and its
    /// compression (gzip, bzip2, zstd, xz or none)
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
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
    /// Replay each game's mainline from its start position: the `first` move
    /// only, or `all` of them (an unplayable move is the error illegal-move)
    #[arg(long, value_name = "first|all", value_parser = choice_parser::<pgnfen::moves::MovesMode>())]
    pub moves: Option<pgnfen::moves::MovesMode>,
    /// With --format csv: write cells as they are, without the single quote put
    /// before a cell that starts with =, +, -, @, tab or CR (a spreadsheet
    /// formula)
    #[arg(long)]
    pub csv_raw: bool,
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Report format: text (tables of class and speed) or json (one object)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub select: Selecting,
    /// Replay each game's mainline from its start position: the `first` move
    /// only, or `all` of them (counts games checked, illegal and not checked)
    #[arg(long, value_name = "first|all", value_parser = choice_parser::<pgnfen::moves::MovesMode>())]
    pub moves: Option<pgnfen::moves::MovesMode>,
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
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
    #[command(flatten)]
    pub select: Selecting,
    /// How tag names and values are decoded: auto (UTF-8 when valid, else
    /// Windows-1252, each value on its own), utf-8 (also utf8), or latin-1
    /// (Windows-1252; also latin1, iso-8859-1, windows-1252, cp1252)
    #[arg(long, value_name = "ENCODING", default_value = "auto", ignore_case = true, value_parser = encoding_names())]
    pub encoding: String,
    /// Output file (default: standard output); .csv and .jsonl may end in .gz, .bz2, .xz or .zst
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// CSV: write text cells as they are (by default control characters are
    /// escaped and a cell starting with =, +, -, @, tab or CR gets a leading ')
    #[arg(long)]
    pub csv_raw: bool,
    /// PGN files (`-` for standard input, the default)
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
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
    #[arg(long, value_name = "DIALECT", value_parser = choice_parser::<Dialect>())]
    pub to: Option<Dialect>,
    /// En passant policy (default: the dialect's)
    #[arg(long, value_name = "POLICY", value_parser = choice_parser::<EpPolicy>())]
    pub ep: Option<EpPolicy>,
    /// Output format: text (the records, converted with --to) or json (one
    /// object per record: validity, class, problems and the three dialects)
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
    /// Output file (default: standard output); may name a single input, which
    /// is read before it is replaced (with several inputs, use --in-place)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Rewrite each FILE to itself with --to, atomically, keeping its mode and
    /// its compression (gzip, bzip2, zstd, xz or none)
    #[arg(long, conflicts_with_all = ["output", "records"], requires = "to")]
    pub in_place: bool,
    /// FEN or EPD files, one record a line, compressed or not (`-` for standard
    /// input, the default when neither a FILE nor -r is given)
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
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
        command().debug_assert();
        completion_command().debug_assert();
    }

    #[test]
    fn commands_without_input_take_no_global_option_in_help_or_completions() {
        for name in NO_INPUT_COMMANDS {
            let mut cmd = command();
            cmd.build();
            let sub = cmd.find_subcommand(name).unwrap();
            let threads = sub
                .get_arguments()
                .find(|a| a.get_id() == "threads")
                .unwrap();
            assert!(threads.is_hide_set(), "{name}");
            let mut cmd = completion_command();
            cmd.build();
            let sub = cmd.find_subcommand(name).unwrap();
            assert!(
                sub.get_arguments().all(|a| a.get_id() != "threads"),
                "{name}"
            );
        }
        let mut cmd = completion_command();
        cmd.build();
        let filter = cmd.find_subcommand("filter").unwrap();
        assert!(filter.get_arguments().any(|a| a.get_id() == "threads"));
    }

    #[test]
    fn completions_offer_what_help_shows() {
        let mut cmd = completion_command();
        cmd.build();
        let mut full = Cli::command();
        full.build();
        let visible: Vec<&str> = full
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name())
            .collect();
        let offered: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
        assert_eq!(offered, visible);
        assert!(!offered.contains(&"index"));
        assert_eq!(cmd.get_version(), Cli::command().get_version());
        // `--moves` completes its two values, not file names.
        let check = cmd.find_subcommand("check").unwrap();
        let moves = check
            .get_arguments()
            .find(|a| a.get_id() == "moves")
            .unwrap();
        let values: Vec<String> = moves
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(values, ["first", "all"]);
    }
}

// `--class`, `--speed`, `--to` and `--ep` take the library's choices. Their
// names and one-line descriptions are the library's (`as_str`,
// `description`), so `--help`, the manual and the shell completions say what
// the library says, and the library stays free of clap.

/// A choice of the library that a flag takes by name.
trait Choice: Copy + Send + Sync + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    fn description(self) -> &'static str;
}

macro_rules! choice {
    ($($t:ty),*) => {$(
        impl Choice for $t {
            const ALL: &'static [Self] = &<$t>::ALL;
            fn name(self) -> &'static str {
                self.as_str()
            }
            fn description(self) -> &'static str {
                <$t>::description(self)
            }
        }
    )*};
}
choice!(Class, Dialect, EpPolicy, Speed, pgnfen::moves::MovesMode);

/// The value parser of a flag that takes a `T` by its name.
fn choice_parser<T: Choice>() -> ChoiceParser<T> {
    let values = T::ALL
        .iter()
        .map(|c| PossibleValue::new(c.name()).help(c.description()));
    ChoiceParser(PossibleValuesParser::new(values), std::marker::PhantomData)
}

/// The parser of a flag whose values are the names of `T::ALL`. An empty
/// item of a list (`--speed blitz,`) is named as such: clap's own words for
/// it ("a value is required ... but none was supplied") read as if the flag
/// had no value at all.
#[derive(Clone)]
struct ChoiceParser<T>(PossibleValuesParser, std::marker::PhantomData<T>);

impl<T: Choice> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        if let Some(arg) = arg.filter(|a| value.is_empty() && a.get_value_delimiter().is_some()) {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("an empty item in the list of '{arg}' (a comma too many?)\n"),
            )
            .with_cmd(cmd));
        }
        let name = self.0.parse_ref(cmd, arg, value)?;
        Ok(*T::ALL
            .iter()
            .find(|c| c.name() == name)
            .expect("the parser accepts only the names of T::ALL"))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

#[cfg(test)]
mod choice_tests {
    use super::*;

    /// Every name of every choice parses back to its value through its flag's parser.
    fn round_trip<T: Choice + PartialEq + std::fmt::Debug>() {
        let cmd = clap::Command::new("t");
        for &c in T::ALL {
            let parsed = choice_parser::<T>()
                .parse_ref(&cmd, None, std::ffi::OsStr::new(c.name()))
                .unwrap();
            assert_eq!(parsed, c);
        }
        assert!(
            choice_parser::<T>()
                .parse_ref(&cmd, None, std::ffi::OsStr::new("nonsense"))
                .is_err()
        );
    }

    #[test]
    fn every_choice_parses_by_its_library_name() {
        round_trip::<Class>();
        round_trip::<Dialect>();
        round_trip::<EpPolicy>();
        round_trip::<Speed>();
    }
}

/// The names of `--encoding`, with the other names of each encoding (those
/// Python's `encoding=` takes too); the value is the first name.
fn encoding_names() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("auto"),
        PossibleValue::new("utf-8").alias("utf8"),
        PossibleValue::new("latin-1").aliases(["latin1", "iso-8859-1", "windows-1252", "cp1252"]),
    ])
}
