//! `pgnfen.check()`: the problems of the inputs as a lazy iterator. The check
//! runs on a thread of its own and hands the problems over through a bounded
//! queue, so memory stays bounded however many problems the inputs hold (a
//! file where every game is a problem would otherwise build a list as large
//! as the file many times over). Breaking out of the loop, dropping the
//! iterator or Ctrl-C stops the run.

use std::io;

use crossbeam_channel::bounded;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use pgnfen::pipeline::check_inputs_exist;

use crate::json_stream::{JsonStream, json_iterator_methods};
use crate::{cancellable, command_error, inputs};

/// Problems waiting between the check's thread and the loop: enough to keep
/// both busy, few enough to be a few hundred KiB.
const QUEUE: usize = 4096;

/// Every problem of the SetUp/FEN/Variant headers of PGN files.
///
/// Returns a lazy iterator of dicts, the objects that ``pgnfen check
/// --format json`` prints, in input order: ``file``, ``game`` (1-based in its
/// file), ``line``, ``column``, ``tag``, ``code``, ``severity``,
/// ``message``, ``end_column``, ``help``. Errors only, unless ``warnings``
/// is true. moves: "first" or "all" replays each game's mainline from its
/// start position; an unplayable move is the problem ``illegal-move``
/// (``"tag": None``, with ``"ply"`` and ``"move"``). The inputs are read
/// as the loop goes, with bounded memory; ``list(pgnfen.check(...))`` gives
/// them all. Leaving the loop early (or ``close()``) stops the reading.
///
/// >>> [p["code"] for p in pgnfen.check("samples/malformed.pgn")][:3]
/// ['fen-syntax', 'setup-without-fen', 'castling-rights']
///
/// Raises pgnfen.MissingFileError (a FileNotFoundError) at once for a missing
/// file; pgnfen.InputError (an OSError) from the loop when a file turns out
/// unreadable.
#[pyfunction]
#[pyo3(signature = (*paths, warnings=false, threads=None, moves=None))]
pub fn check(
    paths: &Bound<'_, PyTuple>,
    warnings: bool,
    threads: Option<crate::Threads>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<ProblemIterator> {
    let inputs = inputs(paths, "check")?;
    let moves = crate::moves_mode(moves)?;
    let (run, call) = cancellable(threads)?;
    check_inputs_exist(&inputs).map_err(command_error)?;
    let (tx, rx) = bounded::<serde_json::Value>(QUEUE);
    let handle = std::thread::Builder::new()
        .name("pgnfen-check".into())
        .spawn(move || {
            let options = pgnfen::check::Options {
                run,
                warnings,
                moves,
            };
            pgnfen::check::run(&inputs, &options, |d| {
                let value = serde_json::to_value(d).map_err(io::Error::other)?;
                // The loop is gone (dropped or closed): stop reading.
                tx.send(value)
                    .map_err(|_| io::Error::new(io::ErrorKind::Interrupted, "interrupted"))
            })
            .map(drop)
        })
        .map_err(|e| crate::io_error("<thread>", &e))?;
    Ok(ProblemIterator {
        stream: JsonStream::new(rx, handle, call, "check"),
    })
}

/// The iterator of ``pgnfen.check()``: yields problem dicts in input order.
#[pyclass(module = "pgnfen", name = "ProblemIterator")]
pub struct ProblemIterator {
    stream: JsonStream<serde_json::Value>,
}

json_iterator_methods!(ProblemIterator);
