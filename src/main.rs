//! The pgnfen command line: flags → command → exit status (0, 1, 2).

use std::process::ExitCode;

use clap::FromArgMatches;

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
            if e.use_stderr() && tainted_arguments().next().is_some() {
                say_raw!("{}", escaped_usage_error(&e));
            } else if let Err(io) = e.print() {
                // `--help` or `--version` to a full disk fails like any other
                // output (a closed pipe is no failure: the reader had enough).
                if !e.use_stderr() && io.kind() != std::io::ErrorKind::BrokenPipe {
                    say!("pgnfen: <stdout>: {io}");
                    return ExitCode::from(2);
                }
            }
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Command::Export(args) = &cli.command
        && !cli.global.no_mmap
        && !args.inputs.is_empty()
        && args.inputs.iter().all(|path| is_plain_file(path))
    {
        keep_freed_memory();
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

/// Has glibc's allocator keep freed blocks of up to 1 MiB for the next ones,
/// for `export`. By default its threshold moves: a freed block above 128 KiB
/// is unmapped at first, and its pages fault in again when the next one is
/// made (`export`'s column buffers and compressed pages did that thousands of
/// times a run), until the threshold has risen to the largest block freed so
/// far, after which blocks of many MiB come from the heap and leave holes
/// there that it cannot give back. A fixed 1 MiB keeps the first gain (0.962
/// of `export`'s wall time on the benchmark archive when both thresholds
/// were raised to 32 and 64 MiB, 21 paired runs; 1 MiB instead of 32 MiB:
/// 0.993, 10 pairs) without the second: the peak over 400 MB of headers
/// with 15 tags beyond the columns went from 108 to 90 MiB. The other
/// commands reuse their large buffers and gained 1 % or less: not for them.
/// Nor for an input that `export` does not map (compressed, a zip, standard
/// input, `--no-mmap`): its chunks are then buffers of the heap, a zstd
/// file's frames are decoded on every thread, and the defaults held less (a
/// zip of the plain archive: 83 MiB instead of 87, its gzip 76 instead of
/// 85).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes two of the allocator's thresholds; it is
    // called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// Whether `path` is a regular file of uncompressed text, which the run maps
/// (reading a FIFO here would take its bytes from the run).
fn is_plain_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(16);
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path).is_ok_and(|f| f.take(16).read_to_end(&mut head).is_ok())
        && pgnfen::pipeline::Compression::sniff(&head) == pgnfen::pipeline::Compression::None
}

/// The arguments that hold a control character (a newline in a file name), a
/// bidirectional control, or the GitHub runner's older form of command, `##[`.
fn tainted_arguments() -> impl Iterator<Item = String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a.chars().any(pgnfen::escape::is_escaped) || a.contains("##["))
}

/// clap's report of a usage error, with the text it quotes from the
/// arguments escaped: a newline in a name or value must not start a line of
/// its own, which a GitHub workflow reading standard error could take for a
/// command (`::error::...`), and no `##[` may stand in it. Only when an
/// argument holds a control character or `##[`; otherwise clap prints its
/// report as it is.
fn escaped_usage_error(e: &clap::Error) -> String {
    let mut text = e.render().to_string();
    for argument in tainted_arguments() {
        // clap quotes an argument whole, its value after `=`, or one of the
        // values of a list.
        let value = argument.split_once('=').map(|(_, v)| v.to_string());
        let mut pieces: Vec<String> = std::iter::once(argument.clone()).chain(value).collect();
        let items: Vec<String> = pieces
            .iter()
            .flat_map(|p| p.split(',').map(str::to_string).collect::<Vec<_>>())
            .collect();
        pieces.extend(items);
        // A cluster of short flags (`-x`) is reported flag by flag: `'-C'`
        // for each character C it does not know.
        if argument.starts_with('-') && !argument.starts_with("--") {
            pieces.extend(
                argument
                    .chars()
                    .filter(|c| pgnfen::escape::is_escaped(*c))
                    .map(|c| format!("-{c}")),
            );
        }
        pieces.sort_by_key(|p| std::cmp::Reverse(p.len()));
        for piece in pieces
            .iter()
            .filter(|p| p.chars().any(pgnfen::escape::is_escaped))
        {
            text = text.replace(piece.as_str(), &pgnfen::escape::controls(piece));
        }
    }
    // clap's own words never hold `##[`: any in the report was quoted.
    let text = pgnfen::escape::legacy_command_free(&text).into_owned();
    // Whatever was quoted in a way not foreseen: no line may begin with `::`.
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.starts_with("::") {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}
