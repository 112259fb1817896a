//! The streaming engine under every task, and what a caller sets for it: the
//! reader cuts chunks, a rayon pool scans them and does each game's work in
//! parallel, and the merger (the calling thread) checks the speculative cuts,
//! keeps games whole across chunks and hands them on in input order. Memory is
//! bounded by the number of chunks in flight.
//!
//! A caller names the inputs ([`Input`]: a file, standard input; compression
//! is recognised by the first bytes), chooses the threads and the rest in
//! [`Options`], and may watch the run ([`Watch`]) or cancel it
//! ([`Options::cancel`]). Outputs ([`output::Output`]) appear under their name
//! only when a run succeeds.
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use pgnfen::pipeline::{Input, Options, Watch};
//! use pgnfen::stats;
//!
//! /// Counts the games as the merger hands them on.
//! #[derive(Default)]
//! struct Counter(AtomicU64);
//! impl Watch for Counter {
//!     fn games(&self, games: u64) {
//!         self.0.store(games, Ordering::Relaxed);
//!     }
//! }
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("games.pgn");
//! # std::fs::write(&path, "[Event \"a\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n*\n\n[Event \"b\"]\n\n1. e4 *\n")?;
//! let counter = Arc::new(Counter::default());
//! let options = stats::Options {
//!     run: Options { watch: Some(counter.clone()), ..Options::new(2) },
//!     ..stats::Options::default()
//! };
//! let counts = stats::run(&[Input::from_arg(&path)], &options)?;
//! assert_eq!(counts.games, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The engine's own jobs and sinks (what each task does per game on the
//! workers, and with each game in order) are the library's inside; a program
//! that needs every game reads them through [`crate::Archive`].

pub(crate) mod chunk;
pub(crate) mod frame_writer;
pub(crate) mod frames;
pub(crate) mod game;
pub mod output;
mod pipe;
pub mod signals;
pub(crate) mod sink;
pub(crate) mod source;
mod spool;
mod watch;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};

use crate::pgn::scan::{BreakOff, CutFit, Event, Scanner};
use chunk::{Chunk, Chunker, Source, Start};
pub(crate) use game::Job;
use game::{Builder, Entry};
pub(crate) use game::{Header, HeaderTag};
pub(crate) use sink::{GameInfo, Sink};
use source::FileStamp;
pub use source::{Compression, Input, Stream, Streams, UnwritableEnding};
use watch::Reporter;
pub use watch::{Watch, note_message};

pub use crate::error::{check_inputs_exist, descriptor_metadata, io_words, output_among_inputs};
use spool::Spool;

/// An error while reading an input.
#[derive(Debug)]
pub struct InputError {
    /// The input, as named by the caller.
    pub file: String,
    /// What went wrong (said in the message: `source()` gives what lies
    /// under it, as for [`crate::Error::Io`]).
    pub error: io::Error,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.error)
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.error)
    }
}

/// What went wrong in a run: reading an input, or the sink (writing).
/// Non-exhaustive: a later version may tell more causes apart.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error(transparent)]
    /// An input could not be read.
    Input(#[from] InputError),
    #[error("{0}")]
    /// The sink failed (writing an output).
    Sink(io::Error),
}

/// Settings of a run, shared by every entry point.
#[derive(Clone)]
pub struct Options {
    /// Worker threads asked for (at least 1): a run starts at most this
    /// many, and never more than the cores, nor than the input can keep busy.
    pub threads: usize,
    /// Told how far the run has come, for a progress display (the command
    /// line's bar); its notes go to standard error when there is none.
    pub watch: Option<Arc<dyn Watch>>,
    /// Memory-map plain regular files instead of reading them (no copy out of
    /// the page cache: 11–16 % faster). Off by default in the library: a mapped
    /// file truncated by another program raises SIGBUS, which only a program that
    /// installed [`signals::install_bus_handler`] turns into a clean failure; the commands do.
    pub mmap: bool,
    /// Notes (on by default; the command line's `--quiet` turns them off): an
    /// input in which no tag line is found (a binary file or a wrong path
    /// given by mistake), a hint when standard input is a terminal. They go
    /// to [`Options::watch`] ([`Watch::note`]), or to standard error when
    /// there is none; [`note_message`] takes the `pgnfen: warning: ` off.
    pub notes: bool,
    /// Chunk sizes (target, maximum): 1 and 4 MiB by default; tests make them
    /// tiny so that every cut and merge path runs on small inputs. Each is
    /// taken between 16 bytes and 256 MiB, the maximum no less than the target.
    pub chunk_sizes: (usize, usize),
    /// Set (from any thread) to stop the run early: a caller that cannot end
    /// the process on Ctrl-C (the Python binding) stops the run this way. The
    /// run ends within 20 ms plus the chunks in flight: a task function
    /// returns [`Error::Cancelled`](crate::Error::Cancelled), a stream of
    /// games or record batches ends with a [`RunError::Sink`] of kind
    /// [`io::ErrorKind::Interrupted`]. Outputs are then not committed, so
    /// their temporary files go and existing files stay.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("threads", &self.threads)
            .field("watch", &self.watch.as_ref().map(|_| "..."))
            .field("mmap", &self.mmap)
            .field("notes", &self.notes)
            .field("chunk_sizes", &self.chunk_sizes)
            .field("cancel", &self.cancel)
            .finish()
    }
}

/// How often a run with [`Options::cancel`] looks at its flag while it waits.
pub(crate) const CANCEL_POLL: Duration = Duration::from_millis(20);

/// The error of a run stopped through [`Options::cancel`]: of kind
/// `Interrupted`, and marked as the run's own, so that an `Interrupted`
/// error of a caller's function (a check report) is not taken for it.
pub(crate) fn cancelled() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, RunCancelled)
}

/// The mark of [`cancelled`]'s error.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub(crate) struct RunCancelled;

/// An error of the caller's own function that takes a run's results
/// (`check::run`'s report), marked so that it comes back as
/// [`crate::Error::Report`] and is not taken for an output's or the run's.
/// The kind is the function's (a closed pipe stays a closed pipe).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ReportFailed(pub io::Error);

impl ReportFailed {
    /// `e`, marked.
    pub(crate) fn mark(e: io::Error) -> io::Error {
        io::Error::new(e.kind(), ReportFailed(e))
    }
}

/// Whether `e` is [`cancelled`]'s error, also when an output named it.
pub(crate) fn is_cancellation(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted
        && e.get_ref().is_some_and(|inner| {
            inner.is::<RunCancelled>()
                || inner
                    .downcast_ref::<output::WriteError>()
                    .is_some_and(|w| is_cancellation(&w.error))
        })
}

/// The error of a read or write that a cancelled run stopped inside a
/// `Read` or `Write` (a pipe waited for, a slice of a slow compressor). Not
/// of kind `Interrupted`, as [`cancelled`] is: `read_exact`, `write_all`
/// and the buffers around a reader or writer retry a call that failed so,
/// which would never end.
pub(crate) fn cancelled_in_io() -> io::Error {
    io::Error::other("interrupted")
}

fn is_cancelled(options: &Options) -> bool {
    options
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(Ordering::Relaxed))
}

impl Default for Options {
    /// One worker thread per core; no watch, notes on standard error, files
    /// read rather than mapped.
    fn default() -> Options {
        Options::new(cores())
    }
}

impl Options {
    /// The most worker threads a run starts, whatever [`Options::threads`]
    /// asks (the command line refuses `-j` above it): past a few dozen,
    /// threads only compete for the chunks in flight, and thousands of them
    /// take seconds to start and stop.
    pub const MAX_THREADS: usize = MAX_THREADS;

    /// `threads` workers; the other settings as in [`Options::default`].
    pub fn new(threads: usize) -> Options {
        Options {
            threads,
            watch: None,
            mmap: false,
            notes: true,
            chunk_sizes: (chunk::TARGET_CHUNK, chunk::MAX_CHUNK),
            cancel: None,
        }
    }
}

/// [`Options::MAX_THREADS`].
pub(crate) const MAX_THREADS: usize = 1024;

/// Streams every input through `job` and `sink`, in order. Returns the number of games.
///
/// A cancelled run ([`Options::cancel`]) ends with [`cancelled`]'s error,
/// whatever its parts saw first: a pipe's read cut short fails as an input
/// would, and a reader that stops at the flag ends its input as if it had
/// been read to the end, which would pass for a complete run.
pub(crate) fn run<J: Job, S: Sink<J::Game>>(
    inputs: &[Input],
    job: &J,
    sink: &mut S,
    options: &Options,
) -> Result<u64, RunError> {
    let result = run_inputs(inputs, job, sink, options);
    if is_cancelled(options) {
        return Err(RunError::Sink(cancelled()));
    }
    if let Err(RunError::Input(_)) = &result {
        // An input that failed before any game of its own was read (its
        // first read, its format) leaves the sink holding the last game of
        // the inputs before, which is whole. (Within an input, the merger
        // has said already whether the game left open is: then this changes
        // nothing.)
        let _ = sink.input_damaged(true);
    }
    result
}

fn run_inputs<J: Job, S: Sink<J::Game>>(
    inputs: &[Input],
    job: &J,
    sink: &mut S,
    options: &Options,
) -> Result<u64, RunError> {
    let pool = LazyPool::new(useful_threads(inputs, options));
    let mut run = Runner::new(job, sink, &pool, options);
    let total: Option<u64> = inputs.iter().map(Input::raw_len).sum();
    let mut progress = Reporter::new(options.watch.as_deref(), total);
    for input in inputs {
        if is_cancelled(options) {
            return Err(RunError::Sink(cancelled()));
        }
        let name = input.display_name();
        let in_err = input_error(&name);
        let raw_read = Arc::new(AtomicU64::new(0));
        progress.start_input(raw_read.clone());
        // Plain files are mapped (no copy); a truncation under the run is
        // caught by the SIGBUS handler of `signals`, other changes below.
        if options.mmap
            && let Some(mapped) = input.map()
        {
            signals::reading_mapped(Some(&name));
            let source = Source::Map(Arc::new(mapped.map));
            let identity = mapped.identity;
            let result = run.input::<io::Empty>(input, source, Some(&raw_read), &progress);
            signals::reading_mapped(None);
            if result.is_err() {
                // Writing bytes straight from a page that a truncation took
                // away fails with EFAULT ("Bad address") instead of raising
                // SIGBUS: the changed input, not the output, is the cause.
                identity.check_unchanged().map_err(in_err)?;
            }
            result?;
            identity.check_unchanged().map_err(in_err)?;
            continue;
        }
        if options.notes && *input == Input::Stdin && std::io::stdin().is_terminal() {
            progress.warn("pgnfen: reading PGN from standard input (end it with Ctrl-D; see --help for files)");
        }
        // A regular zstd file of several frames (pzstd's, the lichess
        // database's) is decoded frame by frame on the pool.
        // A file rewritten under the run reads as corrupt compressed data
        // (or garbage): such an error is reported as the change it is.
        let stamp = FileStamp::of_input(input);
        let changed = |e: RunError| match &stamp {
            Some(stamp) => changed_instead(stamp, e, input),
            None => e,
        };
        if let Input::File(path) = input
            && let Some(frames) = frames::open(path, &pool, raw_read.clone(), job.frames_ahead())
        {
            let frames = source::Unnested::new(frames, source::Compression::Zstd);
            run.input(input, Source::Read(frames), None, &progress)
                .map_err(changed)?;
            continue;
        }
        // Each input is opened once: a FIFO or a pipe cannot be read twice.
        let mut streams = input
            .open_streams_until(raw_read.clone(), options.cancel.as_ref())
            .map_err(in_err)?;
        let mut members = 0u64;
        while let Some(stream) = streams.next().map_err(|e| changed(in_err(e)))? {
            members += 1;
            run.input(&stream.input, Source::Read(stream.reader), None, &progress)
                .map_err(changed)?;
        }
        // A zip archive without members has no stream to warn about itself,
        // and is as worth noticing as an empty file. (A run cancelled before
        // the first member also ends the members: no note for that.)
        if members == 0 && options.notes && !is_cancelled(options) {
            progress.warn(&format!(
                "pgnfen: warning: {name}: no PGN tag line found (it holds no file, so no game)"
            ));
        }
    }
    progress.finish();
    Ok(run.games)
}

/// What the inputs of one run share, and the games read so far.
struct Runner<'r, J, S> {
    job: &'r J,
    sink: &'r mut S,
    pool: &'r LazyPool,
    options: &'r Options,
    /// Chunk buffers kept from one input to the next: a zip of many small
    /// members would otherwise allocate and zero a fresh chunk buffer for each.
    spare: Vec<Vec<u8>>,
    /// Games of the inputs read so far.
    games: u64,
    /// Whether each reader begins at its input's first byte (not a
    /// partition that begins inside a file, [`run_reader`]).
    at_input_start: bool,
}

impl<'r, J: Job, S: Sink<J::Game>> Runner<'r, J, S> {
    fn new(job: &'r J, sink: &'r mut S, pool: &'r LazyPool, options: &'r Options) -> Self {
        Runner {
            job,
            sink,
            pool,
            options,
            spare: Vec::new(),
            games: 0,
            at_input_start: true,
        }
    }

    /// Streams one input, named `input` in messages, from `source`; its
    /// games count on from those before. `mapped`: the count of bytes read
    /// of a mapped file, which advances as chunks are merged. Returns the
    /// input's number of games.
    fn input<R: chunk::Lend + Send>(
        &mut self,
        input: &Input,
        source: Source<R>,
        mapped: Option<&Arc<AtomicU64>>,
        progress: &Reporter<'_>,
    ) -> Result<u64, RunError> {
        let games = run_one(self, input, source, mapped, progress)?;
        self.games += games;
        Ok(games)
    }
}

/// The [`RunError::Input`] of an I/O error reading input `name`.
fn input_error(name: &str) -> impl Fn(io::Error) -> RunError + Copy + '_ {
    move |source| {
        RunError::Input(InputError {
            file: name.to_owned(),
            error: source,
        })
    }
}

/// `e`, or the change of `input` since `stamp` was taken when it changed:
/// a read error of a file rewritten under the run is that change.
fn changed_instead(stamp: &FileStamp, e: RunError, input: &Input) -> RunError {
    let Input::File(path) = input else { return e };
    if !matches!(e, RunError::Input(_)) {
        return e;
    }
    match stamp.change(path) {
        Some(what) => RunError::Input(InputError {
            file: input.display_name(),
            error: source::changed(&what),
        }),
        None => e,
    }
}

/// How many worker threads the inputs can keep busy: what `options` asks for,
/// at most [`MAX_THREADS`], and no more than one per eighth of a chunk of the
/// inputs' stored bytes when every input is a regular file (an eighth, so that
/// a compressed file, which expands several times, still gets its share; an
/// empty file gets one thread). Standard input and pipes, whose size is not
/// known, get what was asked.
fn useful_threads(inputs: &[Input], options: &Options) -> usize {
    let asked = options.threads.clamp(1, MAX_THREADS);
    let unit = (chunk::allowed_sizes(options.chunk_sizes).0 as u64 / 8).max(1);
    let mut total = 0u64;
    for input in inputs {
        match input.raw_len() {
            Some(len) => total = total.saturating_add(len),
            None => return asked,
        }
    }
    let warranted = usize::try_from(total.div_ceil(unit)).unwrap_or(usize::MAX);
    asked.min(warranted.max(1))
}

/// The worker threads of a run, started when a stream first needs them: a
/// run whose inputs are each one chunk (an empty file, a zip of small members)
/// starts none.
pub(crate) struct LazyPool {
    threads: usize,
    pool: std::sync::OnceLock<rayon::ThreadPool>,
}

impl LazyPool {
    fn new(threads: usize) -> LazyPool {
        LazyPool {
            threads,
            pool: std::sync::OnceLock::new(),
        }
    }

    /// The pool, started on the first call.
    pub(crate) fn get(&self) -> Result<&rayon::ThreadPool, RunError> {
        if let Some(pool) = self.pool.get() {
            return Ok(pool);
        }
        let pool = worker_pool(self.threads)?;
        Ok(self.pool.get_or_init(|| pool))
    }
}

/// The cores this process may run on (1 when unknown).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The worker threads to start when `asked` are asked for: at least one, at
/// most [`Options::MAX_THREADS`], and never more than the cores. Workers only
/// compute, so more of them than cores bought nothing but memory (each holds
/// results and buffers of its own) and switching: `-j 16` on 2 cores took
/// 150 MiB for `export`, and `-j 1024` made `stats` five times as slow.
#[doc(hidden)] // for the command line and the Python binding
pub fn worker_threads(asked: usize) -> usize {
    asked.clamp(1, MAX_THREADS).min(cores())
}

/// The rayon pool of a run's worker threads ([`worker_threads`]).
fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, RunError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(worker_threads(threads))
        .thread_name(|i| format!("pgnfen-worker-{i}"))
        .build()
        .map_err(|e| RunError::Sink(no_thread(io::Error::other(e))))
}

/// A thread that could not be started (`EAGAIN`: the limit on processes and
/// threads, `ulimit -u`), said plainly: not an output's fault, and no panic.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot start a thread ({0}); the limit on processes and threads (ulimit -u) may be too low"
)]
pub(crate) struct NoThread(io::Error);

/// `e`, the failure to start a thread, as a [`NoThread`].
pub(crate) fn no_thread(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), NoThread(e))
}

/// Streams one input given as a reader (a partition of a file, from the
/// `partition` module): the games of `reader`, named `input` in messages, with
/// offsets and lines counted from its first byte. `at_input_start`: the
/// reader begins at the file's first byte; otherwise at a game's start
/// inside it, read as a one-machine run reads it there (a byte order mark
/// is then no part of the input, but the text of a line).
pub(crate) fn run_reader<J: Job, S: Sink<J::Game>>(
    input: &Input,
    reader: Box<dyn io::Read + Send>,
    at_input_start: bool,
    job: &J,
    sink: &mut S,
    options: &Options,
) -> Result<u64, RunError> {
    let pool = LazyPool::new(options.threads);
    let mut progress = Reporter::new(None, None);
    let mut run = Runner::new(job, sink, &pool, options);
    run.at_input_start = at_input_start;
    let result = run.input(input, Source::Read(reader), None, &progress);
    // As for [`run`]: a cancelled run says so, whatever it saw first.
    if is_cancelled(options) {
        return Err(RunError::Sink(cancelled()));
    }
    let games = result?;
    progress.finish();
    Ok(games)
}

enum Message<G> {
    Scanned(Box<Scanned<G>>),
    Failed(io::Error),
}

struct Scanned<G> {
    chunk: Chunk,
    /// `None` for a chunk the workers could not scan (forced cut).
    speculative: Option<Speculative<G>>,
}

/// A worker's scan of a chunk as if a game began at its first byte.
struct Speculative<G> {
    /// The scanner and builder at the chunk's end.
    scanner: Scanner,
    builder: Builder,
    /// The games found, in order.
    entries: Vec<Entry<G>>,
    /// Piece ends where the scanner was between headers, in order: where the
    /// merger, rescanning a chunk whose cut was wrong, can take up the rest
    /// of this scan once its own scanner is in the same state there.
    resumes: Vec<Resume>,
}

/// A point where a speculative scan can be taken up (see [`Speculative`]).
struct Resume {
    /// The end of a piece, in bytes from the chunk's start.
    at: usize,
    /// The scanner there (lines counted from the cut).
    scanner: Scanner,
    /// Games found before it: the entries from this index on are those of
    /// the rest of the chunk.
    entries: usize,
}

/// Most resume points kept per chunk (one per piece; a chunk has about 16).
const MAX_RESUMES: usize = 64;

/// [`Runner::input`]: the input's chunks read on a thread of their own and
/// scanned on the pool, merged in order on this thread.
fn run_one<J: Job, S: Sink<J::Game>, R: chunk::Lend + Send>(
    run: &mut Runner<'_, J, S>,
    input: &Input,
    source: Source<R>,
    mapped: Option<&Arc<AtomicU64>>,
    progress: &Reporter<'_>,
) -> Result<u64, RunError> {
    let (job, pool, options, games_before) = (run.job, run.pool, run.options, run.games);
    let (sink, spare) = (&mut *run.sink, &mut run.spare);
    sink.begin_input(input).map_err(RunError::Sink)?;
    let name = input.display_name();
    let in_err = input_error(&name);
    let mut seen = Seen {
        // Whether a tag line was seen yet (a binary file or the wrong file has
        // none), when someone wants to know.
        tag_line: !options.notes && !sink.watches_tag_lines(),
        notes: options.notes,
        // Whether it held any text (the note on an empty input says so).
        text: false,
    };
    let limits = Limits::of(options);
    // The first chunk's start: the merger's scanner begins as the worker's
    // scan of that chunk does.
    let first_start = match run.at_input_start {
        true => Start::Input,
        false => Start::Cut,
    };
    let mut merger = Merger::new(job, limits, first_start);
    let (target, max) = options.chunk_sizes;
    let mut chunker = Chunker::with_sizes(source, target, max)
        .first_start(first_start)
        .cancelled_by(options.cancel.clone());

    // The first chunk is read here. When it is the whole input (a small file,
    // a zip member of a game or two) it is scanned and merged on this thread:
    // no reader thread, no task on the pool, so that a zip of 100,000 small
    // members costs no thread start and no wake-up per member.
    let Some(first) = chunker
        .next_chunk(spare.pop().unwrap_or_default())
        .map_err(in_err)?
    else {
        return Ok(0);
    };
    if first.last {
        let scanned = scan_speculatively(job, first, limits, &merger.spares);
        let (buf, _) = merge_one(
            &mut merger,
            scanned,
            sink,
            mapped,
            &mut seen,
            progress,
            games_before,
        )?;
        spare.push(recycle(buf));
        seen.warn(progress, &name, merger.games);
        return Ok(merger.games);
    }

    let pool = pool.get()?;
    let threads = pool.current_num_threads().max(1);
    // Bounds memory: at most this many chunks (each up to MAX_CHUNK) exist at
    // once, the first one included.
    let in_flight = job.chunks_in_flight(threads).max(2);
    let (free_tx, free_rx): (Sender<Vec<u8>>, Receiver<Vec<u8>>) = bounded(in_flight);
    for _ in 1..in_flight {
        let _ = free_tx.send(spare.pop().unwrap_or_default());
    }
    let (done_tx, done_rx) = unbounded::<(u64, Message<J::Game>)>();
    let spares = merger.spares.clone();
    let spares = &*spares;

    std::thread::scope(|scope| {
        let reader_done = done_tx.clone();
        let reader = std::thread::Builder::new().name("pgnfen-reader".into());
        let started = reader.spawn_scoped(scope, move || {
            let mut sent = 0u64;
            let mut next = Some(first);
            // The tasks borrow `job`: a scope on this (non-pool) thread lets them.
            pool.in_place_scope_fifo(|tasks| {
                loop {
                    let chunk = match next.take() {
                        Some(chunk) => chunk,
                        None => {
                            let Ok(buf) = free_rx.recv() else { return };
                            // A cancelled run reads no more (the merger stops on its own).
                            if is_cancelled(options) {
                                return;
                            }
                            match chunker.next_chunk(buf) {
                                Ok(Some(chunk)) => chunk,
                                Ok(None) => return,
                                Err(e) => {
                                    let _ = reader_done.send((sent, Message::Failed(e)));
                                    return;
                                }
                            }
                        }
                    };
                    sent += 1;
                    let tx = reader_done.clone();
                    tasks.spawn_fifo(move |_| {
                        let scanned = scan_speculatively(job, chunk, limits, spares);
                        let _ = tx.send((scanned.chunk.seq, Message::Scanned(Box::new(scanned))));
                    });
                }
            });
        });
        if let Err(e) = started {
            return Err(RunError::Sink(no_thread(e)));
        }
        drop(done_tx);

        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        let result = loop {
            let received = if options.cancel.is_some() {
                // Wait in slices, so that a cancelled run stops even while
                // a slow input (a pipe, a large decompression) gives nothing.
                loop {
                    if is_cancelled(options) {
                        return Err(RunError::Sink(cancelled()));
                    }
                    match done_rx.recv_timeout(CANCEL_POLL) {
                        Ok(item) => break Some(item),
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break None,
                    }
                }
            } else {
                done_rx.recv().ok()
            };
            let Some((seq, message)) = received else {
                break Ok(());
            };
            waiting.insert(seq, message);
            let mut finished = false;
            while let Some(message) = waiting.remove(&next) {
                next += 1;
                match message {
                    Message::Failed(e) => {
                        // (The error is the news: one of the sink's own is not.)
                        let _ = sink.input_damaged(merger.ends_a_game());
                        return Err(in_err(e));
                    }
                    Message::Scanned(scanned) => {
                        let (buf, last) = merge_one(
                            &mut merger,
                            *scanned,
                            sink,
                            mapped,
                            &mut seen,
                            progress,
                            games_before,
                        )?;
                        let _ = free_tx.send(recycle(buf));
                        finished |= last;
                    }
                }
            }
            if finished {
                break Ok(());
            }
        };
        drop(free_tx);
        if result.is_ok() {
            seen.warn(progress, &name, merger.games);
        }
        result.map(|()| merger.games)
    })
}

/// What an input showed so far, for the "no PGN tag line" note.
struct Seen {
    tag_line: bool,
    /// [`Options::notes`]: the note is given.
    notes: bool,
    text: bool,
}

impl Seen {
    /// The note for an input with no tag line (a binary file, the wrong file,
    /// an empty file). Lines that begin with `[` but hold no tag pair still
    /// cut such an input into several games: the note says so, or the count
    /// of games next to "no tag line" would read as a contradiction. An
    /// empty input, or one of blank lines, holds no game: the note says that
    /// too, since an empty file given by mistake is as worth noticing as a
    /// binary one.
    fn warn(&self, progress: &Reporter<'_>, name: &str, games: u64) {
        if !self.tag_line && self.notes {
            let cut = if !self.text {
                " (it holds no text, so no game)".to_string()
            } else if games > 1 {
                format!(" (its {games} games are its text cut at lines that begin with '[')")
            } else {
                String::new()
            };
            progress.warn(&format!(
                "pgnfen: warning: {name}: no PGN tag line found{cut}"
            ));
        }
    }
}

/// Merges the next chunk in order; its buffer back, and whether it was the last.
fn merge_one<J: Job, S: Sink<J::Game>>(
    merger: &mut Merger<'_, J>,
    scanned: Scanned<J::Game>,
    sink: &mut S,
    mapped: Option<&Arc<AtomicU64>>,
    seen: &mut Seen,
    progress: &Reporter<'_>,
    games_before: u64,
) -> Result<(Vec<u8>, bool), RunError> {
    let last = scanned.chunk.last;
    if let Some(raw_read) = mapped {
        // A mapped file is "read" as far as it is merged.
        let end = scanned.chunk.offset + scanned.chunk.bytes().len() as u64;
        raw_read.store(end, std::sync::atomic::Ordering::Relaxed);
    }
    if !seen.tag_line {
        let bytes = scanned.chunk.bytes();
        seen.tag_line = has_tag_line(bytes);
        // The input's own byte-order mark is no text (a file of only one
        // holds no game, as an empty one).
        let text = match scanned.chunk.offset {
            0 => bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
            _ => bytes,
        };
        seen.text |= text.iter().any(|b| !b.is_ascii_whitespace());
        if seen.tag_line {
            sink.tag_line();
        }
    }
    let buf = merger.merge(scanned, sink).map_err(RunError::Sink)?;
    sink.chunk_merged().map_err(RunError::Sink)?;
    progress.advance(games_before + merger.games);
    Ok((buf, last))
}

/// Whether `bytes` hold a tag line: `[`, a tag name, blanks, `"`, at the start
/// of a line (after blanks). Only used to warn about inputs that are not PGN
/// at all (a binary file, the wrong file), so a tag line inside a comment counts.
/// A byte order mark before the first line is no part of it.
fn has_tag_line(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(&crate::pgn::scan::BOM).unwrap_or(bytes);
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    memchr::memchr_iter(b'[', bytes).any(|i| {
        let line_start = bytes[..i]
            .iter()
            .rev()
            .find(|b| !blank(b))
            .is_none_or(|&b| b == b'\n' || b == b'\r');
        if !line_start {
            return false;
        }
        let rest = &bytes[i + 1..];
        let name = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let gap = rest[name..].iter().take_while(|b| blank(b)).count();
        name > 0 && gap > 0 && rest.get(name + gap) == Some(&b'"')
    })
}

/// Keeps recycled buffers from holding on to a large allocation.
fn recycle(mut buf: Vec<u8>) -> Vec<u8> {
    if buf.len() > 2 * chunk::TARGET_CHUNK {
        buf.truncate(chunk::TARGET_CHUNK);
        buf.shrink_to_fit();
    }
    buf
}

/// How a chunk's work is split so that its results stay bounded whatever the
/// input holds: a chunk is scanned in pieces of whole lines, and a worker whose
/// results pass the budget gives up (the merger then does the chunk piece by
/// piece, handing each piece's games on before it reads the next). Without this,
/// a file of tiny games that are all problems (`[SetUp "1"]` alone) made a few
/// hundred bytes of findings per 16 bytes of input, for every chunk in flight.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// Bytes of a piece (it ends at the next line end after this many).
    piece: usize,
    /// Bytes of results ([`Job::weight`]) a worker may keep for one chunk.
    budget: usize,
}

impl Limits {
    fn of(options: &Options) -> Limits {
        let (target, _) = chunk::allowed_sizes(options.chunk_sizes);
        Limits {
            piece: (target / 16).max(1),
            budget: target.saturating_mul(2).max(1),
        }
    }
}

/// The pieces of `data` (whole lines of about `size` bytes, never splitting a
/// `\r\n`; at least one, empty for empty data).
fn pieces(data: &[u8], size: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut from = 0;
    let mut first = true;
    std::iter::from_fn(move || {
        if from >= data.len() && !std::mem::take(&mut first) {
            return None;
        }
        first = false;
        let at = from.saturating_add(size);
        let end = if at >= data.len() {
            data.len()
        } else {
            match memchr::memchr2(b'\n', b'\r', &data[at..]) {
                Some(i) if data[at + i] == b'\r' && data.get(at + i + 1) == Some(&b'\n') => {
                    at + i + 2
                }
                Some(i) => at + i + 1,
                None => data.len(),
            }
        };
        let range = from..end;
        from = end;
        Some(range)
    })
}

/// The scanner of text that begins as `start` says at `offset`: at an
/// input's first byte (where a byte order mark may stand), or at a cut
/// (after a game). None for a forced cut, which only the true scanner state
/// can read.
fn scanner_at<J: Job>(job: &J, start: Start, offset: u64) -> Option<Scanner> {
    let scanner = match start {
        Start::Input => Scanner::new(),
        Start::Cut => Scanner::at_cut(offset),
        Start::Forced => return None,
    };
    Some(game::scanner_for(job, scanner))
}

fn scan_speculatively<J: Job>(
    job: &J,
    chunk: Chunk,
    limits: Limits,
    spares: &Spares<J::Game>,
) -> Scanned<J::Game> {
    let Some(mut scanner) = scanner_at(job, chunk.start, chunk.offset) else {
        return Scanned {
            chunk,
            speculative: None,
        };
    };
    let mut events = Vec::new();
    let mut builder = Builder::default();
    let mut entries = spares.take();
    let mut weight = 0usize;
    let bytes = chunk.bytes();
    let mut over_budget = false;
    // Only a cut can be wrong; a job that replays movetext keeps a game
    // open across pieces in ways the scanner's state does not show.
    let resumable = chunk.start == Start::Cut && !job.reads_moves();
    let mut resumes = Vec::new();
    for range in pieces(bytes, limits.piece) {
        let piece = &bytes[range.clone()];
        events.clear();
        scanner.feed(piece, &mut events);
        if chunk.last && range.end == bytes.len() {
            scanner.finish(&mut events);
        }
        let before = entries.len();
        let base = chunk.offset + range.start as u64;
        builder.consume(job, piece, base, &events, &mut entries);
        weight += entries[before..]
            .iter()
            .map(|e| {
                std::mem::size_of::<Entry<J::Game>>()
                    + e.result.as_ref().map_or(0, |g| job.weight(g))
            })
            .sum::<usize>();
        if weight > limits.budget {
            over_budget = true;
            break;
        }
        if resumable
            && range.end < bytes.len()
            && resumes.len() < MAX_RESUMES
            && scanner.between_headers()
        {
            resumes.push(Resume {
                at: range.end,
                scanner: scanner.clone(),
                entries: entries.len(),
            });
        }
    }
    if over_budget {
        // Too much to hold for one chunk: the merger redoes it piece by piece.
        seal(job, &mut entries);
        spares.give(entries);
        return Scanned {
            chunk,
            speculative: None,
        };
    }
    if job.reads_moves() {
        // Games whose movetext crossed a piece boundary end in this chunk.
        game::finish_moves_within(job, bytes, chunk.offset, &mut entries);
        if chunk.last {
            builder.finish_moves(job, bytes, chunk.offset, &mut entries);
        }
    }
    seal(job, &mut entries);
    Scanned {
        chunk,
        speculative: Some(Speculative {
            scanner,
            builder,
            entries,
            resumes,
        }),
    }
}

impl<G> Speculative<G> {
    /// Where the rest of this scan can be taken up by the merger, whose
    /// true `scanner` (lines counted from the input's start, `lines_before`
    /// of them before the chunk) has just read the piece ending at `at`: the
    /// index of the first entry of the rest, when this scan was between
    /// headers there in exactly that state. Scanners in the same state at the
    /// same byte report the same events from there on (the state machine
    /// reads nothing else), and between headers the builder holds nothing a
    /// later game's result depends on, so the worker's entries of the rest
    /// are those a rescan would make.
    fn resumes_at(&mut self, at: usize, scanner: &Scanner, lines_before: u64) -> Option<usize> {
        // Points before `at` can no longer be met.
        let skip = self.resumes.iter().take_while(|r| r.at < at).count();
        self.resumes.drain(..skip);
        let resume = self.resumes.first()?;
        if resume.at != at || !scanner.between_headers() {
            return None;
        }
        let mut theirs = resume.scanner.clone();
        theirs.rebase_lines(lines_before);
        (theirs == *scanner).then_some(resume.entries)
    }
}

/// Hands the results of one scan (a chunk, a piece) to [`Job::seal`].
fn seal<J: Job>(job: &J, entries: &mut [Entry<J::Game>]) {
    job.seal(entries.iter_mut().filter_map(|e| e.result.as_mut()));
}

/// Result vectors the merger has emptied, for the workers to fill again. A
/// fresh vector per chunk grew by doubling into fresh pages that the kernel
/// zeroed on first touch (about 7 % of `stats -j1` on the FEN-heavy archive
/// went to page faults and reallocation). At most one per chunk in flight is
/// ever kept, each no larger than one chunk's results (the budget of [`Limits`]).
struct Spares<G> {
    entries: Mutex<Vec<Vec<Entry<G>>>>,
}

impl<G> Spares<G> {
    fn new() -> Self {
        Spares {
            entries: Mutex::new(Vec::new()),
        }
    }

    fn take(&self) -> Vec<Entry<G>> {
        let mut spare = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        spare.pop().unwrap_or_default()
    }

    fn give(&self, mut entries: Vec<Entry<G>>) {
        entries.clear();
        let mut spare = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < MAX_SPARES {
            spare.push(entries);
        }
    }
}

/// Spare result vectors kept at most: the chunks in flight (see `in_flight`).
const MAX_SPARES: usize = 10;

/// The sequential stage: true scanner state, open game, order.
///
/// Bytes flow to the sink in input order. Each byte belongs to the open game,
/// except bytes whose game is not known yet ("held"): blank lines before the
/// first game (they belong to it), and garbage after a result (it belongs to the
/// next game if a tag line follows, else, at the end of the input, to the last).
struct Merger<'j, J: Job> {
    job: &'j J,
    /// The true scanner state after the chunks merged so far; its lines are absolute.
    scanner: Scanner,
    builder: Builder,
    limits: Limits,
    games: u64,
    /// The current game, once one has started.
    open: Option<OpenGame>,
    /// Bytes of the open game read before its header was (so before its destination is known).
    pending: Spool,
    /// Bytes that belong to a game not started yet.
    held: Spool,
    /// Chunk bytes of known games not handed to the sink yet (written in one go).
    run: Option<Run>,
    /// Where the bytes of the open game go ([`Sink::destination`]).
    destination: Option<u8>,
    events: Vec<Event>,
    /// The open game's result while it waits for the rest of its movetext
    /// (a job that reads moves, a game that crosses chunks).
    awaiting: Option<Awaiting<J::Game>>,
    /// The input's bytes from its first on, up to [`game::MOVES_BUDGET`],
    /// kept while no game's header has ended, for a job that reads moves:
    /// an input without any tag line is one game whose movetext begins at
    /// its first byte, which shows only at its end (see [`Preamble`]).
    preamble: Option<Preamble>,
    /// Emptied result vectors, shared with the workers.
    spares: Arc<Spares<J::Game>>,
    /// Whether games that need none of the general path's states take the
    /// short one in [`Merger::emit`] (always, but under [`general_merge`]).
    short_path: bool,
    /// Once a damaged chunk (the input broke off after it) was merged:
    /// whether the game left open then is whole (see [`Merger::ends_a_game`]).
    whole_before_damage: Option<bool>,
}

thread_local! {
    /// Set while [`general_merge`] runs: a merger made on this thread then
    /// takes every game through the general path.
    static GENERAL_MERGE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the mergers it makes on this thread taking every game
/// through the general path of [`Merger::emit`] rather than its short one:
/// the oracle of the short path's test, which must make the same calls of
/// the sink in the same order.
#[cfg(feature = "internals")]
pub(crate) fn general_merge<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            GENERAL_MERGE.with(|g| g.set(self.0));
        }
    }
    let _restore = Restore(GENERAL_MERGE.with(|g| g.replace(true)));
    f()
}

/// A game result waiting for its movetext, and the movetext so far.
struct Awaiting<G> {
    result: G,
    line_delta: u64,
    /// Absolute offset where the movetext starts, and its line (header base).
    from: u64,
    line: u64,
    text: Vec<u8>,
    /// More movetext than [`game::MOVES_BUDGET`]: the rest is not replayed.
    cut: bool,
}

/// The first bytes of an input (from its byte 0), kept until a header ends.
#[derive(Default)]
struct Preamble {
    bytes: Vec<u8>,
    /// Bytes past [`game::MOVES_BUDGET`] were left out.
    cut: bool,
}

impl Preamble {
    fn keep(&mut self, bytes: &[u8]) {
        let room = game::MOVES_BUDGET.saturating_sub(self.bytes.len());
        self.cut |= bytes.len() > room;
        self.bytes
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

struct OpenGame {
    index: u64,
    start: u64,
    line: u64,
    known: bool,
}

impl<'j, J: Job> Merger<'j, J> {
    /// `first`: how the text's first chunk begins ([`Start::Input`], or
    /// [`Start::Cut`] for a reader that begins inside its input,
    /// [`run_reader`]).
    fn new(job: &'j J, limits: Limits, first: Start) -> Self {
        Merger {
            job,
            scanner: scanner_at(job, first, 0).expect("a text begins at its start or a cut"),
            builder: Builder::default(),
            limits,
            games: 0,
            open: None,
            pending: Spool::new(),
            held: Spool::new(),
            run: None,
            destination: None,
            events: Vec::new(),
            awaiting: None,
            // Text read from a cut (a partition) is never an input's start.
            preamble: (job.reads_moves() && first == Start::Input).then(Preamble::default),
            spares: Arc::new(Spares::new()),
            short_path: !GENERAL_MERGE.with(std::cell::Cell::get),
            whole_before_damage: None,
        }
    }

    /// A damaged chunk (the input broke off after it) cut back to the whole
    /// games in it: scanned first from the true state, it ends after the
    /// last game whose termination marker it holds, or where the game it
    /// cuts short starts; such a game's first bytes are not handed on. It is
    /// then merged as the input's last chunk. Also records whether the game
    /// left open then is whole.
    fn keep_whole_games(&mut self, chunk: &mut Chunk) {
        let mut probe = self.scanner.clone();
        let mut events = Vec::new();
        probe.feed(chunk.bytes(), &mut events);
        // Nothing follows: a termination marker that is the last byte read
        // (no line end after it) is one.
        probe.finish(&mut events);
        let last_start = events.iter().rev().find_map(|e| match e {
            Event::GameStart { offset, .. } => Some(*offset),
            _ => None,
        });
        let (end, began_earlier) = match probe.break_off() {
            BreakOff::Complete => (None, false),
            BreakOff::Pending(offset) => (Some(offset), false),
            // Without a start in this chunk the game began in an earlier
            // one: none of this chunk is its end, and it is not whole.
            BreakOff::LastGame => (
                Some(last_start.unwrap_or(chunk.offset)),
                last_start.is_none(),
            ),
        };
        self.whole_before_damage = Some(!began_earlier);
        if let Some(end) = end {
            let keep = usize::try_from(end.saturating_sub(chunk.offset)).unwrap_or(usize::MAX);
            chunk.truncate(keep);
        }
        // What is kept ends the input's text, as its end would: its last
        // game is finished (a job that reads moves replays it to its end
        // there), unless that game began before the chunk and is cut short.
        // (The run still ends with the error, which comes next.)
        chunk.last = !began_earlier;
    }

    /// Whether the game left open when the input broke off is whole: known
    /// from the damaged chunk's scan when there was one, or else (the error
    /// came at a chunk's first read) from the state at the last chunk's
    /// end, a cut before a tag line that a comment can fake.
    fn ends_a_game(&self) -> bool {
        let whole = self
            .whole_before_damage
            .unwrap_or_else(|| !matches!(self.scanner.fits_cut(), CutFit::Rescan));
        // A game cut short before its header was read (or, with the moves
        // replayed, before its movetext was) never reached the sink, whose
        // last game is then the whole one before it.
        whole || !self.open.as_ref().is_some_and(|o| o.known)
    }

    /// Merges one chunk (in order) and gives its buffer back.
    fn merge<S: Sink<J::Game>>(
        &mut self,
        scanned: Scanned<J::Game>,
        sink: &mut S,
    ) -> io::Result<Vec<u8>> {
        let Scanned {
            mut chunk,
            mut speculative,
        } = scanned;
        if chunk.damaged {
            self.keep_whole_games(&mut chunk);
            // Scanned again here: the worker scanned bytes that may no longer
            // be the chunk's, as a chunk that the input goes on after.
            speculative = None;
        }
        let fit = match chunk.start {
            Start::Input => CutFit::NewGame,
            Start::Cut => self.scanner.fits_cut(),
            Start::Forced => CutFit::Rescan,
        };
        let (mut entries, line_delta) = match (fit, speculative) {
            (
                CutFit::NewGame | CutFit::SameGame,
                Some(Speculative {
                    mut scanner,
                    mut builder,
                    mut entries,
                    ..
                }),
            ) => {
                // The worker counted lines from 1 at the cut: make them absolute.
                let lines_before = self.scanner.lines_seen();
                for entry in &mut entries {
                    entry.line += lines_before;
                }
                if fit == CutFit::SameGame
                    && let Some(first) = entries.first_mut()
                {
                    match self.scanner.pending_game_start() {
                        // The game began before the cut (blank lines or garbage).
                        Some((offset, line)) => {
                            first.start = offset;
                            first.line = line;
                        }
                        // It began and was reported already: the cut continues it.
                        None => first.continued = true,
                    }
                }
                scanner.rebase_lines(lines_before);
                builder.rebase_lines(lines_before);
                self.scanner = scanner;
                self.builder = builder;
                (std::mem::take(&mut entries), lines_before)
            }
            (_, speculative) => {
                // Scanned here, a piece at a time: each piece's games are handed
                // on before the next is read, so their results never add up.
                let lines_before = self.scanner.lines_seen();
                let mut speculative = speculative.filter(|s| !s.resumes.is_empty());
                let bytes = chunk.bytes();
                let mut entries = Vec::new();
                for range in pieces(bytes, self.limits.piece) {
                    let piece = &bytes[range.clone()];
                    let last = chunk.last && range.end == bytes.len();
                    self.events.clear();
                    self.scanner.feed(piece, &mut self.events);
                    if last {
                        self.scanner.finish(&mut self.events);
                    }
                    let data = ChunkBytes {
                        base: chunk.offset + range.start as u64,
                        data: piece,
                    };
                    self.builder
                        .consume(self.job, piece, data.base, &self.events, &mut entries);
                    if last {
                        self.builder
                            .finish_moves(self.job, piece, data.base, &mut entries);
                    }
                    seal(self.job, &mut entries);
                    self.emit(&data, last, &mut entries, 0, sink)?;
                    let Some(spec) = speculative.as_mut() else {
                        continue;
                    };
                    if let Some(k) = spec.resumes_at(range.end, &self.scanner, lines_before) {
                        // The true scan is where the worker's was, in the same
                        // state: the rest of the worker's scan is right.
                        let Speculative {
                            mut scanner,
                            mut builder,
                            mut entries,
                            ..
                        } = speculative.take().expect("just matched");
                        entries.drain(..k);
                        for entry in &mut entries {
                            entry.line += lines_before;
                        }
                        scanner.rebase_lines(lines_before);
                        builder.rebase_lines(lines_before);
                        self.scanner = scanner;
                        self.builder = builder;
                        let data = ChunkBytes {
                            base: chunk.offset + range.end as u64,
                            data: &bytes[range.end..],
                        };
                        self.emit(&data, chunk.last, &mut entries, lines_before, sink)?;
                        self.spares.give(entries);
                        break;
                    }
                }
                return Ok(chunk.into_buffer());
            }
        };
        let data = ChunkBytes {
            base: chunk.offset,
            data: chunk.bytes(),
        };
        self.emit(&data, chunk.last, &mut entries, line_delta, sink)?;
        self.spares.give(entries);
        Ok(chunk.into_buffer())
    }

    /// Hands the games of `data` (the chunk, or a piece of it) to the sink;
    /// `last`: the input ends with it.
    fn emit<S: Sink<J::Game>>(
        &mut self,
        data: &ChunkBytes<'_>,
        last: bool,
        entries: &mut Vec<Entry<J::Game>>,
        line_delta: u64,
        sink: &mut S,
    ) -> io::Result<()> {
        let end = data.end();
        let mut pos = data.base;
        for entry in entries.drain(..) {
            // Nearly every game: it starts in this chunk with its header read
            // in it, and nothing waits (no held bytes, no movetext awaited):
            // the steps below (route, open, hand over the result) without
            // the states that cannot arise then. It makes the same calls of
            // the sink as the general path after it, in the same order.
            if self.short_path
                && !entry.continued
                && entry.moves_from.is_none()
                && self.open.is_some()
                && self.held.is_empty()
                && self.awaiting.is_none()
                && let Entry {
                    start,
                    line,
                    result: Some(result),
                    ..
                } = entry
            {
                debug_assert!(self.pending.is_empty(), "pending bytes outlive their game");
                let to = start.clamp(pos, end);
                self.route(pos, to, data, sink)?;
                pos = to;
                self.games += 1;
                self.open = Some(OpenGame {
                    index: self.games,
                    start,
                    line,
                    known: true,
                });
                let info = GameInfo {
                    index: self.games,
                    offset: start,
                    line,
                    line_delta,
                };
                let destination = sink.destination(&result);
                if destination.is_none() || destination != self.destination {
                    self.flush_run(data, sink)?;
                }
                self.destination = destination;
                sink.begin_game(&info, result)?;
                continue;
            }
            if entry.continued {
                // (A game waiting for its movetext has its result already.)
                if let Some(result) = entry.result
                    && self.awaiting.is_none()
                {
                    self.result_read(result, entry.moves_from, line_delta, data, sink)?;
                }
                continue;
            }
            // Bytes before the new game's start go to the open game, or, when held
            // bytes wait for this game, to the new game with them.
            let start = entry.start.clamp(pos, end);
            self.route(pos, start, data, sink)?;
            pos = start;
            // The open game's movetext is complete.
            self.finish_awaiting(data, sink)?;
            self.games += 1;
            let game_start = if self.held.is_empty() {
                entry.start
            } else {
                self.held.offset()
            };
            self.open = Some(OpenGame {
                index: self.games,
                start: game_start,
                line: entry.line,
                known: false,
            });
            self.held.move_into(&mut self.pending)?;
            if let Some(result) = entry.result {
                self.result_read(result, entry.moves_from, line_delta, data, sink)?;
            }
        }
        match self.scanner.pending_game_start() {
            // Bytes from a pending game start on wait for that game.
            Some((hold_from, _)) if !last => {
                let hold_from = hold_from.clamp(pos, end);
                self.route(pos, hold_from, data, sink)?;
                self.flush_run(data, sink)?;
                if self.preamble.is_some() {
                    self.keep_preamble(data.slice(hold_from, end));
                }
                self.held.push(hold_from, data.slice(hold_from, end))
            }
            _ => {
                self.route(pos, end, data, sink)?;
                self.flush_run(data, sink)?;
                if last {
                    let mut held = std::mem::take(&mut self.held);
                    if self.whole_before_damage.is_some() {
                        // The input broke off: held text is no game's (the
                        // game it would begin was never read), and is left
                        // out with the damage.
                        return self.finish_awaiting(data, sink);
                    }
                    if self.open.is_some() {
                        // Garbage at the end of the input belongs to the last game.
                        held.drain(|offset, bytes| self.hand_to_open_game(offset, bytes, sink))?;
                    } else {
                        held.drain(|offset, bytes| sink.orphan_bytes(offset, bytes))?;
                    }
                    self.finish_awaiting(data, sink)?;
                }
                Ok(())
            }
        }
    }

    /// The chunk's bytes `from..to`, which follow everything routed so far: held
    /// bytes stay held (their game is still unknown); bytes of a game whose
    /// destination is known join the write run; others wait in `pending`.
    fn route<S: Sink<J::Game>>(
        &mut self,
        from: u64,
        to: u64,
        data: &ChunkBytes<'_>,
        sink: &mut S,
    ) -> io::Result<()> {
        if from == to {
            return Ok(());
        }
        if self.preamble.is_some() {
            self.keep_preamble(data.slice(from, to));
        }
        if !self.held.is_empty() || self.open.is_none() {
            return self.held.push(from, data.slice(from, to));
        }
        if let Some(a) = &mut self.awaiting
            && to > a.from
        {
            // The open game's movetext, up to the budget.
            let bytes = data.slice(from.max(a.from), to);
            let room = game::MOVES_BUDGET.saturating_sub(a.text.len());
            a.cut |= bytes.len() > room;
            a.text.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        if !sink.wants_bytes() {
            return Ok(());
        }
        match &self.open {
            Some(open) if open.known => match &mut self.run {
                Some(run) if run.end == from => {
                    run.end = to;
                    Ok(())
                }
                _ => {
                    self.flush_run(data, sink)?;
                    self.run = Some(Run {
                        start: from,
                        end: to,
                    });
                    Ok(())
                }
            },
            _ => self.pending.push(from, data.slice(from, to)),
        }
    }

    /// Keeps `bytes`, the next routed, in the preamble while it may still be
    /// an input's movetext: no header has ended (the first game is still
    /// open and unknown). Any other input lets it go at its first header.
    /// Out of line: the callers' check that there is a preamble is all that
    /// the games after an input's first pay.
    #[cold]
    #[inline(never)]
    fn keep_preamble(&mut self, bytes: &[u8]) {
        let Some(p) = &mut self.preamble else {
            return;
        };
        if self.games > 1 || self.open.as_ref().is_some_and(|o| o.known) {
            self.preamble = None;
        } else {
            p.keep(bytes);
        }
    }

    /// Writes the run of chunk bytes not written yet.
    fn flush_run<S: Sink<J::Game>>(
        &mut self,
        data: &ChunkBytes<'_>,
        sink: &mut S,
    ) -> io::Result<()> {
        match self.run.take() {
            Some(run) => sink.bytes(run.start, data.slice(run.start, run.end)),
            None => Ok(()),
        }
    }

    /// Bytes of the open game from outside the chunk (a spool), after any run.
    fn hand_to_open_game<S: Sink<J::Game>>(
        &mut self,
        offset: u64,
        bytes: &[u8],
        sink: &mut S,
    ) -> io::Result<()> {
        if bytes.is_empty() || !sink.wants_bytes() {
            return Ok(());
        }
        match &self.open {
            Some(open) if open.known => sink.bytes(offset, bytes),
            _ => self.pending.push(offset, bytes),
        }
    }

    /// The open game's result: to the sink, or, when it waits for movetext
    /// beyond the chunk (`moves_from`), kept until the movetext is complete.
    fn result_read<S: Sink<J::Game>>(
        &mut self,
        result: J::Game,
        moves_from: Option<(u64, u64)>,
        line_delta: u64,
        data: &ChunkBytes<'_>,
        sink: &mut S,
    ) -> io::Result<()> {
        match moves_from {
            Some((from, line)) if self.open.as_ref().is_some_and(|o| !o.known) => {
                // The bytes routed before the game's header ended (an input
                // without a tag line: all of it) hold its movetext's start.
                let (text, cut) = match self.preamble.take() {
                    Some(mut p) => {
                        p.bytes.drain(..(from as usize).min(p.bytes.len()));
                        (p.bytes, p.cut)
                    }
                    None => (Vec::new(), false),
                };
                self.awaiting = Some(Awaiting {
                    result,
                    line_delta,
                    from,
                    line,
                    text,
                    cut,
                });
                Ok(())
            }
            _ => self.header_read(result, line_delta, data, sink),
        }
    }

    /// Replays the movetext of the game that waited for it (on this thread:
    /// only games that cross chunks) and hands its result to the sink.
    fn finish_awaiting<S: Sink<J::Game>>(
        &mut self,
        data: &ChunkBytes<'_>,
        sink: &mut S,
    ) -> io::Result<()> {
        let Some(mut a) = self.awaiting.take() else {
            return Ok(());
        };
        let text = crate::moves::MoveText {
            bytes: crate::moves::without_input_bom(&a.text, a.from),
            line: a.line,
            complete: !a.cut,
        };
        self.job.moves(&mut a.result, &text);
        self.header_read(a.result, a.line_delta, data, sink)
    }

    /// The header of the open game is read: `line_delta` is that of the chunk where it ended.
    fn header_read<S: Sink<J::Game>>(
        &mut self,
        result: J::Game,
        line_delta: u64,
        data: &ChunkBytes<'_>,
        sink: &mut S,
    ) -> io::Result<()> {
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        if open.known {
            return Ok(());
        }
        open.known = true;
        let info = GameInfo {
            index: open.index,
            offset: open.start,
            line: open.line,
            line_delta,
        };
        // The run may go on into this game only if it goes where the run goes and
        // nothing of this game waits in `pending` (which comes first).
        let destination = sink.destination(&result);
        if destination.is_none() || destination != self.destination || !self.pending.is_empty() {
            self.flush_run(data, sink)?;
        }
        self.destination = destination;
        sink.begin_game(&info, result)?;
        self.pending
            .drain(|offset, bytes| sink.bytes(offset, bytes))
    }
}

/// A chunk's bytes with their absolute offset.
struct ChunkBytes<'a> {
    base: u64,
    data: &'a [u8],
}

impl<'a> ChunkBytes<'a> {
    fn end(&self) -> u64 {
        self.base + self.data.len() as u64
    }

    fn slice(&self, from: u64, to: u64) -> &'a [u8] {
        &self.data[(from - self.base) as usize..(to - self.base) as usize]
    }
}

/// Chunk bytes `start..end` (absolute) bound for the sink, written in one call.
struct Run {
    start: u64,
    end: u64,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_read_error_of_a_file_changed_under_the_run_is_the_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn.gz");
        std::fs::write(&path, b"old bytes, many of them").unwrap();
        let input = super::Input::File(path.clone());
        let stamp = super::FileStamp::of_input(&input).unwrap();
        let corrupt = || {
            super::RunError::Input(super::InputError {
                file: "games.pgn.gz".into(),
                error: std::io::Error::other("gzip data cannot be read: corrupt deflate stream"),
            })
        };
        // Unchanged: the error stands.
        let e = super::changed_instead(&stamp, corrupt(), &input).to_string();
        assert!(e.contains("corrupt deflate"), "{e}");
        // Another size, then another file renamed over it: the change.
        std::fs::write(&path, b"new").unwrap();
        let e = super::changed_instead(&stamp, corrupt(), &input).to_string();
        assert!(
            e.contains("the file changed") && e.contains("size 23 when opened, 3 now"),
            "{e}"
        );
        let other = dir.path().join("other");
        std::fs::write(&other, b"old bytes, many of them").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let e = super::changed_instead(&stamp, corrupt(), &input).to_string();
        assert!(e.contains("replaced by another file"), "{e}");
        // A failing sink is no input's fault.
        let sink = super::RunError::Sink(std::io::Error::other("disk full"));
        assert!(
            super::changed_instead(&stamp, sink, &input)
                .to_string()
                .contains("disk full")
        );
    }

    use super::*;

    fn cut(data: &[u8], size: usize) -> Vec<&[u8]> {
        pieces(data, size).map(|r| &data[r]).collect()
    }

    #[test]
    fn pieces_are_whole_lines_covering_the_data() {
        assert_eq!(cut(b"", 4), [b""]);
        assert_eq!(cut(b"ab\ncd\nef", 1), [&b"ab\n"[..], b"cd\n", b"ef"]);
        // A CRLF is never split; a lone CR ends a line.
        assert_eq!(cut(b"a\r\nb\rc", 1), [&b"a\r\n"[..], b"b\r", b"c"]);
        assert_eq!(cut(b"abc\r", 1), [&b"abc\r"[..]]);
        // Larger pieces gather lines; a line longer than a piece stays whole.
        assert_eq!(cut(b"a\nb\nc\nd\n", 3), [&b"a\nb\n"[..], b"c\nd\n"]);
        assert_eq!(cut(b"xxxxxxxx\ny", 2), [&b"xxxxxxxx\n"[..], b"y"]);
        let data: Vec<u8> = b"[SetUp \"1\"]\n\n*\n\n".repeat(1000);
        let joined: Vec<u8> = cut(&data, 100).concat();
        assert_eq!(joined, data);
    }

    #[test]
    fn no_more_workers_than_cores() {
        for asked in [1, cores(), cores() + 1, 64, MAX_THREADS] {
            let pool = worker_pool(asked).unwrap();
            assert_eq!(pool.current_num_threads(), asked.min(cores()), "{asked}");
        }
    }

    #[test]
    fn threads_follow_the_work() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pgn");
        std::fs::write(&empty, b"").unwrap();
        let small = dir.path().join("small.pgn");
        std::fs::write(&small, vec![b' '; 300 << 10]).unwrap();
        let options = Options::new(1000);
        let file = |p: &std::path::Path| Input::File(p.to_path_buf());
        // An empty file: one thread, however many are asked for.
        assert_eq!(useful_threads(&[file(&empty)], &options), 1);
        // 300 KiB: three eighths of a 1 MiB chunk.
        assert_eq!(useful_threads(&[file(&small)], &options), 3);
        assert_eq!(useful_threads(&[file(&small), file(&small)], &options), 5);
        // Fewer asked than warranted: what was asked.
        assert_eq!(useful_threads(&[file(&small)], &Options::new(2)), 2);
        // Unknown size (standard input): what was asked, never above the cap.
        assert_eq!(useful_threads(&[Input::Stdin], &options), 1000);
        assert_eq!(
            useful_threads(&[Input::Stdin], &Options::new(1 << 20)),
            MAX_THREADS
        );
    }
}

#[cfg(test)]
mod cancel_tests {
    use super::*;
    use crate::stats::{Counts, StatsJob};

    /// Games for ever, a few at a time: only cancelling ends a run on it.
    struct Endless;

    impl io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            const GAME: &[u8] = b"[Event \"e\"]\n[SetUp \"1\"]\n\n*\n\n";
            let n = buf.len() / GAME.len() * GAME.len();
            for piece in buf[..n].chunks_mut(GAME.len()) {
                piece.copy_from_slice(GAME);
            }
            Ok(n.max(buf.len().min(1)))
        }
    }

    fn cancellable() -> (Options, Arc<AtomicBool>) {
        let flag = Arc::new(AtomicBool::new(false));
        let options = Options {
            cancel: Some(flag.clone()),
            ..Options::new(2)
        };
        (options, flag)
    }

    #[test]
    fn a_cancelled_run_stops_with_interrupted() {
        let (options, flag) = cancellable();
        let stopper = std::thread::spawn(move || {
            // Time for a first chunk to go through, ten times more in an
            // unoptimised build.
            let ms = if cfg!(debug_assertions) { 1000 } else { 100 };
            std::thread::sleep(Duration::from_millis(ms));
            flag.store(true, Ordering::Relaxed);
            std::time::Instant::now()
        });
        let mut counts = Counts::default();
        let result = run_reader(
            &Input::Stdin,
            Box::new(Endless),
            true,
            &StatsJob,
            &mut counts,
            &options,
        );
        let stopped = std::time::Instant::now();
        let cancelled_at = stopper.join().unwrap();
        match result {
            Err(RunError::Sink(e)) => assert_eq!(e.kind(), io::ErrorKind::Interrupted),
            other => panic!("expected an interrupted run, got {other:?}"),
        }
        assert!(counts.games > 0, "it ran before it was cancelled");
        // The flag is read between chunks: an unoptimised build scans a
        // chunk ten times slower, and the tests around it share the cores.
        let bound = Duration::from_millis(if cfg!(debug_assertions) { 3000 } else { 300 });
        assert!(
            stopped.duration_since(cancelled_at) < bound,
            "stopped {:?} after the flag",
            stopped.duration_since(cancelled_at)
        );
    }

    #[test]
    fn a_run_cancelled_before_it_starts_reads_nothing() {
        let (options, flag) = cancellable();
        flag.store(true, Ordering::Relaxed);
        let mut counts = Counts::default();
        let result = run(&[Input::Stdin], &StatsJob, &mut counts, &options);
        assert!(matches!(result, Err(RunError::Sink(e)) if e.kind() == io::ErrorKind::Interrupted));
        assert_eq!(counts.games, 0);
    }
}
