//! `pgnfen.split()` and `pgnfen.export()`: the commands that write files,
//! on the library's public API (`pgnfen::split`, `pgnfen::export`), with
//! Ctrl-C polled as for the other calls ([`interrupt`]).

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use pgnfen::export::{ExportOptions, Format, TagColumns};
use pgnfen::pipeline::check_inputs_exist;
use pgnfen::pipeline::output::Output;
use pgnfen::{Class, Error};

use crate::{StrList, cancellable, command_error, errors, inputs, interrupt, paths};

/// Write every game to the file of its class or speed, byte for byte and in
/// input order, like ``pgnfen split``.
///
/// template: the path of each file, holding ``{class}`` (replaced by the
/// class name: standard, setup, chess960, crc, other, malformed), ``{speed}``
/// (the speed name: ultrabullet, bullet, blitz, rapid, classical,
/// correspondence, unknown) or both; an ending .gz, .bz2, .xz or .zst
/// compresses. classes, speeds: the classes and speeds written (default:
/// every one). tags: tag conditions that must all hold for a game to be
/// written, as in ``filter()``. Folders the template names that do not
/// exist are made; every file is opened before reading, so one that cannot
/// be made fails at once; only the files that received games are written
/// (the others are left as they were).
///
/// Returns a dict of the games written to each file, by path, in class order
/// (and, within a class, in speed order, fastest first).
///
/// >>> import tempfile, os
/// >>> out = tempfile.mkdtemp()
/// >>> counts = pgnfen.split("samples/mixed.pgn", template=os.path.join(out, "{class}.pgn"))
/// >>> sorted(os.path.basename(p) for p in counts)
/// ['chess960.pgn', 'crc.pgn', 'malformed.pgn', 'other.pgn', 'setup.pgn', 'standard.pgn']
///
/// Raises pgnfen.UsageError (a ValueError) for a template with neither
/// ``{class}`` nor ``{speed}``, a bad class, speed or tag expression;
/// pgnfen.InputError (an OSError; NotADirectoryError for a template under
/// a file) when a file cannot be read or written.
#[pyfunction]
#[pyo3(signature = (*paths, template, classes=None, tags=None, speeds=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn split(
    py: Python<'_>,
    paths: &Bound<'_, PyTuple>,
    template: &Bound<'_, PyAny>,
    classes: Option<crate::StrList>,
    tags: Option<crate::StrList>,
    speeds: Option<crate::StrList>,
    threads: Option<crate::Threads>,
) -> PyResult<Py<PyAny>> {
    let (classes, tags, speeds) = (
        crate::names(classes),
        crate::names(tags),
        crate::names(speeds),
    );
    let inputs = inputs(paths, "split")?;
    // The library fills the template in on its bytes: any file name works.
    let template = paths::path(template)?;
    let classes = crate::choices::<Class>("classes", classes)?;
    let selector = crate::selector(tags, speeds)?;
    let (run, call) = cancellable(threads)?;
    let options = pgnfen::split::Options {
        template,
        classes,
        selector,
        run,
    };
    let notes = call.notes.clone();
    let summary = interrupt::run(py, &call, move || {
        let summary = pgnfen::split::run(&inputs, &options)?;
        notes.unseen_tags(&options.selector, &inputs, "tags=");
        Ok::<_, Error>(summary)
    })?
    .map_err(command_error)?;
    let counts = PyDict::new(py);
    for (path, games) in &summary.files {
        // As `os.fsdecode` has it: a name that is not UTF-8 comes back as
        // the `str` that opens the file (its bytes escaped), not a lossy one.
        counts.set_item(path.as_os_str(), games)?;
    }
    Ok(counts.into_any().unbind())
}

/// The format of an export: ``format`` by name, else the output's ending.
fn export_format(format: Option<&str>, output: &Path) -> PyResult<Format> {
    let format = match format {
        Some(name) => crate::choice::<Format>("format", name)?,
        None => Format::of_output(output).ok_or_else(|| {
            errors::usage(format!(
                "export: cannot tell the format from the name {} (end it in .parquet, .csv or .jsonl, or give format=)",
                output.display()
            ))
        })?,
    };
    format
        .check_output(Some(output))
        .map_err(|e| errors::usage(e.to_string()))?;
    format
        .check_name(Some(output))
        .map_err(|e| errors::usage(e.to_string()))?;
    Ok(format)
}

/// Write every game's headers as a table, one row per game, like
/// ``pgnfen export``: the rows ``scan()`` yields, to a file.
///
/// output: the table's path. format: "parquet", "csv" or "jsonl" (default:
/// from the ending of ``output``; CSV and JSON lines may end in .gz, .bz2,
/// .xz or .zst to compress). tags: None for the default tag columns, a list of tag
/// names, or "all" (a column for every tag name met; the files are read
/// twice). encoding: how tag names and values are decoded, as for ``scan()``
/// (None or "auto", "utf-8", "latin-1"). where: tag expressions every
/// exported game satisfies (``["WhiteElo>=2500"]``, as ``filter(tags=...)``
/// and ``export --tag``); speeds: the speeds to export (``--speed``).
/// csv_raw: CSV cells as they are, without neutralising formula starts or
/// escaping control characters (``--csv-raw``). The file appears under its
/// name only when the export succeeds.
///
/// Returns ``{"games": N, "rows": n, "dropped_pairs": n,
/// "games_with_dropped_pairs": n}``: tag pairs beyond the bounded header
/// memory of a game are not exported, and counted.
///
/// >>> import tempfile, os
/// >>> path = os.path.join(tempfile.mkdtemp(), "headers.jsonl")
/// >>> pgnfen.export("samples/standard.pgn", output=path)["rows"]
/// 3
///
/// Raises pgnfen.UsageError (a ValueError) for a bad format or tag name, or
/// an output name that does not tell the format; pgnfen.InputError (an
/// OSError) when a file cannot be read or written.
#[pyfunction(name = "export")]
#[pyo3(signature = (*paths, output, format=None, tags=None, threads=None, encoding=None, r#where=None, speeds=None, csv_raw=false))]
// Written out: PyO3 renders the default of a raw identifier as `...`.
#[pyo3(
    text_signature = "(*paths, output, format=None, tags=None, threads=None, encoding=None, where=None, speeds=None, csv_raw=False)"
)]
#[allow(clippy::too_many_arguments)]
pub fn export_table(
    py: Python<'_>,
    paths: &Bound<'_, PyTuple>,
    output: &Bound<'_, PyAny>,
    format: Option<&str>,
    tags: Option<&Bound<'_, PyAny>>,
    threads: Option<crate::Threads>,
    encoding: Option<&str>,
    r#where: Option<&Bound<'_, PyAny>>,
    speeds: Option<StrList>,
    csv_raw: bool,
) -> PyResult<Py<PyAny>> {
    let inputs = inputs(paths, "export")?;
    let output = paths::path(output)?;
    let format = export_format(format, &output)?;
    if csv_raw && format != Format::Csv {
        return Err(errors::usage(format!(
            "export: csv_raw=True is for CSV, and this export writes {}",
            format.as_str()
        )));
    }
    let export_options = ExportOptions {
        tags: crate::scan::tag_columns(tags)?,
        selector: crate::export_selector(r#where, speeds)?,
        encoding: crate::encoding_arg(encoding)?,
        csv_raw,
        ..ExportOptions::default()
    };
    // Named columns are checked before anything is read or created.
    if let TagColumns::Named(names) = &export_options.tags {
        pgnfen::export::Columns::named(names).map_err(|e| crate::columns_error(&e))?;
    }
    check_inputs_exist(&inputs).map_err(command_error)?;
    let (pipeline, call) = cancellable(threads)?;
    let name = output.display().to_string();
    let notes = call.notes.clone();
    let summary = interrupt::run(
        py,
        &call,
        move || -> Result<pgnfen::export::Summary, Error> {
            let out = Output::create(Some(&output))
                .map_err(|e| Error::writing(&name, e))?
                .cancelled_by(pipeline.cancel.clone());
            let columns = pgnfen::export::columns(&inputs, &export_options, &pipeline)?;
            let batches = pgnfen::export::batches(&inputs, columns, &export_options, &pipeline);
            let summary = pgnfen::export::write(batches, format, out)?;
            notes.unseen_tags(&export_options.selector, &inputs, "where=");
            Ok(summary)
        },
    )?
    .map_err(command_error)?;
    let counts = PyDict::new(py);
    counts.set_item("games", summary.games)?;
    counts.set_item("rows", summary.rows)?;
    counts.set_item("dropped_pairs", summary.dropped_pairs)?;
    counts.set_item("games_with_dropped_pairs", summary.games_with_dropped_pairs)?;
    Ok(counts.into_any().unbind())
}
