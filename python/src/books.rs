//! `pgnfen.fen_records()`: the records of FEN and EPD books as the dicts of
//! `pgnfen fen --format json`, streamed by the library's book engine
//! ([`pgnfen::book`], the one the command uses) on a thread of its own and
//! handed over through a bounded queue, so memory stays bounded whatever the
//! size of the books. Breaking out of the loop, dropping the iterator or
//! Ctrl-C stops the reading.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_channel::{Sender, bounded};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde_json::Value;

use pgnfen::Error;
use pgnfen::book::{self, Line, Render, Sink, StreamError};
use pgnfen::fen::{self, EpPolicy, VariantHint};
use pgnfen::pipeline::check_inputs_exist;

use crate::json_stream::{JsonStream, json_iterator_methods};
use crate::{command_error, inputs, interrupt, options};

/// Runs of records (up to a few thousand each) waiting between the reading
/// thread and the loop.
const QUEUE: usize = 4;

/// Bytes of a book read and rendered at a time: a block's records are all
/// made (as JSON values, about 1.5 KiB each) before they are handed on.
/// 1 MiB, as the command line reads, held 165 MiB at the peak for a book of
/// short lines; 256 KiB holds 76 MiB at the same speed (64 KiB: 52 MiB, but
/// 10–35 % slower, with too few records a block to share out). A block of
/// very short records is also rendered a group of lines at a time (the
/// engine's own bound): a book of 2 million invalid 12-byte records took
/// the loop to 101 MiB before, 72 MiB since.
const BLOCK: usize = 256 << 10;

/// Every line of a book that holds a record, as its JSON object, with the
/// file and line it was read from first (as `fen --format json` writes them).
struct Reports {
    file: String,
    /// `fen_records(ep=)`: one en passant policy for the three dialects.
    ep: Option<EpPolicy>,
}

impl Reports {
    /// The report's object with the file and line it was read from first.
    fn located(&self, line: u64, report: fen::report::Report) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("file".into(), Value::from(self.file.as_str()));
        object.insert("line".into(), Value::from(line));
        // A report of strings and numbers always serializes.
        if let Ok(Value::Object(fields)) = serde_json::to_value(report) {
            object.extend(fields);
        }
        Value::Object(object)
    }
}

impl Render for Reports {
    type Run = Vec<Value>;

    fn run(&self, data: &[u8], lines: &[Line], first: u64) -> Vec<Value> {
        lines
            .iter()
            .zip(first..)
            .map(|(line, number)| (line.text(data), number))
            .filter(|(text, _)| !Line::is_blank_or_comment(text))
            .map(|(text, number)| {
                let record = fen::analyse_record(text, VariantHint::StandardLike);
                self.located(number, fen::report_record(text, &record, self.ep))
            })
            .collect()
    }

    /// Nothing to yield, but an empty run all the same: handing it on is
    /// where the queue looks at Ctrl-C and `close()`, which would otherwise
    /// wait for the end of a line of gigabytes (a file of NUL bytes,
    /// `/dev/zero`).
    fn long_part(&self, _bytes: &[u8]) -> Option<Vec<Value>> {
        Some(Vec::new())
    }

    fn long_line_end(&self, _line_end: &[u8], line: u64) -> Vec<Value> {
        vec![self.located(line, Line::too_long_report())]
    }
}

/// The queue to the loop; fails (stopping the stream) once the loop is gone
/// or cancelled.
struct Queue {
    tx: Sender<Vec<Value>>,
    cancel: Arc<AtomicBool>,
}

/// The loop went away or Ctrl-C: the stream stops, quietly.
struct Stopped;

impl Sink<Vec<Value>> for Queue {
    type Error = Stopped;

    fn emit(&mut self, run: Vec<Value>) -> Result<(), Stopped> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Stopped);
        }
        if run.is_empty() {
            return Ok(());
        }
        self.tx.send(run).map_err(|_| Stopped)
    }
}

/// Streams every input into `queue`, in order.
fn read_books(
    inputs: &[pgnfen::pipeline::Input],
    threads: usize,
    ep: Option<EpPolicy>,
    mut queue: Queue,
) -> Result<(), Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(pgnfen::pipeline::worker_threads(threads))
        .build()
        .map_err(|e| Error::usage(format!("cannot start the worker threads: {e}")))?;
    for input in inputs {
        let read_err = |file: String| move |error| Error::Io { file, error };
        // Each stream on its own, as the command line reads books: a zip
        // member is named `ARCHIVE:MEMBER` and its lines count from 1.
        // A pipe that gives nothing stops the reading once the iterator is
        // stopped (Ctrl-C) or dropped.
        let mut streams = input
            .open_streams_until(Arc::new(AtomicU64::new(0)), Some(&queue.cancel))
            .map_err(read_err(input.display_name()))?;
        while let Some(mut stream) = streams.next().map_err(read_err(input.display_name()))? {
            let file = stream.input.display_name();
            let reports = Reports {
                file: file.clone(),
                ep,
            };
            match pool.install(|| {
                book::stream_in_blocks(&mut *stream.reader, &reports, false, BLOCK, &mut queue)
            }) {
                Ok(()) => {}
                Err(StreamError::Read(e)) => return Err(read_err(file)(e)),
                Err(StreamError::Sink(Stopped)) => return Ok(()),
            }
        }
    }
    Ok(())
}

/// The records of FEN and EPD books (one record a line), as dicts.
///
/// Returns a lazy iterator of the objects that ``pgnfen fen --format json``
/// prints, one per record, in input order (blank lines and ``#`` comment
/// lines hold no record); each is what ``pgnfen.fen()`` returns for its line
/// (an EPD record's dialect strings are EPD records, with ``operations``).
/// paths: one or more files (str, bytes or os.PathLike; "-" is standard
/// input), plain or compressed. The books are read as the loop goes, on
/// ``threads`` worker threads, with bounded memory. ``ep`` writes the en
/// passant square of the three dialects by one policy, as ``fen --ep``.
///
/// >>> records = list(pgnfen.fen_records("samples/positions.fen"))
/// >>> records[0]["class"], records[0]["valid"]
/// ('standard', True)
///
/// Raises pgnfen.MissingFileError (a FileNotFoundError) at once for a missing
/// file; pgnfen.InputError (an OSError) from the loop when a file turns out
/// unreadable (a corrupt .zst), after its readable records.
#[pyfunction]
#[pyo3(signature = (*paths, threads=None, ep=None))]
pub fn fen_records(
    paths: &Bound<'_, PyTuple>,
    threads: Option<crate::Threads>,
    ep: Option<&str>,
) -> PyResult<FenRecordIterator> {
    let inputs = inputs(paths, "fen_records")?;
    let ep = ep
        .map(|ep| crate::choice::<EpPolicy>("ep", ep))
        .transpose()?;
    let threads = options(threads)?.threads;
    check_inputs_exist(&inputs).map_err(command_error)?;
    // Books have no notes: the call's stay empty.
    let call = interrupt::Call::new(crate::notes::Notes::new());
    let (tx, rx) = bounded::<Vec<Value>>(QUEUE);
    let queue = Queue {
        tx,
        cancel: call.cancel.clone(),
    };
    let handle = std::thread::Builder::new()
        .name("pgnfen-fen-records".into())
        .spawn(move || read_books(&inputs, threads, ep, queue))
        .map_err(|e| crate::io_error("<thread>", &e))?;
    Ok(FenRecordIterator {
        stream: JsonStream::new(rx, handle, call, "fen_records"),
    })
}

/// The iterator of ``pgnfen.fen_records()``: yields record dicts in input order.
#[pyclass(module = "pgnfen", name = "FenRecordIterator")]
pub struct FenRecordIterator {
    stream: JsonStream<Vec<Value>>,
}

json_iterator_methods!(FenRecordIterator);
