//! The native half of `pgnfen.dask`: plan partitions, run one (speculatively
//! or from a known first game), judge it by its predecessor. The Dask side
//! (python/pgnfen/dask.py) schedules these; everything it passes around is
//! plain tuples and dicts, so that tasks pickle to any worker.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use pgnfen::export::{self, ExportOptions, TagColumns};
use pgnfen::partition::{self, Bases, Kind, Outcome, Partition, Start, Verdict};
use pgnfen::pipeline::output::Output;

use pgnfen::Error;
use pgnfen::select::Selector;

use crate::scan::ArrowStream;
use crate::{command_error, options};

/// A partition as Python holds it: (path, kind, index, start, end,
/// identity). The identity is the file's when the partitions were planned
/// (None: not checked, for the empty frame Dask's metadata is built from).
type PartTuple = (PathBuf, String, usize, u64, u64, Option<Identity>);
/// A [`PartTuple`] as [`partitions`] gives it: the path as a str.
type PlannedTuple = (
    std::ffi::OsString,
    String,
    usize,
    u64,
    u64,
    Option<Identity>,
);

/// What tells a file's contents changed: size, modification time
/// (nanoseconds), device and inode (a file replaced by another under the
/// same name has another inode).
type Identity = (u64, i128, u64, u64);

fn identity(path: &Path) -> io::Result<Identity> {
    let meta = std::fs::metadata(path)?;
    let mtime = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
    Ok((meta.len(), mtime, meta.dev(), meta.ino()))
}

/// An error naming the file when it is no longer what it was when the
/// partitions were planned: a partition checks this before and after its
/// work, as a one-machine run checks its input after reading it, so that a
/// file appended to, truncated or replaced during a Dask run is an error
/// rather than a mix of two files' games.
fn check_unchanged(t: &PartTuple) -> Result<(), Error> {
    let Some(planned) = t.5 else { return Ok(()) };
    let io_err = |error| Error::Io {
        file: t.0.display().to_string(),
        error,
    };
    let now = identity(&t.0).map_err(io_err)?;
    if now == planned {
        return Ok(());
    }
    let what = if (now.2, now.3) != (planned.2, planned.3) {
        "replaced by another file".to_string()
    } else if now.0 != planned.0 {
        format!("size {} when planned, {} now", planned.0, now.0)
    } else {
        "modified".to_string()
    };
    Err(io_err(io::Error::other(format!(
        "the file changed during the Dask run ({what}); nothing was written"
    ))))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Plain => "plain",
        Kind::ZstdFrames => "zstd-frames",
        Kind::Whole => "whole",
    }
}

fn partition(t: &PartTuple) -> PyResult<Partition> {
    // The errors of the worker's run name the file as the client gave it
    // (a name that is not UTF-8 comes back with its surrogate escapes, as
    // one machine gives it), not as the library shows it.
    crate::paths::remember(&t.0);
    let kind = match t.1.as_str() {
        "plain" => Kind::Plain,
        "zstd-frames" => Kind::ZstdFrames,
        "whole" => Kind::Whole,
        other => {
            return Err(crate::errors::usage(format!(
                "unknown partition kind {other:?}"
            )));
        }
    };
    Ok(Partition {
        path: t.0.clone(),
        kind,
        index: t.2,
        start: t.3,
        end: t.4,
    })
}

fn start(at: Option<u64>) -> Start {
    at.map_or(Start::Guess, Start::At)
}

/// The outcome as a dict, with the run's `notes`: what one machine would
/// warn about as it read (a zip's members in which no tag line is found),
/// for the client to give; and the tags of the selection's expressions
/// that none of the partition's games held (`unseen`), which the client
/// warns about when no partition saw them.
fn outcome_dict<'py>(
    py: Python<'py>,
    o: &Outcome,
    notes: &crate::notes::Notes,
    selector: &Selector,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("notes", notes.take_lines())?;
    d.set_item("unseen", selector.unseen_names())?;
    d.set_item("first", o.first)?;
    d.set_item("next", o.next)?;
    d.set_item("decoded_len", o.decoded_len)?;
    d.set_item("lines", o.lines)?;
    d.set_item("games", o.games)?;
    d.set_item("tag_line", o.tag_line)?;
    Ok(d)
}

fn outcome(d: &Bound<'_, PyDict>) -> PyResult<Outcome> {
    let get = |k: &str| -> PyResult<Bound<'_, PyAny>> {
        d.get_item(k)?
            .ok_or_else(|| crate::errors::usage(format!("outcome without {k:?}")))
    };
    Ok(Outcome {
        first: get("first")?.extract()?,
        next: get("next")?.extract()?,
        decoded_len: get("decoded_len")?.extract()?,
        lines: get("lines")?.extract()?,
        games: get("games")?.extract()?,
        // (Not needed to judge the next partition.)
        tag_line: match d.get_item("tag_line")? {
            Some(seen) => seen.extract()?,
            None => false,
        },
    })
}

/// Every problem code, in the order `stats --format json` lists them.
#[pyfunction]
pub fn problem_codes() -> Vec<&'static str> {
    pgnfen::Code::ALL.iter().map(|c| c.as_str()).collect()
}

/// Cuts files (str, bytes or os.PathLike) into partitions of about `size`
/// bytes: a list of (path, kind, index, start, end, identity) tuples, in
/// input order; identity is the file's (size, mtime_ns, dev, inode) now.
#[pyfunction]
#[pyo3(signature = (paths, size))]
pub fn partitions(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    size: u64,
) -> PyResult<Vec<PlannedTuple>> {
    let paths = crate::paths::paths(paths)?;
    crate::interrupt::detach(py, || -> Result<Vec<PlannedTuple>, Error> {
        // Taken before the plan reads the files: a change while planning is
        // then caught too.
        let identities = paths
            .iter()
            .map(|p| {
                identity(p).map_err(|error| Error::Io {
                    file: p.display().to_string(),
                    error,
                })
            })
            .collect::<Result<Vec<_>, _>>();
        let parts = partition::plan(&paths, size)?;
        let identities = identities?;
        Ok(parts
            .into_iter()
            .map(|p| {
                let id = paths
                    .iter()
                    .position(|q| *q == p.path)
                    .map(|i| identities[i]);
                (
                    // A str (as `os.fsdecode` gives it), as the stubs say.
                    p.path.into_os_string(),
                    kind_name(p.kind).to_string(),
                    p.index,
                    p.start,
                    p.end,
                    id,
                )
            })
            .collect())
    })
    .map_err(command_error)
}

/// The name one machine gives the file at `path` in its messages (lossy
/// for a name that is not UTF-8, control characters escaped), for the
/// warnings the client gives on the workers' behalf.
#[pyfunction]
pub fn shown_name(path: PathBuf) -> String {
    pgnfen::pipeline::Input::File(path).display_name()
}

/// The exception one machine raises for the operating system's error
/// `errno` on `path` (an output it could not make): the same class, words and
/// attributes, for the file operations the client does itself.
#[pyfunction]
pub fn os_error(
    py: Python<'_>,
    errno: i32,
    path: PathBuf,
) -> Py<pyo3::exceptions::PyBaseException> {
    crate::paths::remember(&path);
    let name = pgnfen::pipeline::Input::File(path).display_name();
    crate::io_error(&name, &io::Error::from_raw_os_error(errno)).into_value(py)
}

/// Raises OSError naming the partition's file when the file is no longer
/// what it was when the partitions were planned (for work done outside the
/// native calls, such as reading a partition's Arrow rows).
#[pyfunction]
pub fn partition_unchanged(py: Python<'_>, part: PartTuple) -> PyResult<()> {
    crate::paths::remember(&part.0);
    crate::interrupt::detach(py, || check_unchanged(&part)).map_err(command_error)
}

/// Judges a partition's outcome by its predecessor's final outcome (None for
/// a file's first partition): ("keep", None), ("redo", offset) or
/// ("empty", next).
#[pyfunction]
#[pyo3(signature = (previous, outcome_))]
pub fn judge(
    previous: Option<Bound<'_, PyDict>>,
    outcome_: Bound<'_, PyDict>,
) -> PyResult<(&'static str, Option<u64>)> {
    let previous = previous.as_ref().map(outcome).transpose()?;
    Ok(
        match partition::judge(previous.as_ref(), &outcome(&outcome_)?) {
            Verdict::Keep => ("keep", None),
            Verdict::Redo(at) => ("redo", Some(at)),
            Verdict::Empty(next) => ("empty", next),
        },
    )
}

/// The bases of the partition after one with bases `bases` and `outcome`.
#[pyfunction]
pub fn bases_after(
    bases: (u64, u64, u64),
    outcome_: Bound<'_, PyDict>,
) -> PyResult<(u64, u64, u64)> {
    let b = Bases {
        offset: bases.0,
        line: bases.1,
        game: bases.2,
    }
    .after(&outcome(&outcome_)?);
    Ok((b.offset, b.line, b.game))
}

/// Counts the games a partition owns: (outcome, stats JSON text). `tags`
/// and `speeds` count only the games that match, as `stats --tag` and
/// `--speed` (the others in `unmatched`); `moves` replays each game's
/// mainline, as `stats --moves`.
#[pyfunction]
#[pyo3(signature = (part, at=None, threads=None, tags=None, speeds=None, moves=None))]
#[allow(clippy::too_many_arguments)]
pub fn partition_stats<'py>(
    py: Python<'py>,
    part: PartTuple,
    at: Option<u64>,
    threads: Option<crate::Threads>,
    tags: Option<Vec<String>>,
    speeds: Option<Vec<String>>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Bound<'py, PyDict>, String)> {
    let selector = crate::selector(tags, speeds)?;
    let moves = crate::moves_mode(moves)?;
    let tuple = part;
    let part = partition(&tuple)?;
    let (run, notes) = crate::with_notes(options(threads)?);
    let (o, json) = crate::interrupt::detach(py, || -> Result<(Outcome, Vec<u8>), Error> {
        check_unchanged(&tuple)?;
        let (counts, o) = part.stats_selected(start(at), &selector, moves, &run)?;
        check_unchanged(&tuple)?;
        let mut json = Vec::new();
        counts
            .write_json(&mut json)
            .map_err(|e| Error::writing("<memory>", e))?;
        Ok((o, json))
    })
    .map_err(command_error)?;
    Ok((
        outcome_dict(py, &o, &notes, &selector)?,
        String::from_utf8_lossy(&json).into_owned(),
    ))
}

/// Checks a selection as `partition_filter` takes it, so that a mistake is
/// found on the client before any partition runs.
#[pyfunction]
#[pyo3(signature = (classes=None, tags=None, chess960_positions=None, speeds=None, moves=None))]
pub fn check_selection(
    classes: Option<crate::StrList>,
    tags: Option<crate::StrList>,
    chess960_positions: Option<crate::Positions>,
    speeds: Option<crate::StrList>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let moves = crate::moves_mode(moves)?;
    let (classes, tags, speeds) = (
        crate::names(classes),
        crate::names(tags),
        crate::names(speeds),
    );
    crate::filter_selection(classes, tags, chess960_positions, speeds, moves).map(drop)
}

/// Checks the `tags`, `speeds` and `moves` of `partition_stats`, so that a
/// mistake is found on the client before any partition runs.
#[pyfunction]
#[pyo3(signature = (tags=None, speeds=None, moves=None))]
pub fn check_stats_selection(
    tags: Option<crate::StrList>,
    speeds: Option<crate::StrList>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    crate::moves_mode(moves)?;
    crate::selector(crate::names(tags), crate::names(speeds))?
        .with_time_control()
        .validate()
        .map_err(|e| crate::errors::usage(e.to_string()))
}

/// Writes the games a partition owns that the selection keeps (with
/// `moves`, as `filter --moves`) to `output`
/// (nothing at all when `own_nothing`; a line end after a last game without
/// one when `more_inputs_follow`): (outcome, kept games). Errors name the
/// output `shown` (the part file the user will see) instead of `output` (a
/// staging file) when it is given.
#[pyfunction]
#[pyo3(signature = (part, output, at=None, classes=None, tags=None, chess960_positions=None, speeds=None, own_nothing=false, more_inputs_follow=false, threads=None, shown=None, moves=None))]
#[allow(clippy::too_many_arguments)]
pub fn partition_filter<'py>(
    py: Python<'py>,
    part: PartTuple,
    output: &Bound<'_, PyAny>,
    at: Option<u64>,
    classes: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    chess960_positions: Option<crate::Positions>,
    speeds: Option<Vec<String>>,
    own_nothing: bool,
    more_inputs_follow: bool,
    threads: Option<crate::Threads>,
    shown: Option<&Bound<'_, PyAny>>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Bound<'py, PyDict>, u64)> {
    let moves = crate::moves_mode(moves)?;
    let tuple = part;
    let part = partition(&tuple)?;
    let output = crate::paths::path(output)?;
    let (run, notes) = crate::with_notes(options(threads)?);
    let selection = crate::filter_selection(classes, tags, chess960_positions, speeds, moves)?;
    let staged = output.display().to_string();
    let name = match shown {
        Some(shown) => crate::paths::path(shown)?.display().to_string(),
        None => staged.clone(),
    };
    let (o, kept) = crate::interrupt::detach(py, || -> Result<(Outcome, u64), Error> {
        check_unchanged(&tuple)?;
        let out = Output::create(Some(&output)).map_err(|e| Error::writing(&name, e))?;
        if own_nothing {
            out.commit().map_err(|e| Error::writing(&name, e))?;
            return Ok((Outcome::default(), 0));
        }
        let (o, kept, out) =
            part.filter(start(at), &selection, moves, out, more_inputs_follow, &run)?;
        // Checked before the output appears: a changed input leaves none.
        check_unchanged(&tuple)?;
        out.commit().map_err(|e| Error::writing(&name, e))?;
        Ok((o, kept))
    })
    .map_err(|e| match e {
        // The pipeline names the file it writes: the staging file.
        Error::Io { file, error } if file == staged => {
            command_error(Error::Io { file: name, error })
        }
        e => command_error(e),
    })?;
    Ok((outcome_dict(py, &o, &notes, &selection.selector)?, kept))
}

/// The warnings one machine gives after a run in which no game held the
/// tags `names` (those no partition's games held), each with the closest
/// tag name at the start of `paths`. `named_by`: the argument (`tags=`).
#[pyfunction]
#[pyo3(signature = (names, named_by, *paths))]
pub fn unseen_tag_warnings(
    py: Python<'_>,
    names: Vec<String>,
    named_by: &str,
    paths: &Bound<'_, PyTuple>,
) -> PyResult<Vec<String>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let inputs = crate::inputs(paths, "unseen_tag_warnings")?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let closest =
        crate::interrupt::detach(py, || pgnfen::select::closest_tag_names(&names, &inputs));
    Ok(closest
        .into_iter()
        .map(|(name, near)| pgnfen::select::unseen_tag_warning(&name, near.as_deref(), named_by))
        .collect())
}

/// The rows of `export` for the games a partition owns, from its resolved
/// first game `at`, placed by `bases` (offset, line, game): an ArrowStream.
/// `expressions` and `speeds` keep only the games that match (the `where=`
/// and `speeds=` of `read_headers`, as `export --tag` and `--speed`);
/// `encoding` decodes names and values as `export --encoding` does.
#[pyfunction]
#[pyo3(signature = (part, at, bases, tags=None, threads=None, expressions=None, speeds=None, encoding=None))]
#[allow(clippy::too_many_arguments)]
pub fn partition_rows(
    py: Python<'_>,
    part: PartTuple,
    at: u64,
    bases: (u64, u64, u64),
    tags: Option<Vec<String>>,
    threads: Option<crate::Threads>,
    expressions: Option<&Bound<'_, PyAny>>,
    speeds: Option<crate::StrList>,
    encoding: Option<&str>,
) -> PyResult<ArrowStream> {
    let encoding = crate::encoding_arg(encoding)?;
    let selector = crate::export_selector(expressions, speeds)?;
    let tuple = part;
    let part = partition(&tuple)?;
    crate::interrupt::detach(py, || check_unchanged(&tuple)).map_err(command_error)?;
    let run = options(threads)?;
    let export_options = ExportOptions {
        tags: tags.map_or(TagColumns::Default, TagColumns::Named),
        selector,
        encoding,
        ..ExportOptions::default()
    };
    let columns = crate::interrupt::detach(py, || export::columns(&[], &export_options, &run))
        .map_err(|e| command_error(e.into()))?;
    let bases = Bases {
        offset: bases.0,
        line: bases.1,
        game: bases.2,
    };
    let batches = part.export_batches(Start::At(at), bases, columns, &export_options, &run);
    Ok(ArrowStream::new(batches))
}
