//! `pgnfen.check()`: the problems of the inputs as a lazy iterator. The check
//! runs on a thread of its own and hands the problems over through a bounded
//! queue, so memory stays bounded however many problems the inputs hold (a
//! file where every game is a problem would otherwise build a list as large
//! as the file many times over). Breaking out of the loop, dropping the
//! iterator or Ctrl-C stops the run.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, RecvTimeoutError, bounded};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use pgnfen::Error;
use pgnfen::pipeline::check_inputs_exist;

use crate::{cancellable, command_error, inputs, interrupt, to_py};

/// Problems waiting between the check's thread and the loop: enough to keep
/// both busy, few enough to be a few hundred KiB.
const QUEUE: usize = 4096;

/// The most problems taken from the queue per release of the GIL.
const BATCH: usize = 256;

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
    threads: Option<usize>,
    moves: Option<&Bound<'_, PyAny>>,
) -> PyResult<ProblemIterator> {
    let inputs = inputs(paths, "check")?;
    let moves = crate::moves_mode(moves)?;
    let (run, cancel) = cancellable(threads)?;
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
        rx: Some(rx),
        handle: Some(handle),
        cancel,
        ready: Vec::new(),
    })
}

/// The iterator of ``pgnfen.check()``: yields problem dicts in input order.
#[pyclass(module = "pgnfen", name = "ProblemIterator")]
pub struct ProblemIterator {
    rx: Option<Receiver<serde_json::Value>>,
    handle: Option<JoinHandle<Result<(), Error>>>,
    cancel: Arc<AtomicBool>,
    /// Problems taken from the queue, not yet yielded (reversed: popped from the end).
    ready: Vec<serde_json::Value>,
}

impl ProblemIterator {
    /// Stops the run (if still going) and waits for its thread: its result.
    fn finish(&mut self) -> Option<Result<(), Error>> {
        self.rx = None;
        let handle = self.handle.take()?;
        Some(handle.join().unwrap_or_else(|_| {
            Err(Error::Io {
                file: "<check>".into(),
                source: io::Error::other("the check thread failed unexpectedly"),
            })
        }))
    }

    /// Waits up to [`interrupt::POLL`] for problems and takes those ready
    /// (up to [`BATCH`]) into `ready`; true at the end of the run.
    fn wait(rx: &Receiver<serde_json::Value>, ready: &mut Vec<serde_json::Value>) -> bool {
        match rx.recv_timeout(interrupt::POLL) {
            Ok(value) => {
                ready.push(value);
                while ready.len() < BATCH {
                    match rx.try_recv() {
                        Ok(value) => ready.push(value),
                        Err(_) => break,
                    }
                }
                ready.reverse();
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => true,
        }
    }

    fn stop(&mut self, py: Python<'_>) {
        self.cancel.store(true, Ordering::Relaxed);
        self.ready.clear();
        py.detach(|| {
            let _ = self.finish();
        });
    }
}

#[pymethods]
impl ProblemIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            if let Some(value) = self.ready.pop() {
                return to_py(py, &value).map(Some);
            }
            let Some(rx) = self.rx.as_ref() else {
                return Ok(None);
            };
            let ready = &mut self.ready;
            let end = py.detach(|| Self::wait(rx, ready));
            if end {
                let result = py.detach(|| self.finish());
                return match result {
                    Some(Err(e)) => Err(command_error(e)),
                    _ => Ok(None),
                };
            }
            if self.ready.is_empty()
                && let Err(e) = py.check_signals()
            {
                self.stop(py);
                return Err(e);
            }
        }
    }

    /// Stop reading now (leaving the loop and dropping the iterator does the same).
    fn close(&mut self, py: Python<'_>) {
        self.stop(py);
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &mut self,
        py: Python<'_>,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc_value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close(py);
        false
    }
}

impl Drop for ProblemIterator {
    fn drop(&mut self) {
        // The run stops at its next problem or chunk; its thread ends on its
        // own (not joined here: a drop must not block).
        self.cancel.store(true, Ordering::Relaxed);
        self.rx = None;
    }
}
