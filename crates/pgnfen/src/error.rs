//! The one error type of the library's entry points.

use std::io;
use std::path::{Path, PathBuf};

use crate::pgn::scan::MAX_EXTRA_TAGS;

use crate::pipeline::output::WriteError;
use crate::pipeline::{Input, RunError};

/// Why a run failed. The command line prints it after `pgnfen: ` and exits
/// with status 2; the Python package raises `ValueError` for [`Error::Usage`]
/// and an `OSError` for the others. Non-exhaustive, as [`Usage`] is: a later
/// version may tell more causes apart, so a `match` ends with `_`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A bad argument (an unknown class, a malformed `--tag` expression, two
    /// outputs naming one file, ...): nothing was read or written.
    Usage(Usage),
    /// Reading an input or writing an output failed; `file` is the path as the
    /// caller gave it (never a temporary name).
    Io {
        /// The input or output, as named by the caller (`<stdout>` for
        /// standard output).
        file: String,
        /// What went wrong: its kind, and the system's error code
        /// ([`io::Error::raw_os_error`]) when the system gave one. Said in
        /// the message, so [`std::error::Error::source`] gives what lies
        /// under it (if anything), not it again.
        error: io::Error,
    },
    /// The function the caller gave a run to take its results (the
    /// `report` of [`check::run`](crate::check::run)) returned this error,
    /// and the run stopped there. (One that returns a closed pipe's error
    /// gives [`Error::BrokenPipe`].)
    Report(io::Error),
    /// Standard output was closed (`| head`): a normal, quiet end for a
    /// command-line program.
    BrokenPipe,
    /// The run was stopped through [`Options::cancel`](crate::pipeline::Options::cancel)
    /// before it ended: its outputs were not committed (their temporary
    /// files are gone, existing files untouched), and what it counted is not
    /// the whole input.
    Cancelled,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(usage) => usage.fmt(f),
            Error::Io { file, error } => write!(f, "{file}: {}", io_words(error)),
            Error::Report(error) => f.write_str(&io_words(error)),
            Error::BrokenPipe => f.write_str("broken pipe"),
            Error::Cancelled => f.write_str("interrupted: the run was cancelled"),
        }
    }
}

/// The message says the `io::Error` of [`Error::Io`] and [`Error::Report`]:
/// the source is what lies under it (a missing folder's system error), as
/// `io::Error` itself gives the source of what it holds, so that a chain
/// says each reason once.
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Usage(usage) => usage.source(),
            Error::Io { error, .. } | Error::Report(error) => error.source(),
            Error::BrokenPipe | Error::Cancelled => None,
        }
    }
}

impl From<Usage> for Error {
    fn from(usage: Usage) -> Error {
        Error::Usage(usage)
    }
}

/// A bad argument, each kind its own variant. Nothing was read or written.
/// Displayed as the command line words it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Usage {
    /// A check of the caller's own (the command line's flags, the Python
    /// binding's arguments), in its words.
    #[error("{0}")]
    Argument(String),
    /// An output whose name ends in a compression pgnfen cannot write
    /// (`.zip`, `.7z`, `.lz4`, ...): refused rather than written as plain text
    /// under a misleading name.
    #[error("{file}: {message}")]
    OutputFormat {
        /// The output, as named by the caller.
        file: String,
        /// Which endings pgnfen writes.
        message: String,
    },
    /// A selection that selects nothing: no class, position, tag expression
    /// or speed. `command` names the caller (`filter`, `split`).
    #[error("{command}: say which games to keep with {}", selection_flags(.command))]
    NothingSelected {
        /// The command or function that was given the selection.
        command: String,
    },
    /// A Chess960 start position number past 959.
    #[error("{command}: {number} is not a Chess960 start position number (0 to 959)")]
    NoSuchPosition {
        /// The command or function that was given the selection.
        command: String,
        /// The number given.
        number: u16,
    },
    /// Chess960 start positions asked for, with classes that leave Chess960 out.
    #[error(
        "{command}: --chess960-position selects Chess960 games, but --class does not include chess960"
    )]
    PositionsWithoutChess960 {
        /// The command or function that was given the selection.
        command: String,
    },
    /// More distinct tag names in the expressions than one run can look for.
    #[error(
        "--tag names {names} different tags{}; at most {MAX_EXTRA_TAGS} can be used in one run",
        if *.speed_reads_time_control { " (with TimeControl, which the speeds are read from)" } else { "" }
    )]
    TooManyTags {
        /// The distinct tag names.
        names: usize,
        /// A speed selection added `TimeControl` to the names.
        speed_reads_time_control: bool,
    },
    /// Two outputs of one run are the same file; `both` names them.
    #[error("two outputs name the same file ({both}): the second would overwrite the first")]
    SameOutput {
        /// The two names (or "standard output twice").
        both: String,
    },
    /// An output that is one of several inputs (however it is named): the
    /// run would merge the other inputs into it and lose what it held.
    #[error(
        "{output} names one of the {inputs} inputs: the others would be merged into it and what it held lost; give each input a run of its own, or name an output apart from them"
    )]
    OutputAmongInputs {
        /// The output, as named by the caller.
        output: String,
        /// How many inputs the run was given.
        inputs: usize,
    },
    /// Partitions are read at offsets, which standard input cannot be.
    #[error("partitions need files: standard input cannot be read at an offset")]
    PartitionOfStdin,
    /// A partition size so small for the inputs that the plan would hold
    /// more partitions than [`crate::partition::MAX_PARTITIONS`].
    #[error(
        "partitions of {target} bytes would cut the inputs into more than {} partitions; ask for larger ones",
        crate::partition::MAX_PARTITIONS
    )]
    TooManyPartitions {
        /// The partition size asked for.
        target: u64,
    },
    /// `--in-place` given standard input.
    #[error("--in-place rewrites files: standard input cannot be rewritten in place")]
    InPlaceStdin,
    /// `--in-place` given a file whose format cannot be written again.
    #[error("{}: {}", .path.display(), io_words(.reason))]
    InPlaceFormat {
        /// The file.
        path: PathBuf,
        /// Why its format cannot be rewritten.
        reason: io::Error,
    },
    /// A split template without `{class}` or `{speed}`.
    #[error(
        "split: the output template {:?} has neither {{class}} nor {{speed}}{}; write e.g. -o 'out/{{class}}.pgn' or -o 'out/{{speed}}-{{class}}.pgn'",
        .template.display().to_string(),
        unclosed_placeholder(.template)
    )]
    SplitTemplate {
        /// The template given.
        template: PathBuf,
    },
    /// `--in-place` given one file twice (two spellings, or a link to it).
    #[error("--in-place names one file twice ({both}); name each file once")]
    InPlaceTwice {
        /// The two names.
        both: String,
    },
    /// A split template with a placeholder other than `{class}` and `{speed}`
    /// (`{Speed}`, `{file}`): most likely a typo, which would otherwise be
    /// written into every file's name.
    #[error(
        "split: the output template {:?} has {{{}}}, which is no placeholder{}; the placeholders are {{class}} and {{speed}}",
        .template.display().to_string(),
        .placeholder,
        .suggestion.as_ref().map(|s| format!(" (did you mean {{{s}}}?)")).unwrap_or_default()
    )]
    SplitPlaceholder {
        /// The template given.
        template: PathBuf,
        /// The word between the braces.
        placeholder: String,
        /// The placeholder it is closest to, if it is close to one.
        suggestion: Option<&'static str>,
    },
    /// A split output whose folder is a file.
    #[error("split: cannot write {}: {} is not a folder", .path.display(), .ancestor.display())]
    SplitNotAFolder {
        /// The output file.
        path: PathBuf,
        /// The part of its path that exists and is not a folder.
        ancestor: PathBuf,
    },
    /// A split output whose folder cannot be made.
    #[error("split: cannot write {}: cannot create the folder {}: {}", .path.display(), .folder.display(), io_words(.reason))]
    SplitFolder {
        /// The output file.
        path: PathBuf,
        /// The folder that could not be made.
        folder: PathBuf,
        /// Why.
        reason: io::Error,
    },
    /// `export` columns that cannot be: a name given twice, a name of a fixed
    /// column, all tags of an input that cannot be read twice, ...
    #[cfg(feature = "export")]
    #[error("export: {0}")]
    Export(crate::export::ColumnError),
    /// A malformed tag expression (`">=2500"`), so that `expr.parse()?`
    /// works in a function that returns [`Error`].
    #[error("{0}")]
    TagExpr(crate::select::ExprError),
    /// A name that is none of its kind's (`"blitzz"` as a speed), so that
    /// `name.parse()?` works in a function that returns [`Error`].
    #[error("{0}")]
    Name(crate::ParseNameError),
    /// A FEN given to the library that cannot be read or written, so that
    /// `fen.parse::<Position>()?` and `position.write(..)?` work in a
    /// function that returns [`Error`]: the problem, its span in the FEN.
    #[error("{0}")]
    Fen(crate::Problem),
}

impl From<crate::Problem> for Error {
    fn from(problem: crate::Problem) -> Error {
        Error::Usage(Usage::Fen(problem))
    }
}

impl From<crate::select::ExprError> for Error {
    fn from(e: crate::select::ExprError) -> Error {
        Error::Usage(Usage::TagExpr(e))
    }
}

impl From<crate::ParseNameError> for Error {
    fn from(e: crate::ParseNameError) -> Error {
        Error::Usage(Usage::Name(e))
    }
}

impl Error {
    /// A usage error of the caller's own, in its words ([`Usage::Argument`]).
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(Usage::Argument(message.into()))
    }

    /// An error writing to `file`, where a closed pipe is not an error.
    #[doc(hidden)] // for the command line and the Python binding
    pub fn writing(file: &str, source: io::Error) -> Error {
        if source.kind() == io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else if crate::pipeline::is_cancellation(&source) {
            // Met while the outputs were being committed.
            Error::Cancelled
        } else if let Some(refused) = refused_format(&source) {
            refused
        } else if source
            .get_ref()
            .is_some_and(|e| e.is::<crate::pipeline::UnwritableEnding>())
        {
            Usage::OutputFormat {
                file: file.to_string(),
                message: source.to_string(),
            }
            .into()
        } else {
            Error::Io {
                file: file.to_string(),
                // An output's own error names its file already: not twice.
                error: without_name(source),
            }
        }
    }
}

/// An output refused for its format: Parquet into a compressing output
/// (`x.parquet.zst`), a usage error that names the output itself.
fn refused_format(e: &io::Error) -> Option<Error> {
    #[cfg(feature = "export")]
    if let Some(refused) = e
        .get_ref()
        .and_then(|r| r.downcast_ref::<crate::export::CompressedParquet>())
    {
        return Some(output_format(refused.path(), refused.advice()));
    }
    let _ = e;
    None
}

/// `e` without the name an [`Output`] put on it ([`WriteError`]), for a
/// caller that names the file itself.
///
/// [`Output`]: crate::pipeline::output::Output
fn without_name(e: io::Error) -> io::Error {
    if !e.get_ref().is_some_and(|r| r.is::<WriteError>()) {
        return e;
    }
    let kind = e.kind();
    match e.into_inner().map(|r| r.downcast::<WriteError>()) {
        Some(Ok(w)) => w.error,
        _ => io::Error::from(kind),
    }
}

impl From<crate::pipeline::InputError> for Error {
    /// An input that cannot be read, named as the caller named it.
    fn from(e: crate::pipeline::InputError) -> Self {
        Error::Io {
            file: e.file,
            error: e.error,
        }
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Input(e) => e.into(),
            RunError::Sink(e) => sink_error(e),
        }
    }
}

#[cfg(feature = "export")]
impl From<crate::export::Error> for Error {
    fn from(e: crate::export::Error) -> Self {
        match e {
            crate::export::Error::Columns(columns) => Error::Usage(Usage::Export(columns)),
            crate::export::Error::Selection(e) => *e,
            crate::export::Error::Run(e) => e.into(),
            crate::export::Error::Write(e) => sink_error(e),
        }
    }
}

/// `Format::check_output`'s refusal, as the usage error the command line gives.
#[cfg(feature = "export")]
impl From<crate::export::CompressedParquet> for Error {
    fn from(refused: crate::export::CompressedParquet) -> Self {
        output_format(refused.path(), refused.advice())
    }
}

/// `Format::check_name`'s refusal, as the usage error the command line gives.
#[cfg(feature = "export")]
impl From<crate::export::FormatMismatch> for Error {
    fn from(refused: crate::export::FormatMismatch) -> Self {
        output_format(refused.path(), refused.advice())
    }
}

/// An output refused for the format its name asks for ([`Usage::OutputFormat`]).
#[cfg(feature = "export")]
fn output_format(path: &Path, message: String) -> Error {
    Usage::OutputFormat {
        file: path.display().to_string(),
        message,
    }
    .into()
}

/// A sink's error, named by the output that failed when an [`Output`] raised
/// it (a full disk names the file).
///
/// [`Output`]: crate::pipeline::output::Output
fn sink_error(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Error::BrokenPipe;
    }
    if crate::pipeline::is_cancellation(&e) {
        return Error::Cancelled;
    }
    let kind = e.kind();
    // No output's fault: named as the run's threads.
    if e.get_ref()
        .is_some_and(|r| r.is::<crate::pipeline::NoThread>())
    {
        return Error::Io {
            file: "<threads>".into(),
            error: e,
        };
    }
    if e.get_ref().is_some_and(|r| r.is::<WriteError>()) {
        // Checked just above: the downcast succeeds.
        if let Some(Ok(w)) = e.into_inner().map(|r| r.downcast::<WriteError>()) {
            return Error::Io {
                file: w.file,
                error: w.error,
            };
        }
        return Error::Io {
            file: "<output>".into(),
            error: io::Error::from(kind),
        };
    }
    if e.get_ref()
        .is_some_and(|r| r.is::<crate::pipeline::ReportFailed>())
    {
        return match e
            .into_inner()
            .map(|r| r.downcast::<crate::pipeline::ReportFailed>())
        {
            Some(Ok(failed)) => Error::Report(failed.0),
            _ => Error::Report(io::Error::from(kind)),
        };
    }
    Error::writing("<output>", e)
}

/// Refuses an output of PGN text (`filter`, `convert`, `split`) whose name
/// ends in `.parquet` (also before a compression ending): a reader would
/// take it for a Parquet file and fail on its first bytes. `export` writes
/// the Parquet file of the headers.
pub(crate) fn check_pgn_outputs(command: &str, outputs: &[&Path]) -> Result<(), Error> {
    for path in outputs {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let (base, _) = crate::pipeline::Compression::split_written_ending(&name);
        if base.ends_with(".parquet") {
            return Err(Usage::OutputFormat {
                file: path.display().to_string(),
                message: format!(
                    "{command} writes PGN text, which no Parquet reader reads; name it .pgn, \
                     or write the headers as Parquet with `export`"
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// A split template's placeholder begun and not closed (`out/{class.pgn`),
/// as a hint for [`Usage::SplitTemplate`].
fn unclosed_placeholder(template: &Path) -> &'static str {
    let text = template.to_string_lossy();
    if text.contains("{class") || text.contains("{speed") {
        " (a placeholder's closing brace is missing)"
    } else {
        ""
    }
}

/// What an `io::Error` says, without the ` (os error N)` that Rust's
/// `Display` adds to the system's words (also inside a message that wraps
/// one): `a.pgn: No such file or directory`, as other programs put it.
#[doc(hidden)] // for the command line and the Python binding
pub fn io_words(error: &io::Error) -> String {
    let text = error.to_string();
    let mut words = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(" (os error ") {
        let after = &rest[at + " (os error ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        words.push_str(&rest[..at]);
        if digits > 0 && after[digits..].starts_with(')') {
            rest = &after[digits + 1..];
        } else {
            words.push_str(" (os error ");
            rest = after;
        }
    }
    words.push_str(rest);
    words
}

/// Whether `output` is the same file (however it is named: another
/// spelling, a link) as one of several `inputs`: writing it would merge
/// every input into that one file and lose what it held. Standard input
/// counts among the inputs; with one input, an output naming it rewrites
/// it, which is allowed. `filter::run` and `convert::run` refuse such an
/// output ([`Usage::OutputAmongInputs`]); the command line and Python refuse
/// it first for `convert` and `fen`, each in its own words.
#[doc(hidden)] // for the command line and the Python binding
pub fn output_among_inputs(output: &Path, inputs: &[Input]) -> bool {
    use std::os::unix::fs::MetadataExt;
    if inputs.len() < 2 || output.as_os_str() == "-" {
        return false;
    }
    let Ok(out) = std::fs::metadata(output) else {
        return false;
    };
    inputs.iter().any(|input| match input {
        Input::File(path) => {
            std::fs::metadata(path).is_ok_and(|m| m.dev() == out.dev() && m.ino() == out.ino())
        }
        _ => false,
    })
}

/// Refuses an output that is one of several inputs ([`output_among_inputs`]),
/// before anything is read or written: `filter a.pgn b.pgn -o a.pgn` would
/// replace `a.pgn` by the games kept from both.
pub(crate) fn check_outputs_apart_from_inputs(
    outputs: &[&Path],
    inputs: &[Input],
) -> Result<(), Error> {
    match outputs.iter().find(|o| output_among_inputs(o, inputs)) {
        Some(output) => Err(Usage::OutputAmongInputs {
            output: output.display().to_string(),
            inputs: inputs.len(),
        }
        .into()),
        None => Ok(()),
    }
}

/// Checks every file input before any work starts, so that a missing file is
/// reported at once rather than after the others were read. Only regular
/// files are opened here: opening a FIFO would take its writer's first bytes
/// away from the real read (each input is opened once to be read).
#[doc(hidden)] // for the command line and the Python binding
pub fn check_inputs_exist(inputs: &[Input]) -> Result<(), Error> {
    for input in inputs {
        let Input::File(path) = input else { continue };
        if let Err(source) = check_readable(path) {
            return Err(Error::Io {
                file: input.display_name(),
                error: source,
            });
        }
    }
    Ok(())
}

/// [`check_inputs_exist`] for one file: an error for a missing or
/// unreadable file or a folder. Only a regular file is opened.
pub(crate) fn check_readable(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "Is a directory",
        ))
    } else if meta.is_file() {
        std::fs::File::open(path).map(drop)
    } else {
        Ok(())
    }
}

/// Refuses two outputs of one run that are the same file, before anything is
/// read: the same path, two spellings of it, a hard link or a symbolic link to
/// it, `-` (standard output) twice, or `-` and a name of what standard output
/// is (`/dev/stdout`, or the file it was redirected to). An output may name
/// an input. `/dev/null` may take several outputs.
pub(crate) fn check_distinct_outputs(outputs: &[&Path]) -> Result<(), Error> {
    let mut seen: Vec<(OutputId, &Path)> = Vec::new();
    let stdout = Path::new("-");
    if outputs.iter().filter(|p| **p == stdout).count() > 1 {
        return Err(Usage::SameOutput {
            both: "standard output twice".to_string(),
        }
        .into());
    }
    for &path in outputs {
        let id = OutputId::of(path);
        if id == OutputId::Discarded {
            continue;
        }
        if let Some((_, first)) = seen.iter().find(|(other, _)| *other == id) {
            let show = |p: &Path| {
                if p.as_os_str() == "-" {
                    "standard output".to_string()
                } else {
                    p.display().to_string()
                }
            };
            let both = if first.as_os_str() == "-" && path.as_os_str() == "-" {
                "standard output twice".to_string()
            } else {
                format!("{} and {}", show(first), show(path))
            };
            return Err(Usage::SameOutput { both }.into());
        }
        seen.push((id, path));
    }
    Ok(())
}

/// What an output path names, for telling two outputs apart.
#[derive(Debug, PartialEq, Eq)]
enum OutputId {
    /// Standard output when it cannot be looked at (closed).
    Stdout,
    /// A character device (`/dev/null`, a terminal): never the same output
    /// as another (two outputs on one terminal interleave, nothing is lost).
    Discarded,
    /// An existing file, pipe or device (links followed; for `-`, what
    /// standard output is): its device and inode.
    Inode(u64, u64),
    /// A file still to be made: its folder, resolved, and its name.
    New(PathBuf),
}

impl OutputId {
    fn of(path: &Path) -> OutputId {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let id = |meta: std::fs::Metadata| {
            if meta.file_type().is_char_device() {
                OutputId::Discarded
            } else {
                OutputId::Inode(meta.dev(), meta.ino())
            }
        };
        // What standard output (or a standard stream named as a path) is,
        // so that `-`, `/dev/stdout` and the file or pipe it was redirected
        // to are one output (`-` twice is refused by the caller).
        if path.as_os_str() == "-" {
            return descriptor_metadata(1).map_or(OutputId::Stdout, id);
        }
        if let Some(fd) = crate::pipeline::output::own_descriptor(path) {
            return descriptor_metadata(fd).map_or(OutputId::Stdout, id);
        }
        if let Ok(meta) = std::fs::metadata(path) {
            return id(meta);
        }
        // A symbolic link to a file still to be made: writing through it makes
        // its target, so the target is what it names.
        let path =
            crate::pipeline::output::through_links(path).unwrap_or_else(|_| path.to_path_buf());
        let path = path.as_path();
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        OutputId::New(dir.join(path.file_name().unwrap_or_default()))
    }
}

/// What descriptor `fd` of this process is (`fstat`), if it is open:
/// what standard output (1) or input (0) was redirected to.
#[doc(hidden)] // for the command line and the Python binding
pub fn descriptor_metadata(fd: i32) -> Option<std::fs::Metadata> {
    crate::pipeline::output::duplicate(fd).ok()?.metadata().ok()
}

/// The name of an output in messages: its path, or `<stdout>`.
pub(crate) fn output_name(path: Option<&Path>) -> String {
    path.map_or("<stdout>".to_string(), |p| p.display().to_string())
}

/// The flags that select games for `command` (`filter` also takes `--moves`).
fn selection_flags(command: &str) -> &'static str {
    if command == "filter" {
        "--class, --chess960-position, --tag, --speed or --moves"
    } else {
        "--class, --chess960-position, --tag or --speed"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{ReportFailed, cancelled};

    #[test]
    fn messages_leave_out_the_os_error_codes() {
        // ENOENT, 2 on every system this builds for.
        let missing = io::Error::from_raw_os_error(2);
        let text = Error::Io {
            file: "a.pgn".into(),
            error: missing,
        }
        .to_string();
        assert_eq!(text, "a.pgn: No such file or directory");
        // Inside a message that wraps one, and more than once.
        let wrapped = io::Error::other(format!(
            "{} (os error 2); then {} (os error 24)",
            "No such file", "Too many open files"
        ));
        assert_eq!(io_words(&wrapped), "No such file; then Too many open files");
        // What only looks like one stays.
        for text in [
            "a (os error )",
            "a (os error 2x)",
            "a (os error 2",
            "(os error",
        ] {
            assert_eq!(io_words(&io::Error::other(text)), text);
        }
    }

    /// A cancellation is `Cancelled` however it reached the error: from the
    /// run, or from an output's commit (named by the output), and only the
    /// run's own: an `Interrupted` error of a report is the report's.
    #[test]
    fn only_the_runs_cancellation_is_cancelled() {
        assert!(matches!(sink_error(cancelled()), Error::Cancelled));
        assert!(matches!(
            Error::writing("x.pgn", cancelled()),
            Error::Cancelled
        ));
        let named = io::Error::new(
            io::ErrorKind::Interrupted,
            WriteError {
                file: "x.pgn".into(),
                error: cancelled(),
            },
        );
        assert!(matches!(sink_error(named), Error::Cancelled));
        let own = io::Error::new(io::ErrorKind::Interrupted, "stop");
        match sink_error(ReportFailed::mark(own)) {
            Error::Report(e) => {
                assert_eq!(e.kind(), io::ErrorKind::Interrupted);
                assert_eq!(e.to_string(), "stop");
            }
            other => panic!("{other:?}"),
        }
        // A report's closed pipe is the quiet end.
        let pipe = ReportFailed::mark(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(sink_error(pipe), Error::BrokenPipe));
        // An error no output names and no report made (a thread's) keeps
        // the words it had.
        let other = sink_error(io::Error::other("the thread failed"));
        assert_eq!(other.to_string(), "<output>: the thread failed");
    }
}
