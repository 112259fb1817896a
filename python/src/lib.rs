//! The native module of the `pgnfen` Python package: the same Rust code as the
//! command line, no subprocess. Results mirror the JSON of the commands
//! (`fen`, `stats`, `check --format json`) because they are built by the same
//! code; `filter`/`convert` write the same bytes as the commands.
//!
//! Every function releases the GIL while Rust works, and waits for the work
//! in slices, taking the GIL back between them to run Python's signal
//! handlers, so that Ctrl-C stops a long call ([`interrupt`]).

use std::sync::atomic::Ordering;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use pgnfen::archive::{Archive, Game, Games};
use pgnfen::fen::{Dialect, EpPolicy, VariantHint};
use pgnfen::filter::Selection;
use pgnfen::pgn::encoding::Encoding;
use pgnfen::pipeline::{Input, Options, RunError, check_inputs_exist};
use pgnfen::select::Selector;
use pgnfen::{Class, Error, Speed, filter};

mod books;
mod errors;
mod files;
mod interrupt;
mod iterators;
mod json_stream;
mod notes;
mod partitions;
mod paths;
mod problems;
mod scan;
mod tags;

/// How long `games()` waits with the GIL released before it looks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

// ---- errors: the CLI's messages, as pgnfen.Error subclasses ([`errors`]) ----

use errors::io_error;

fn command_error(e: Error) -> PyErr {
    match e {
        // A split template's folder that cannot be: an error of the file
        // system, as `filter(output="games.pgn/x.pgn")` gives it, not a bad
        // argument (the command line exits 2 for both).
        // In the command line's words (which folder, and why).
        Error::Usage(ref usage @ pgnfen::Usage::SplitNotAFolder { ref path, .. }) => {
            errors::io_error_saying(
                &path.display().to_string(),
                &std::io::Error::from_raw_os_error(libc::ENOTDIR),
                usage.to_string(),
            )
        }
        Error::Usage(
            ref usage @ pgnfen::Usage::SplitFolder {
                ref folder,
                ref reason,
                ..
            },
        ) => errors::io_error_saying(&folder.display().to_string(), reason, usage.to_string()),
        // Worded with the `tags` argument, not the command line's `--tags`.
        Error::Usage(pgnfen::Usage::Export(columns)) => columns_error(&columns),
        // Worded without the command line's `--tag` and `-o`.
        Error::Usage(pgnfen::Usage::TooManyTags {
            names,
            speed_reads_time_control,
        }) => errors::usage(format!(
            "the tag expressions name {names} different tags{}; at most {} can be used in one call",
            if speed_reads_time_control {
                " (with TimeControl, which speeds are read from)"
            } else {
                ""
            },
            pgnfen::pgn::scan::MAX_EXTRA_TAGS
        )),
        // Only `pgnfen.dask` plans partitions.
        Error::Usage(pgnfen::Usage::TooManyPartitions { target }) => errors::usage(format!(
            "partition_size={target} would cut the inputs into more than {} partitions; \
             ask for larger ones",
            pgnfen::partition::MAX_PARTITIONS
        )),
        // The library's words up to its example, which names `-o`.
        Error::Usage(usage @ pgnfen::Usage::SplitTemplate { .. }) => {
            let text = usage.to_string();
            let (what, _) = text.split_once("; write e.g.").unwrap_or((&text, ""));
            errors::usage(format!(
                "{}; write e.g. template=\"out/{{class}}.pgn\" or \
                 template=\"out/{{speed}}-{{class}}.pgn\"",
                what.replace("the output template", "the template")
            ))
        }
        Error::Usage(usage) => errors::usage(usage.to_string()),
        Error::Io { file, error } => io_error(&file, &error),
        // Only `check()`'s queue is such a function, and its error (the
        // iterator let go) reaches no one.
        Error::Report(error) => io_error("<check>", &error),
        Error::BrokenPipe => errors::broken_pipe(),
        // Only Ctrl-C (or a signal) cancels a call's run, and the call
        // raises for it on its own; this is the same, should the run's
        // error come first.
        Error::Cancelled => pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"),
        // A cause a later library tells apart (the enum is non-exhaustive).
        other => errors::internal(other.to_string()),
    }
}

/// A column error in the words of the `tags` argument of `export()`,
/// `scan()` and `pgnfen.dask.read_headers()` (the library's `Display` names
/// the command line's `--tags`).
pub(crate) fn columns_error(e: &pgnfen::export::ColumnError) -> PyErr {
    errors::usage(e.message(&pgnfen::export::Spelling {
        option: "tags",
        all: "tags=\"all\"",
        names: "tags=[NAME, ...]",
    }))
}

fn run_error(e: RunError) -> PyErr {
    command_error(Error::from(e))
}

// ---- arguments ----

/// The inputs: each a `str`, `bytes` or `os.PathLike`; `-` is standard
/// input, as on the command line.
fn inputs(paths: &Bound<'_, PyTuple>, function: &str) -> PyResult<Vec<Input>> {
    if paths.is_empty() {
        return Err(crate::errors::usage(format!(
            "{function}() needs at least one path"
        )));
    }
    paths
        .iter()
        .map(|p| {
            // A list of paths (as `pgnfen.dask` takes them) in one argument.
            if p.is_instance_of::<pyo3::types::PyList>() || p.is_instance_of::<PyTuple>() {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "{function}() takes its paths as separate arguments: \
                     {function}(*paths), not {function}(paths)"
                )));
            }
            let path = paths::path(&p)?;
            Ok(if path.as_os_str() == "-" {
                Input::Stdin
            } else {
                Input::File(path)
            })
        })
        .collect()
}

/// A `threads=` argument: any Python int. One beyond 64 bits is as out of
/// range as 2,000 (a `UsageError` naming it, not Python's `OverflowError`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Threads(i64);

/// A bool where a number is asked for: refused, as `pgnfen.dask` refuses it
/// for `partition_size`, rather than read as 0 or 1 (Python's `True` is an
/// `int`, which `threads=True` or `chess960_positions=[True]` would be).
fn refuse_bool(obj: &Borrowed<'_, '_, PyAny>, what: &str) -> PyResult<()> {
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what} takes an int, not a bool"
        )));
    }
    Ok(())
}

/// A Chess960 start position number, 0 to 959.
pub(crate) struct Position(u16);

impl<'a, 'py> FromPyObject<'a, 'py> for Position {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Position> {
        refuse_bool(&obj, "chess960_positions")?;
        let n = match obj.extract::<i64>() {
            Ok(n) => u16::try_from(n).ok(),
            // Past 64 bits: as out of range as 960.
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => None,
            Err(e) => return Err(e),
        };
        match n.filter(|&n| n < pgnfen::fen::chess960::POSITIONS) {
            Some(n) => Ok(Position(n)),
            None => Err(crate::errors::usage(format!(
                "invalid value '{}' for chess960_positions: a start position is 0-959",
                obj.str()?
            ))),
        }
    }
}

/// The ``chess960_positions`` argument: a list (any sequence) of position
/// numbers. `bytes` is a sequence of numbers too, but never meant as one
/// (`b"518"` would be positions 53, 49 and 56): a `TypeError`, as one `str`
/// is for the lists of names.
pub(crate) struct Positions(Vec<u16>);

impl<'a, 'py> FromPyObject<'a, 'py> for Positions {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Positions> {
        // (PyO3 puts the argument's name before the message.)
        let not_a_list = || -> PyResult<PyErr> {
            Ok(pyo3::exceptions::PyTypeError::new_err(format!(
                "expected a list of int, not {}",
                obj.get_type().name()?
            )))
        };
        if obj.is_instance_of::<pyo3::types::PyBytes>()
            || obj.is_instance_of::<pyo3::types::PyByteArray>()
        {
            return Err(not_a_list()?);
        }
        let positions: Vec<Position> = match obj.extract() {
            Ok(positions) => positions,
            // A list or tuple whose item is wrong: that item's error.
            Err(e)
                if obj.is_instance_of::<pyo3::types::PyList>()
                    || obj.is_instance_of::<PyTuple>() =>
            {
                return Err(e);
            }
            Err(_) => return Err(not_a_list()?),
        };
        Ok(Positions(
            positions.into_iter().map(|Position(n)| n).collect(),
        ))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Threads {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Threads> {
        refuse_bool(&obj, "threads")?;
        match obj.extract::<i64>() {
            Ok(n) => Ok(Threads(n)),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => {
                let negative = obj.lt(0)?;
                let shown = obj.str()?;
                Err(crate::errors::usage(format!(
                    "invalid value '{shown}' for threads: {} (or None for the default)",
                    if negative {
                        "at least 1".to_string()
                    } else {
                        format!("at most {}", Options::MAX_THREADS)
                    }
                )))
            }
            Err(e) => Err(e),
        }
    }
}

/// A list-of-names argument (`classes=`, `tags=`, `speeds=`): any sequence
/// of str. One str alone is the likeliest slip (`classes="chess960"`), which
/// PyO3 would refuse with "Can't extract `str` to `Vec`": a TypeError that
/// says what to write instead. Other wrong types are a TypeError too.
pub(crate) struct StrList(pub Vec<String>);

impl<'a, 'py> FromPyObject<'a, 'py> for StrList {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<StrList> {
        if obj.is_instance_of::<pyo3::types::PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "expected a list of str, not one str: write [{}]",
                obj.repr()?
            )));
        }
        obj.extract::<Vec<String>>().map(StrList).map_err(|_| {
            let type_name = |o: &Bound<'py, PyAny>| {
                o.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            };
            // A list or tuple holding something else: name what it holds.
            // (Only these: iterating another iterable could take forever, an
            // endless generator, and would use it up.)
            let held = (obj.is_instance_of::<pyo3::types::PyList>()
                || obj.is_instance_of::<PyTuple>())
            .then(|| obj.try_iter().ok())
            .flatten()
            .and_then(|items| {
                items
                    .flatten()
                    .find(|item| !item.is_instance_of::<pyo3::types::PyString>())
            });
            let shown = match held {
                Some(item) => format!("a {} holding {}", type_name(&obj), type_name(&item)),
                None => type_name(&obj),
            };
            pyo3::exceptions::PyTypeError::new_err(format!("expected a list of str, not {shown}"))
        })
    }
}

/// The names of an optional list argument.
pub(crate) fn names(list: Option<StrList>) -> Option<Vec<String>> {
    list.map(|l| l.0)
}

/// The run's options for a `threads=` argument: None is one per core
/// (`games()` has its own default: [`options_or`]). Taken
/// as any integer, so that a negative count is the same `UsageError` as 0
/// rather than Python's `OverflowError`.
fn options(threads: Option<Threads>) -> PyResult<Options> {
    options_or(threads, cores())
}

/// The cores this process may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// [`options`] with `default` workers when the caller names none.
fn options_or(threads: Option<Threads>, default: usize) -> PyResult<Options> {
    let threads = match threads.map(|t| t.0) {
        Some(n) if n < 1 => {
            return Err(crate::errors::usage(format!(
                "invalid value '{n}' for threads: at least 1 (or None for the default)"
            )));
        }
        Some(n) => match usize::try_from(n) {
            Ok(n) if n <= Options::MAX_THREADS => n,
            _ => {
                return Err(crate::errors::usage(format!(
                    "invalid value '{n}' for threads: at most {} (or None for the default)",
                    Options::MAX_THREADS
                )));
            }
        },
        None => default,
    };
    Ok(Options::new(threads))
}

/// The options of a run that stops when the call's flag is set (Ctrl-C:
/// [`interrupt`]) and keeps its notes for the call's warnings ([`notes`]).
fn cancellable(threads: Option<crate::Threads>) -> PyResult<(Options, interrupt::Call)> {
    let (mut options, notes) = with_notes(options(threads)?);
    let call = interrupt::Call::new(notes);
    options.cancel = Some(call.cancel.clone());
    Ok((options, call))
}

/// `options` with the run's notes kept, to be given as warnings by the call
/// ([`notes`]).
fn with_notes(options: Options) -> (Options, std::sync::Arc<notes::Notes>) {
    let notes = notes::Notes::new();
    let options = Options {
        notes: true,
        watch: Some(notes.clone()),
        ..options
    };
    (options, notes)
}

/// A value of one of the CLI's closed sets, by its CLI name; a bad one is a
/// `ValueError` naming the allowed values, as clap does on the command line.
pub(crate) fn choice<T: Choice>(argument: &str, value: &str) -> PyResult<T> {
    T::all().find(|v| v.name() == value).ok_or_else(|| {
        let allowed: Vec<&str> = T::all().map(Choice::name).collect();
        invalid_choice(argument, value, &allowed)
    })
}

/// The `pgnfen.UsageError` for a value outside a closed set, in clap's
/// words, so that every such argument (``to=``, ``moves=``, ``encoding=``,
/// ``format=``) is refused alike.
pub(crate) fn invalid_choice(argument: &str, value: &str, allowed: &[&str]) -> PyErr {
    crate::errors::usage(format!(
        "invalid value '{value}' for {argument} [possible values: {}]",
        allowed.join(", ")
    ))
}

/// The values of a list argument of a closed set (None: an empty list).
pub(crate) fn choices<T: Choice>(argument: &str, values: Option<Vec<String>>) -> PyResult<Vec<T>> {
    values
        .unwrap_or_default()
        .iter()
        .map(|value| choice(argument, value))
        .collect()
}

/// The tag expressions of a `tags` argument (None: none); a bad one is a
/// `UsageError` saying what is wrong with it.
pub(crate) fn tag_expressions(
    expressions: Option<Vec<String>>,
) -> PyResult<Vec<pgnfen::select::TagExpr>> {
    expressions
        .unwrap_or_default()
        .iter()
        .map(|expr| {
            expr.parse()
                .map_err(|e| crate::errors::usage(format!("invalid tag expression: {e}")))
        })
        .collect()
}

/// A closed set of names a Python argument takes (the command line's names).
pub(crate) trait Choice: Copy + 'static {
    fn all() -> impl Iterator<Item = Self>;
    fn name(self) -> &'static str;
}

macro_rules! choice_of {
    ($($t:ty),*) => {$(
        impl Choice for $t {
            fn all() -> impl Iterator<Item = Self> {
                <$t>::ALL.into_iter()
            }
            fn name(self) -> &'static str {
                self.as_str()
            }
        }
    )*};
}
choice_of!(
    Class,
    Dialect,
    EpPolicy,
    Speed,
    pgnfen::moves::MovesMode,
    pgnfen::export::Format
);

fn to_py(py: Python<'_>, value: &impl serde::Serialize) -> PyResult<Py<PyAny>> {
    Ok(pythonize::pythonize(py, value)
        .map_err(|e| errors::internal(e.to_string()))?
        .unbind())
}

fn output_name(path: &std::path::Path) -> String {
    path.display().to_string()
}

// ---- functions ----

/// Classify and convert one bare FEN record.
///
/// Returns the object that ``pgnfen fen --format json`` prints for the
/// record: ``input``, ``valid``, ``class``, ``board`` ("8x8", "10x8" or None),
/// ``chess960_position``, the record in the three dialects ``fen``, ``xfen``
/// and ``shredder`` (None when it cannot be written in one), ``problems``
/// (dicts with ``code``, ``severity``, ``message``, ``column``) and
/// ``operations`` (an EPD record's operations as written, None for a FEN; the
/// three dialect strings of an EPD are EPD records).
///
/// One line end after the record (``"\n"``, ``"\r\n"`` or ``"\r"``, as a
/// line read from a file keeps it) and a byte-order mark before it are no
/// part of it, as for the command line. A string of several lines is a
/// ``pgnfen.UsageError``: ``fen_records()`` reads books. An empty string or a
/// ``#`` comment, which a book skips, is analysed as a (malformed) record.
/// ``ep`` (``"as-is"``, ``"pseudo-legal"``, ``"legal"``) writes the en
/// passant square of all three dialects by that policy, as ``fen --ep``;
/// without it each dialect keeps its own.
///
/// >>> pgnfen.fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")["class"]
/// 'standard'
#[pyfunction(name = "fen")]
#[pyo3(signature = (record, /, *, ep=None))]
fn fen_record(
    py: Python<'_>,
    record: &Bound<'_, PyString>,
    ep: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let ep = ep.map(|ep| choice::<EpPolicy>("ep", ep)).transpose()?;
    // (A lone surrogate is no text of any file: a usage error, not Python's
    // UnicodeEncodeError.)
    let record = record.to_cow().map_err(|_| {
        errors::usage("the record holds a lone surrogate, which no FEN or EPD text can")
    })?;
    let record = record.strip_prefix('\u{feff}').unwrap_or(&record);
    let record = record
        .strip_suffix("\r\n")
        .or_else(|| record.strip_suffix('\n'))
        .or_else(|| record.strip_suffix('\r'))
        .unwrap_or(record);
    if record.contains(['\n', '\r']) {
        return Err(errors::usage(
            "fen() analyses one record, and this string holds several lines; \
             fen_records() reads a book of them",
        ));
    }
    let report = crate::interrupt::detach(py, || {
        let parsed = pgnfen::fen::analyse_record(record.as_bytes(), VariantHint::StandardLike);
        pgnfen::fen::report::report_record(record.as_bytes(), &parsed, ep)
    });
    to_py(py, &report)
}

/// Count the games of PGN files by class, speed, Chess960 start position and problem.
///
/// Returns the object that ``pgnfen stats --format json`` prints:
/// ``{"games": N, "classes": {"standard": n, "setup": n, "chess960": n,
/// "crc": n, "other": n, "malformed": n}, "speeds": {"ultrabullet": n,
/// "bullet": n, "blitz": n, "rapid": n, "classical": n, "correspondence": n,
/// "unknown": n}, "chess960_positions": {"518": n, ...},
/// "problems": {"CODE": n, ...}}``.
///
/// paths: one or more files (str, bytes or os.PathLike), plain or
/// compressed (gzip, bzip2, xz, zstd, zip). threads: worker threads
/// (default: one per core).
/// moves: "first" or "all" replays each game's mainline from its start
/// position and adds ``"moves": {"checked", "illegal", "not_checked"}``.
/// tags and speeds count only the games that match, as in ``filter()``
/// (``pgnfen stats --tag``/``--speed``); the others are counted in
/// ``"unmatched"``.
///
/// >>> counts = pgnfen.stats("samples/mixed.pgn")
/// >>> counts["games"], counts["classes"]["chess960"], counts["chess960_positions"]
/// (13, 3, {'0': 1, '325': 1})
///
/// Raises pgnfen.InputError (an OSError; pgnfen.MissingFileError, a
/// FileNotFoundError, for a missing file) when a file cannot be read.
#[pyfunction]
#[pyo3(signature = (*paths, threads=None, moves=None, tags=None, speeds=None))]
fn stats(
    py: Python<'_>,
    paths: &Bound<'_, PyTuple>,
    threads: Option<crate::Threads>,
    moves: Option<&Bound<'_, PyAny>>,
    tags: Option<StrList>,
    speeds: Option<StrList>,
) -> PyResult<Py<PyAny>> {
    let (tags, speeds) = (names(tags), names(speeds));
    let inputs = inputs(paths, "stats")?;
    let (options, call) = cancellable(threads)?;
    let moves = moves_mode(moves)?;
    let selector = selector(tags, speeds)?;
    let notes = call.notes.clone();
    let json = interrupt::run(py, &call, move || -> PyResult<Vec<u8>> {
        let options = pgnfen::stats::Options {
            moves,
            selector,
            run: options,
        };
        let counts = pgnfen::stats::run(&inputs, &options).map_err(command_error)?;
        notes.unseen_tags(&options.selector, &inputs, "tags=");
        let mut json = Vec::new();
        counts
            .write_json(&mut json)
            .map_err(|e| io_error("<memory>", &e))?;
        Ok(json)
    })??;
    let value: serde_json::Value =
        serde_json::from_slice(&json).map_err(|e| errors::internal(e.to_string()))?;
    to_py(py, &value)
}

/// Copy the games that match, byte for byte and in input order, to ``output``
/// (and, with ``rest``, every other game to ``rest``), like ``pgnfen filter``.
///
/// classes: class names to keep, from "standard", "setup", "chess960", "crc",
/// "other", "malformed" (default: every class). chess960_positions: keep only
/// Chess960 games from these start positions (0-959). tags: tag conditions
/// that must all hold, as ``pgnfen filter --tag``: ``NAME OP VALUE`` with OP one
/// of = != ~ (regular expression) !~ < <= > >=, e.g. "WhiteElo>=2500"
/// (numbers compare as numbers, other values byte by byte; a game without the
/// tag satisfies only != and !~). speeds: speeds to keep, from
/// "ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence",
/// "unknown" (read from the TimeControl tag). moves: "first" or "all" replays
/// each game's mainline; a game with an illegal move goes to ``rest``. At
/// least one of classes, chess960_positions, tags, speeds, moves must be
/// given; all that are given must hold.
/// output, rest: paths; an ending .gz, .bz2, .xz or .zst compresses. Files appear
/// under their name only when the run succeeds.
///
/// Returns ``{"games": N, "kept": n, "rest": n}``.
///
/// >>> import os, tempfile
/// >>> out = os.path.join(tempfile.mkdtemp(), "chess960.pgn")
/// >>> pgnfen.filter("samples/mixed.pgn", output=out, classes=["chess960"])
/// {'games': 13, 'kept': 3, 'rest': 10}
///
/// Raises pgnfen.UsageError (a ValueError) for a bad class, position or tag
/// expression, pgnfen.InputError (an OSError) for I/O errors.
#[pyfunction(name = "filter")]
#[pyo3(signature = (*paths, output, classes=None, tags=None, rest=None, chess960_positions=None, speeds=None, threads=None, moves=None))]
#[allow(clippy::too_many_arguments)]
fn filter_games(
    py: Python<'_>,
    paths: &Bound<'_, PyTuple>,
    output: &Bound<'_, PyAny>,
    classes: Option<StrList>,
    tags: Option<StrList>,
    rest: Option<&Bound<'_, PyAny>>,
    chess960_positions: Option<Positions>,
    speeds: Option<StrList>,
    threads: Option<crate::Threads>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (classes, tags, speeds) = (names(classes), names(tags), names(speeds));
    let inputs = inputs(paths, "filter")?;
    let output = paths::path(output)?;
    let rest = paths::optional(rest)?;
    let (options, call) = cancellable(threads)?;
    let moves = moves_mode(moves)?;
    let selection = filter_selection(classes, tags, chess960_positions, speeds, moves)?;
    // (After the selection's errors, as the command line has them.)
    if rest.as_ref() == Some(&output) {
        return Err(crate::errors::usage(format!(
            "output and rest name the same file: {}",
            output_name(&output)
        )));
    }
    let options = filter::Options {
        selection,
        output: Some(output),
        rest,
        moves,
        run: options,
    };
    let notes = call.notes.clone();
    let filter::Summary { games, kept } = interrupt::run(py, &call, move || {
        let summary = filter::run(&inputs, &options)?;
        notes.unseen_tags(&options.selection.selector, &inputs, "tags=");
        Ok::<_, Error>(summary)
    })?
    .map_err(command_error)?;
    let counts = PyDict::new(py);
    counts.set_item("games", games)?;
    counts.set_item("kept", kept)?;
    counts.set_item("rest", games - kept)?;
    Ok(counts.into_any().unbind())
}

/// A selection's error in the words of Python's arguments where the
/// library's message names the command line's flags.
/// What `filter()` and a Dask `filter` keep: the selection, refused when it
/// selects nothing and there is no replay either (an empty list selects
/// nothing more than no list: the same message), or when it is wrong.
pub(crate) fn filter_selection(
    classes: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    chess960_positions: Option<Positions>,
    speeds: Option<Vec<String>>,
    moves: Option<pgnfen::moves::MovesMode>,
) -> PyResult<pgnfen::filter::Selection> {
    let selection = selection(classes, tags, chess960_positions, speeds)?;
    if selection.is_empty() && moves.is_none() {
        return Err(crate::errors::usage(
            "filter() needs classes, chess960_positions, tags, speeds or moves",
        ));
    }
    if !selection.is_empty() {
        selection.validate("filter").map_err(selection_error)?;
    }
    Ok(selection)
}

pub(crate) fn selection_error(e: Error) -> PyErr {
    match e {
        Error::Usage(pgnfen::Usage::PositionsWithoutChess960 { .. }) => crate::errors::usage(
            "filter(): chess960_positions selects Chess960 games, but classes does not include \
             chess960",
        ),
        e => command_error(e),
    }
}

/// The games `filter()` (and `pgnfen.dask.filter`) keep: every given
/// selection must hold. `None` and an empty list select alike (nothing).
pub(crate) fn selection(
    classes: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    chess960_positions: Option<Positions>,
    speeds: Option<Vec<String>>,
) -> PyResult<Selection> {
    let selector = selector(tags, speeds)?;
    let positions = chess960_positions.map_or_else(Vec::new, |Positions(p)| p);
    // None: every class; with positions, only Chess960 games (they alone
    // have one).
    let classes: Vec<Class> = choices("classes", classes)?;
    Ok(Selection {
        classes,
        chess960_positions: positions,
        selector,
    })
}

/// The tag expressions and speeds every selected game satisfies, as
/// `--tag` and `--speed` give them (None and an empty list: every game).
pub(crate) fn selector(
    tags: Option<Vec<String>>,
    speeds: Option<Vec<String>>,
) -> PyResult<Selector> {
    let tags = tag_expressions(tags)?;
    let speeds: Vec<Speed> = choices("speeds", speeds)?;
    Ok(Selector::new(&tags).with_speeds(&speeds))
}

/// The games `export()` and `scan()` keep (``where=``, tag expressions as
/// for ``filter(tags=...)``, and ``speeds=``: their `tags=` names columns):
/// every game when both are None or empty.
pub(crate) fn export_selector(
    expressions: Option<&Bound<'_, PyAny>>,
    speeds: Option<StrList>,
) -> PyResult<Selector> {
    // Taken as any object and converted here: PyO3 would name the argument
    // by its Rust spelling (`r#where`) in a TypeError.
    let expressions = match expressions.filter(|e| !e.is_none()) {
        None => None,
        Some(e) => Some(e.extract::<StrList>().map_err(|err| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "argument 'where': {}",
                err.value(e.py())
            ))
        })?),
    };
    // Its tag names are counted by `export::columns`, which every caller
    // runs first.
    selector(names(expressions), names(speeds))
}

/// The ``moves=`` argument: None, "first" or "all". Another string is a
/// pgnfen.UsageError; another type (``True``, ``1``) a TypeError that names
/// the values it may take, rather than PyO3's "cannot be converted to
/// 'PyString'".
fn moves_mode(moves: Option<&Bound<'_, PyAny>>) -> PyResult<Option<pgnfen::moves::MovesMode>> {
    let Some(moves) = moves.filter(|m| !m.is_none()) else {
        return Ok(None);
    };
    let Ok(text) = moves.cast::<pyo3::types::PyString>() else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "moves must be \"first\", \"all\" or None, not {} ({})",
            moves.repr()?,
            moves.get_type().name()?
        )));
    };
    let text = text.to_cow()?;
    choice("moves", &text).map(Some)
}

/// Rewrite the value of every FEN tag in the dialect ``to`` ("fen", "xfen" or
/// "shredder"), copying every other byte unchanged, like ``pgnfen convert``.
///
/// ep: en passant square policy, "as-is", "pseudo-legal" or "legal" (default:
/// the dialect's). repair: also insert a missing [SetUp "1"] before the FEN
/// tag, and [Variant "Chess960"] in a Chess960 game without a Variant tag.
/// output: a path; an ending .gz, .bz2, .xz or .zst compresses. A FEN that
/// cannot be read or written in the dialect is left as it was and counted.
///
/// Returns ``{"games": N, "converted": n, "unchanged": n}`` (FEN tags).
///
/// >>> import os, tempfile
/// >>> out = os.path.join(tempfile.mkdtemp(), "shredder.pgn")
/// >>> pgnfen.convert("samples/chess960.pgn", output=out, to="shredder")
/// {'games': 3, 'converted': 3, 'unchanged': 0}
///
/// Raises pgnfen.UsageError (a ValueError) for a bad dialect or policy,
/// pgnfen.InputError (an OSError) for I/O errors.
#[pyfunction]
#[pyo3(signature = (*paths, output, to, ep=None, repair=false, threads=None))]
fn convert(
    py: Python<'_>,
    paths: &Bound<'_, PyTuple>,
    output: &Bound<'_, PyAny>,
    to: &str,
    ep: Option<&str>,
    repair: bool,
    threads: Option<crate::Threads>,
) -> PyResult<Py<PyAny>> {
    let inputs = inputs(paths, "convert")?;
    let output = paths::path(output)?;
    // An output among several inputs is refused by `convert::run` before
    // anything is read (`Usage::OutputAmongInputs`), as for `filter()`.
    let (options, call) = cancellable(threads)?;
    let options = pgnfen::convert::Options {
        to: choice::<Dialect>("to", to)?,
        ep: ep.map(|ep| choice::<EpPolicy>("ep", ep)).transpose()?,
        repair,
        output: Some(output),
        in_place: false,
        run: options,
        // As notes, through the run's notes (Python warnings).
        report_unchanged: false,
    };
    let pgnfen::convert::Summary {
        games,
        converted,
        unchanged,
    } = interrupt::run(py, &call, move || pgnfen::convert::run(&inputs, &options))?
        .map_err(command_error)?;
    let counts = PyDict::new(py);
    counts.set_item("games", games)?;
    counts.set_item("converted", converted)?;
    counts.set_item("unchanged", unchanged)?;
    Ok(counts.into_any().unbind())
}

/// Stream the games of PGN files, in input order, as ``Game`` objects.
///
/// The games are cut and classified on ``threads`` worker threads (default:
/// one per core but one, which leaves a core to the loop itself) ahead of the
/// loop, with bounded memory whatever the size of the input; leaving the loop
/// early (``break``) stops the reading.
///
/// >>> for game in pgnfen.games("samples/chess960.pgn"):
/// ...     print(game.game, game.class_, game.chess960_position, game.headers["White"])
/// 1 chess960 0 Player A
/// 2 chess960 325 Player C
/// 3 chess960 None ?
///
/// encoding: how ``headers`` and ``tags`` decode (None or "auto", "utf-8",
/// "latin-1"). moves: "first" or "all" replays each game's mainline from its
/// start position on the worker threads, as ``check(moves=...)`` does:
/// ``game.moves`` is then "passed", "illegal" or "not_checked", and an
/// illegal move is the last of ``game.problems``.
///
/// A missing file raises pgnfen.MissingFileError (a FileNotFoundError) at
/// once; an input that turns out unreadable (a corrupt .zst) raises
/// pgnfen.InputError (an OSError) from the loop, after its readable games.
#[pyfunction]
#[pyo3(signature = (*paths, threads=None, encoding=None, moves=None))]
fn games(
    paths: &Bound<'_, PyTuple>,
    threads: Option<crate::Threads>,
    encoding: Option<&str>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<GameIterator> {
    let encoding = encoding_arg(encoding)?;
    let moves = moves_mode(moves)?;
    let inputs = inputs(paths, "games")?;
    let (options, notes) = with_notes(options_or(threads, loop_workers())?);
    check_inputs_exist(&inputs).map_err(command_error)?;
    let mut archive = Archive::from_inputs(inputs).with_options(options);
    if let Some(mode) = moves {
        archive = archive.moves(mode);
    }
    Ok(GameIterator {
        games: Some(archive.games()),
        notes,
        encoding,
        tag_reads: Some(tags::TAG_READS.load(Ordering::Relaxed)),
        until_signals: GAMES_BETWEEN_SIGNALS,
        owner: iterators::Owner::here(),
    })
}

/// The worker threads of `games()` when the caller names none: one per core
/// but one, and at least one. The loop's own thread takes every game and
/// makes its Python objects: it is the stream's slowest stage, and a worker
/// on every core took the cores from it. On two cores a `headers` loop over
/// the corpus ×16 took 0.95 of the time with one worker instead of two (30
/// pairs) and 6 MiB less memory; a loop that reads nothing, 0.97.
fn loop_workers() -> usize {
    cores().saturating_sub(1).max(1)
}

/// The `encoding=` argument of `games()` and `scan()`: None or "auto" (UTF-8
/// when valid, else Windows-1252), "utf-8" or "latin-1".
pub(crate) fn encoding_arg(encoding: Option<&str>) -> PyResult<Encoding> {
    encoding.map_or(Ok(Encoding::Auto), |name| {
        name.parse::<Encoding>().map_err(|_| {
            let allowed = Encoding::NAMES.map(|(name, _)| name);
            invalid_choice("encoding", name, &allowed)
        })
    })
}

/// The iterator of ``pgnfen.games()``: yields ``Game`` objects in input order.
#[pyclass(module = "pgnfen", name = "GameIterator")]
struct GameIterator {
    games: Option<Games>,
    /// The run's notes, given as warnings as games are taken.
    notes: std::sync::Arc<notes::Notes>,
    /// How each game's `headers` are decoded.
    encoding: Encoding,
    /// [`tags::TAG_READS`] when the stream began, until a tag was looked up:
    /// the pipeline then finds each game's tags ([`Games::index_tags`]).
    tag_reads: Option<u64>,
    /// Games to hand out before Python's signal handlers run again.
    until_signals: u32,
    /// The process whose threads read the games.
    owner: iterators::Owner,
}

/// Games handed out between two runs of Python's signal handlers when games
/// come without waiting: a loop written in C (`list(pgnfen.games(p))`) gives
/// Python no other moment to run them, and a few thousand games take about a
/// millisecond.
const GAMES_BETWEEN_SIGNALS: u32 = 4096;

impl Drop for GameIterator {
    fn drop(&mut self) {
        if !self.owner.is_here() {
            return iterators::Reading::let_go(self);
        }
        // Dropping the stream waits for the pipeline to stop: without the
        // GIL, as a reader may wait on a Python thread (one feeding a pipe),
        // and for a while only (a read that hangs).
        if let Some(games) = self.games.take() {
            Python::attach(|py| crate::interrupt::stop_within(py, move || drop(games)));
        }
    }
}

impl iterators::Reading for GameIterator {
    type Item = PyGame;

    fn next_item(&mut self, py: Python<'_>) -> PyResult<Option<PyGame>> {
        self.next_game(py)
    }

    fn stop_reading(&mut self, py: Python<'_>) {
        self.stop(py)
    }

    fn owner(&self) -> iterators::Owner {
        self.owner
    }

    fn let_go(&mut self) {
        // The parent's threads: neither stopped nor joined from here.
        std::mem::forget(self.games.take());
    }
}

iterators::iterator_methods!(GameIterator);

impl GameIterator {
    fn next_game(&mut self, py: Python<'_>) -> PyResult<Option<PyGame>> {
        self.until_signals -= 1;
        if self.until_signals == 0 {
            self.until_signals = GAMES_BETWEEN_SIGNALS;
            if let Err(e) = py.check_signals() {
                self.stop(py);
                return Err(e);
            }
            self.notes.give(py)?;
        }
        loop {
            let Some(games) = self.games.as_mut() else {
                return Ok(None);
            };
            if let Some(at_start) = self.tag_reads
                && tags::TAG_READS.load(Ordering::Relaxed) != at_start
            {
                // The program looks up tags (of these games, most likely):
                // the pipeline finds them, on its thread, from the next batch on.
                games.index_tags();
                self.tag_reads = None;
            }
            // The stream hands games over a chunk's worth at a time: most
            // games are ready at once, and only waiting for the next batch
            // releases the GIL (releasing and taking it back costs more than
            // a game).
            let item = match games.try_next() {
                Some(item) => Some(item),
                None => match crate::interrupt::detach(py, || games.next_timeout(SIGNAL_CHECK)) {
                    Some(Some(item)) => Some(item),
                    Some(None) => {
                        self.games = None;
                        self.notes.give(py)?;
                        return Ok(None);
                    }
                    None => None,
                },
            };
            match item {
                Some(Ok(game)) => {
                    return Ok(Some(PyGame {
                        game,
                        encoding: self.encoding,
                    }));
                }
                Some(Err(e)) => {
                    self.games = None;
                    return Err(run_error(e));
                }
                None => {
                    if let Err(e) = py.check_signals() {
                        // Ctrl-C ends the iteration: the pipeline stops now rather
                        // than filling its queue for a loop that is gone.
                        self.stop(py);
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Stops the reading (see `close()`).
    fn stop(&mut self, py: Python<'_>) {
        if let Some(games) = self.games.take() {
            crate::interrupt::stop_within(py, move || drop(games));
        }
    }
}

/// One game of a PGN file, as ``pgnfen.games()`` yields it.
///
/// Attributes: file (the path as given), game (1-based number in its file),
/// offset and length (bytes, in the decompressed input), line (1-based first
/// line), class_ (its class), chess960_position (0-959 or None), speed (from
/// the TimeControl tag: ultrabullet ... correspondence, or unknown), problems
/// (list of dicts as ``check`` gives them, warnings included), tags (a
/// read-only mapping of every tag, read when asked), headers (dict
/// of every tag, values unescaped; a repeated tag keeps its first value) and
/// raw (the bytes of the game exactly as in the file).
#[pyclass(frozen, module = "pgnfen", name = "Game")]
pub(crate) struct PyGame {
    pub(crate) game: Game,
    pub(crate) encoding: Encoding,
}

#[pymethods]
impl PyGame {
    /// The input's path as given (``<stdin>`` for standard input); a name
    /// that is not UTF-8 as ``os.fsdecode`` gives it, so that it opens again.
    #[getter]
    fn file<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        paths::file_name(py, &self.game.file)
    }

    /// 1-based number of the game within its file.
    #[getter]
    fn game(&self) -> u64 {
        self.game.game
    }

    /// Offset of the game's first byte in the (decompressed) input.
    #[getter]
    fn offset(&self) -> u64 {
        self.game.offset
    }

    /// Length of the game in bytes.
    #[getter]
    fn length(&self) -> u64 {
        self.game.length
    }

    /// The game's first line (1-based) in the input.
    #[getter]
    fn line(&self) -> u64 {
        self.game.line
    }

    /// Its class: standard, setup, chess960, crc, other or malformed.
    #[getter]
    fn class_(&self) -> &'static str {
        self.game.class.as_str()
    }

    /// The Chess960 start position number (0-959), or None.
    #[getter]
    fn chess960_position(&self) -> Option<u16> {
        self.game.chess960_position
    }

    /// Its speed from its first TimeControl tag: ultrabullet, bullet, blitz,
    /// rapid, classical, correspondence, or unknown (no tag, or a value that is
    /// not a time control). Read when asked for.
    #[getter]
    fn speed(&self) -> &'static str {
        self.game.speed().as_str()
    }

    /// Its problems, errors and warnings: dicts with the keys of
    /// ``check --format json`` (file, game, line, column, tag, code,
    /// severity, message, end_column, help). With ``games(moves=...)``, an
    /// illegal mainline move is the last of them (code ``illegal-move``).
    #[getter]
    fn problems<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for p in &self.game.problems {
            let d = PyDict::new(py);
            d.set_item("file", paths::file_name(py, &self.game.file))?;
            d.set_item("game", self.game.game)?;
            d.set_item("line", p.line)?;
            d.set_item("column", p.column)?;
            // None for an illegal move (it is in the movetext), as `check()` gives it.
            d.set_item("tag", Some(p.tag).filter(|tag| !tag.is_empty()))?;
            d.set_item("code", p.code.as_str())?;
            d.set_item("severity", p.severity.as_str())?;
            d.set_item("message", &p.message)?;
            d.set_item("end_column", p.end_column)?;
            d.set_item("help", p.help.as_deref())?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Every tag of the header as a dict (a new one at each access), values
    /// PGN-unescaped and decoded as ``games(encoding=...)`` says: by default
    /// UTF-8 when valid, else Windows-1252 (Latin-1), so that nothing becomes
    /// U+FFFD; ``raw`` keeps the bytes as they are. A repeated tag keeps its
    /// first value.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        tags::every_tag(py, self)
    }

    /// The tags of ``headers`` as a read-only mapping (``Tags``) read from the
    /// game's bytes when asked: ``game.tags["White"]`` reads the header up to
    /// that tag and decodes one value, without making the dict.
    #[getter]
    fn tags(slf: Bound<'_, Self>) -> tags::Tags {
        tags::Tags::new(slf.unbind())
    }

    /// What the replay of its mainline found, with ``games(moves="first")``
    /// or ``moves="all"``: "passed", "illegal" (the move is among
    /// ``problems``) or "not_checked" (classes crc and malformed, a variant
    /// that is not replayed, a movetext too long to hold); None without
    /// ``moves``.
    #[getter]
    fn moves(&self) -> Option<&'static str> {
        self.game.replay().map(|replay| match replay {
            pgnfen::moves::Replay::Passed => "passed",
            pgnfen::moves::Replay::Illegal(_) => "illegal",
            _ => "not_checked",
        })
    }

    /// The bytes of the game exactly as in the input.
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.game.raw())
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(file={:?}, game={}, line={}, offset={}, length={}, class_={:?})",
            self.game.file,
            self.game.game,
            self.game.line,
            self.game.offset,
            self.game.length,
            self.game.class.as_str()
        )
    }
}

/// Reads the SetUp, FEN and Variant headers of PGN chess archives: the
/// functions of the pgnfen command line as Python functions.
#[pymodule]
fn _pgnfen(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Calls still running on other threads when the interpreter ends.
    let at_exit = wrap_pyfunction!(interrupt::at_exit, m)?;
    m.py()
        .import("atexit")?
        .call_method1("register", (at_exit,))?;
    m.add_function(wrap_pyfunction!(fen_record, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(problems::check, m)?)?;
    m.add_function(wrap_pyfunction!(filter_games, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(files::split, m)?)?;
    m.add_function(wrap_pyfunction!(files::export_table, m)?)?;
    m.add_function(wrap_pyfunction!(books::fen_records, m)?)?;
    m.add_class::<books::FenRecordIterator>()?;
    m.add_function(wrap_pyfunction!(scan::scan_stream, m)?)?;
    m.add_class::<scan::ArrowStream>()?;
    m.add_class::<scan::ArrowBatch>()?;
    m.add_function(wrap_pyfunction!(partitions::partitions, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::problem_codes, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::judge, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::bases_after, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::partition_stats, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::partition_filter, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::check_selection, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::unseen_tag_warnings, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::partition_rows, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::check_stats_selection, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::partition_unchanged, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::shown_name, m)?)?;
    m.add_function(wrap_pyfunction!(partitions::os_error, m)?)?;
    m.add_class::<PyGame>()?;
    m.add_class::<tags::Tags>()?;
    m.add_class::<GameIterator>()?;
    m.add_class::<problems::ProblemIterator>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
