//! `export`: one row per game (where it lies, its class, Chess960 start
//! position, problem codes and tag values) as Arrow record batches, written as
//! Parquet, CSV or JSON lines.
//!
//! The work is split like every command's: the worker threads scan each chunk
//! and build each game's row from its header (every tag pair is read); the merger thread puts the rows in input
//! order with their spans into Arrow builders and
//! hands over a [`RecordBatch`] every [`ExportOptions::batch_rows`] rows; the
//! caller's thread consumes the batches ([`Batches`], an iterator), so that
//! encoding Parquet overlaps with reading. At most two
//! batches wait, so memory stays bounded whatever the input's size.
//!
//! [`batches`] is the entry point for any consumer (the writers of this module,
//! and a Python `RecordBatchReader`); [`write()`] writes them in a [`Format`].
//!
//! ```
//! use pgnfen::export::{self, ExportOptions};
//! use pgnfen::pipeline::{Input, Options};
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("games.pgn");
//! # std::fs::write(&path, "[Event \"a\"]\n[White \"Carlsen\"]\n[WhiteElo \"2830\"]\n\n1. e4 *\n\n\
//! #     [Event \"b\"]\n\n1. d4 *\n")?;
//! let inputs = [Input::from_arg(&path)];
//! let options = ExportOptions::default();
//! let run = Options::new(2);
//! let columns = export::columns(&inputs, &options, &run)?;
//! let mut rows = 0;
//! for batch in export::batches(&inputs, columns, &options, &run) {
//!     let batch = batch?;
//!     assert!(batch.schema().field_with_name("WhiteElo").is_ok());
//!     rows += batch.num_rows();
//! }
//! assert_eq!(rows, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod columns;
mod row;
mod text;
mod write;

use std::collections::HashSet;
use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use crossbeam_channel::{Receiver, Sender, bounded};

use crate::pipeline::{self, GameInfo, Input, Options, RunError, Sink};
use crate::select::Selector;

pub use columns::{ColumnError, Columns, Spelling, TagColumns};
pub use text::{Csv, JsonLines};
pub use write::{CompressedParquet, Format, FormatMismatch, write};

/// Rows per record batch by default: large enough that per-batch costs vanish,
/// small enough that a batch of long headers stays a few MiB.
pub(crate) const BATCH_ROWS: usize = 16 * 1024;

use crate::pipeline::game::{MAX_PAIRS, PAIR_BUDGET};

/// Cells (rows × columns) per record batch at most: with `--tags all` and a
/// thousand columns a batch has fewer rows, so that its memory stays that of
/// a batch of the default columns.
pub(crate) const BATCH_CELLS: usize = 1 << 19;

/// Bytes of text (values, other tags' names, file names) per record batch at
/// most: a batch of headers with long values (a FEN whose castling field is
/// 10,000 letters) is cut long before it holds 16,384 of them, 160 MB. The
/// batches of the benchmark's ordinary archive hold at most 2.6 MB of text,
/// so they are cut by rows alone (and the output's bytes do not change).
pub(crate) const BATCH_BYTES: usize = 4 << 20;

/// Record batches built and not yet consumed, at most.
pub(crate) const BATCHES_IN_FLIGHT: usize = 2;

/// What to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// Which tag columns.
    pub tags: TagColumns,
    /// Only games whose tags satisfy these expressions (`--tag`), of the
    /// speeds it lists (`--speed`; every speed when none is).
    pub selector: Selector,
    /// Rows per record batch, fewer when there are many columns: a batch holds
    /// at most about half a million cells (2^19), but never fewer than 256
    /// rows, so that a table of more than 2,048 columns has batches of 256.
    pub batch_rows: usize,
    /// How tag names and values are decoded (`--encoding`).
    pub encoding: crate::pgn::encoding::Encoding,
    /// CSV text cells written as they are by [`write()`], without escaping
    /// control characters or neutralising formula starts (`--csv-raw`).
    pub csv_raw: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            tags: TagColumns::Default,
            selector: Selector::default(),
            batch_rows: BATCH_ROWS,
            encoding: crate::pgn::encoding::Encoding::Auto,
            csv_raw: false,
        }
    }
}

/// Why an export failed. Non-exhaustive: a later version may tell more
/// causes apart.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Tag columns that cannot be made (exit status 2, before anything is
    /// read).
    #[error(transparent)]
    Columns(ColumnError),
    /// A selection ([`ExportOptions::selector`]) that one run cannot apply:
    /// more distinct tag names than the scanner can look for (exit status
    /// 2, before anything is read).
    #[error(transparent)]
    Selection(Box<crate::Error>),
    /// Reading an input, or handing over the rows.
    #[error(transparent)]
    Run(#[from] RunError),
    /// Writing the output (the message names it).
    #[error("{0}")]
    Write(io::Error),
}

/// What an export read and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Rows written (games that satisfy `--tag`).
    pub rows: u64,
    /// Tag pairs that did not fit the bounded header memory (see
    /// `MAX_PAIRS`, `PAIR_BUDGET`), and in how many games.
    pub dropped_pairs: u64,
    /// Games with dropped pairs.
    pub games_with_dropped_pairs: u64,
}

impl Summary {
    /// Tag pairs kept per game header at most; the pairs past it are counted
    /// in [`Summary::dropped_pairs`].
    pub const MAX_PAIRS: usize = MAX_PAIRS;
    /// Bytes of tag pairs kept per game header at most; the pairs past it are
    /// counted in [`Summary::dropped_pairs`].
    pub const PAIR_BUDGET: usize = PAIR_BUDGET;
}

/// The columns of an export: for [`TagColumns::All`] this reads every input
/// once (the first of two passes), so standard input cannot be used then.
/// Every front end calls this first, so the selection is checked here too:
/// with more tag names than the scanner looks for, the expressions on the
/// names past them would never match.
pub fn columns(
    inputs: &[Input],
    options: &ExportOptions,
    pipeline: &Options,
) -> Result<Columns, Error> {
    options
        .selector
        .validate()
        .map_err(|e| Error::Selection(Box::new(e)))?;
    match &options.tags {
        TagColumns::Default => Ok(Columns::default_tags()),
        TagColumns::Named(names) => Columns::named(names).map_err(Error::Columns),
        TagColumns::All => {
            if inputs.contains(&Input::Stdin) {
                return Err(Error::Columns(ColumnError::AllFromStdin));
            }
            // A named pipe or `<(...)` cannot be read twice either.
            for input in inputs {
                if let Input::File(path) = input
                    && std::fs::metadata(path).is_ok_and(|m| !m.is_file())
                {
                    return Err(Error::Columns(ColumnError::AllFromNonFile(path.clone())));
                }
            }
            let stamps = Columns::stamp_inputs(inputs);
            let mut names = NameCollector::default();
            let job = row::NamesJob {
                selector: &options.selector,
            };
            pipeline::run(inputs, &job, &mut names, pipeline)?;
            Ok(Columns::from_seen(&names.order).read_from(stamps))
        }
    }
}

/// Collects tag names in order of first appearance.
#[derive(Default)]
struct NameCollector {
    order: Vec<Vec<u8>>,
    seen: HashSet<Vec<u8>>,
    /// The last game's name list: consecutive games of one archive mostly
    /// have the same tags, which are then not looked up one by one.
    last: Box<[u8]>,
}

impl Sink<Option<Box<[u8]>>> for NameCollector {
    fn begin_game(&mut self, _info: &GameInfo, names: Option<Box<[u8]>>) -> io::Result<()> {
        let Some(names) = names else { return Ok(()) };
        if names == self.last {
            return Ok(());
        }
        for name in row::names(&names) {
            // Bounded: past a few times the column limit no name can get a
            // column any more (collisions with fixed columns are few).
            if self.order.len() >= columns::SEEN_CAP {
                break;
            }
            if !self.seen.contains(name) {
                self.seen.insert(name.to_vec());
                self.order.push(name.to_vec());
            }
        }
        self.last = names;
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        false
    }
}

/// The record batches of an export, produced on a thread of their own while
/// the caller consumes them; an iterator that ends with the run's error, if
/// any. Dropping it stops the run (at the next batch).
#[derive(Debug)]
pub struct Batches {
    schema: SchemaRef,
    rx: Option<Receiver<RecordBatch>>,
    thread: Option<JoinHandle<Result<Summary, RunError>>>,
    /// The thread could not be started: the error the iterator ends with.
    failed: Option<RunError>,
    summary: Option<Summary>,
    /// [`ExportOptions::csv_raw`], for [`write()`].
    pub(crate) csv_raw: bool,
    /// The run's [`Options::cancel`], for [`write()`]'s commit.
    pub(crate) cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl Batches {
    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// What the run read, once the iterator has ended without an error.
    pub fn summary(&self) -> Option<Summary> {
        self.summary
    }

    fn join(&mut self) -> Option<Result<Summary, RunError>> {
        self.rx = None;
        if let Some(e) = self.failed.take() {
            return Some(Err(e));
        }
        let thread = self.thread.take()?;
        Some(thread.join().unwrap_or_else(|_| {
            Err(RunError::Sink(io::Error::other(
                "the export thread failed unexpectedly",
            )))
        }))
    }
}

impl Batches {
    /// The next item, waiting at most `timeout`: `None` when none came in
    /// time (a caller that must stay responsive, such as the Python binding
    /// looking for Ctrl-C, waits in slices with this), `Some(None)` at the end.
    pub fn next_timeout(
        &mut self,
        timeout: std::time::Duration,
    ) -> Option<Option<Result<RecordBatch, RunError>>> {
        if let Some(rx) = &self.rx {
            match rx.recv_timeout(timeout) {
                Ok(batch) => return Some(Some(Ok(batch))),
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => return None,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {}
            }
        }
        Some(self.next())
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, RunError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(rx) = &self.rx
            && let Ok(batch) = rx.recv()
        {
            return Some(Ok(batch));
        }
        match self.join()? {
            Ok(summary) => {
                self.summary = Some(summary);
                None
            }
            Err(e) => Some(Err(e)),
        }
    }
}

impl Drop for Batches {
    fn drop(&mut self) {
        // The run sees the closed channel at its next batch and stops.
        let _ = self.join();
    }
}

/// The consumer went away (a [`Batches`] dropped early): not an error to report.
#[derive(Debug, thiserror::Error)]
#[error("the consumer of the export stopped reading")]
pub(crate) struct Stopped;

/// Starts the export of `inputs` with these `columns` (from [`columns()`]):
/// the rows come as record batches, in input order.
pub fn batches(
    inputs: &[Input],
    columns: Columns,
    options: &ExportOptions,
    pipeline: &Options,
) -> Batches {
    let inputs = inputs.to_vec();
    let pipeline = pipeline.clone();
    let cancel = pipeline.cancel.clone();
    let mut batches = spawn(columns, options, move |job, sink| {
        // Before and after: the run may open a file before or after it is
        // replaced.
        job.columns.check_unchanged()?;
        let games = pipeline::run(&inputs, job, sink, &pipeline)?;
        job.columns.check_unchanged()?;
        Ok(games)
    });
    batches.cancel = cancel;
    batches
}

impl crate::partition::Partition {
    /// Starts the export of the games this partition owns, from `start` (its
    /// first game, as resolved), with its rows placed in the whole input by
    /// `bases` (see [`crate::partition`]).
    pub fn export_batches(
        &self,
        start: crate::partition::Start,
        bases: crate::partition::Bases,
        columns: Columns,
        options: &ExportOptions,
        pipeline: &Options,
    ) -> Batches {
        let part = self.clone();
        let pipeline = pipeline.clone();
        let cancel = pipeline.cancel.clone();
        let mut batches = spawn(
            columns,
            options,
            move |job, sink| match crate::partition::run(
                &part,
                start,
                Some(bases),
                job,
                sink,
                &pipeline,
            ) {
                Ok(outcome) => Ok(outcome.games),
                Err(crate::Error::Io { file, error }) => {
                    Err(RunError::Input(pipeline::InputError { file, error }))
                }
                // Said as every stream says it (kind `Interrupted`).
                Err(crate::Error::Cancelled) => Err(RunError::Sink(pipeline::cancelled())),
                Err(e) => Err(RunError::Sink(io::Error::other(e))),
            },
        );
        batches.cancel = cancel;
        batches
    }
}

/// Runs `run` (the pipeline over some input) with the export's job and sink
/// on a thread of its own; the batches come through a bounded channel.
fn spawn<F>(columns: Columns, options: &ExportOptions, run: F) -> Batches
where
    F: FnOnce(&row::ExportJob<'_>, &mut RowSink) -> Result<u64, RunError> + Send + 'static,
{
    let (tx, rx) = bounded(BATCHES_IN_FLIGHT);
    let builder = batch::BatchBuilder::new(&columns);
    let schema = builder.schema();
    let selector = options.selector.clone();
    let encoding = options.encoding;
    let csv_raw = options.csv_raw;
    let columns_count = columns.names().len();
    let batch_rows = options
        .batch_rows
        .min((BATCH_CELLS / columns_count.max(1)).max(256))
        .max(1);
    let thread = std::thread::Builder::new()
        .name("pgnfen-export".into())
        .spawn(move || {
            let job = row::ExportJob {
                columns: &columns,
                selector: &selector,
                encoding,
            };
            let mut sink = RowSink {
                tx,
                builder,
                batch_rows,
                file: Arc::from(""),
                current: None,
                summary: Summary::default(),
            };
            let games = run(&job, &mut sink);
            let games = match games {
                Ok(games) => games,
                Err(RunError::Sink(e)) if e.get_ref().is_some_and(|r| r.is::<Stopped>()) => {
                    return Ok(sink.summary);
                }
                Err(e) => return Err(e),
            };
            sink.flush_game().map_err(RunError::Sink)?;
            sink.send().map_err(RunError::Sink)?;
            sink.summary.games = games;
            Ok(sink.summary)
        });
    match thread {
        Ok(thread) => Batches {
            schema,
            rx: Some(rx),
            thread: Some(thread),
            failed: None,
            summary: None,
            csv_raw,
            cancel: None,
        },
        // No thread (the limit on threads reached): the iterator yields
        // this error and ends. (Starting one more thread to carry it, as
        // before, panicked on the same limit.)
        Err(e) => Batches {
            schema,
            rx: None,
            thread: None,
            failed: Some(RunError::Sink(crate::pipeline::no_thread(e))),
            summary: None,
            csv_raw,
            cancel: None,
        },
    }
}

/// Rows in input order into batches (on the merger thread).
struct RowSink {
    tx: Sender<RecordBatch>,
    builder: batch::BatchBuilder,
    batch_rows: usize,
    file: Arc<str>,
    /// The game being read: where it lies, its row (`None`: not exported),
    /// its length so far (known when the next game or input begins).
    current: Option<(GameInfo, Option<row::Row>, u64)>,
    summary: Summary,
}

impl RowSink {
    fn flush_game(&mut self) -> io::Result<()> {
        let Some((info, row, length)) = self.current.take() else {
            return Ok(());
        };
        let Some(row) = row else { return Ok(()) };
        self.builder.append(&self.file, &info, length, &row);
        self.summary.rows += 1;
        if row.dropped_pairs > 0 {
            self.summary.dropped_pairs += row.dropped_pairs;
            self.summary.games_with_dropped_pairs += 1;
        }
        if self.builder.len() >= self.batch_rows || self.builder.text_bytes() >= BATCH_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> io::Result<()> {
        if self.builder.is_empty() {
            return Ok(());
        }
        let batch = self.builder.finish().map_err(io::Error::other)?;
        self.tx.send(batch).map_err(|_| io::Error::other(Stopped))
    }
}

impl Sink<Option<row::Row>> for RowSink {
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.flush_game()?;
        self.file = Arc::from(input.display_name());
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, row: Option<row::Row>) -> io::Result<()> {
        self.flush_game()?;
        if row.as_ref().is_some_and(|row| row.block().is_none()) {
            // Every path of the pipeline seals what it scanned: a row without
            // its block would lose its values.
            return Err(io::Error::other(
                "internal error: a row reached the export without its values",
            ));
        }
        self.current = Some((*info, row, 0));
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        if let Some((_, _, length)) = &mut self.current {
            *length += data.len() as u64;
        }
        Ok(())
    }

    fn input_damaged(&mut self, last_complete: bool) -> io::Result<()> {
        // The rows before the damage go out before the error does; the last
        // game's only when it is known to be whole.
        if last_complete {
            self.flush_game()?;
        } else {
            self.current = None;
        }
        self.send()
    }
}
