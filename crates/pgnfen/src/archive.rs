//! Reading whole archives game by game, from a program: [`Archive`] opens PGN
//! files (plain or compressed) and [`Archive::games`] streams their games, in
//! input order, each with where it lies, its class, its Chess960 start position,
//! its problems and its raw bytes.
//!
//! The games are cut and classified by the same parallel pipeline as the
//! commands (ARCHITECTURE.md), on a background thread that feeds a
//! bounded channel: memory stays bounded whatever the size of the input, and
//! dropping the iterator stops the pipeline promptly. Take each game as it
//! comes (a loop over [`Archive::games`]); collecting them all, as the
//! second example does on a tiny file, holds the whole archive in memory.
//!
//! ```no_run
//! use pgnfen::Class;
//! use pgnfen::archive::Archive;
//!
//! let mut chess960 = 0;
//! for game in Archive::open(["lichess_db_chess960_rated_2024-01.pgn.zst"])?.games() {
//!     let game = game?;
//!     if game.class == Class::Chess960 {
//!         chess960 += 1;
//!     }
//! }
//! println!("{chess960} Chess960 games");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use pgnfen::archive::Archive;
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("a.pgn");
//! std::fs::write(
//!     &path,
//!     "[Event \"A \\\"quoted\\\" name\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
//!      [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n1. g3 *\n\n\
//!      [Event \"B\"]\n\n1. e4 e5 1-0\n",
//! )?;
//! let archive = Archive::open([&path])?.threads(2);
//! let games: Vec<_> = archive.games().collect::<Result<_, _>>()?;
//! assert_eq!(games.len(), 2);
//! assert_eq!(games[0].class.as_str(), "chess960");
//! assert_eq!(games[0].chess960_position, Some(0));
//! assert_eq!(games[0].headers()[0], ("Event".to_string(), "A \"quoted\" name".to_string()));
//! assert_eq!((games[1].game, games[1].line), (2, 8));
//! // Every byte of the input belongs to exactly one game.
//! let raw: Vec<u8> = games.iter().flat_map(|g| g.raw().iter().copied()).collect();
//! assert_eq!(raw, std::fs::read(&path)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "internals")]
pub(crate) mod last_header;

use std::borrow::Cow;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, bounded};
use pgnfen_core::words::{word_below, word_has};

use crate::check::{CheckJob, Finding};
use crate::class::Class;
use crate::moves::{Moved, MovesMode, Replay, WithMoves};
use crate::pgn::encoding::Encoding;
use crate::pgn::encoding::decode_escaped;
#[cfg(test)]
use crate::pgn::scan::{Event, Scanner};
use crate::pipeline::{self, GameInfo, Header, Input, InputError, Job, Options, RunError, Sink};
use crate::problem::{Code, Severity};
use crate::speed::{Clock, Speed};

/// Batches of games waiting between the pipeline and the consumer. A batch
/// holds the games that ended in one chunk of the pipeline (about 1 MiB), so
/// with the pipeline's own chunks in flight this bounds memory (a game is held
/// whole, so one huge game still takes its size).
const BATCHES_IN_FLIGHT: usize = 4;

/// Emptied batches waiting to be filled again ([`Unpacking::into_empty`]). At most
/// `BATCHES_IN_FLIGHT + 3` batches exist at once (those in the channel, the
/// one the sink is sending, the one it is filling, the one being emptied),
/// and the one being filled is never spare: so none is ever freed for want of
/// room, and none is made while one waits (no more batches exist than
/// without handing back).
const SPARE_BATCHES: usize = BATCHES_IN_FLIGHT + 2;

/// The largest buffers of an emptied batch that are handed back to be filled
/// again; larger ones (after a huge game) are freed, so that memory shrinks
/// back after it.
const SPARE_BYTES: usize = 8 << 20;
const SPARE_GAMES: usize = 64 << 10;
const SPARE_PAIRS: usize = 256 << 10;

/// A batch goes to the consumer before its chunk is done once what its games
/// hold besides their bytes (their slots, problems and tag spans) passes
/// this. A chunk of ordinary games stays well under it (one batch a chunk);
/// a chunk of tiny games that are all problems (95,000 of 11 bytes in 1 MiB)
/// made batches of 50 MB, and the batches in flight held 500 MiB.
const BATCH_WEIGHT: usize = 1 << 20;

/// One or more PGN inputs to read game by game.
#[derive(Clone, Debug)]
pub struct Archive {
    inputs: Vec<Input>,
    options: Options,
    /// Whether each game carries its bytes ([`Game::raw`]).
    keep_raw: bool,
    /// Each game's mainline replayed ([`Archive::moves`]).
    moves: Option<MovesMode>,
}

impl Archive {
    /// The archive of these files, read in the order given. Each is checked
    /// here as the tasks check their inputs, so that a missing or unreadable
    /// file, or a folder, is reported before any work starts (the error names
    /// the file; a named pipe is not opened, which would take its writer's
    /// first bytes from the real read). Compression (gzip,
    /// bzip2, zstd, xz) and zip archives are handled as the commands handle them.
    ///
    /// Every path is a file: `-` is a file named `-` here. Standard input is
    /// [`Input::Stdin`] (what [`Input::from_arg`] makes of `-`), given to
    /// [`Archive::from_inputs`].
    pub fn open<I, P>(paths: I) -> Result<Archive, InputError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let inputs: Vec<Input> = paths
            .into_iter()
            .map(|p| Input::File(p.as_ref().to_path_buf()))
            .collect();
        for input in &inputs {
            if let Input::File(path) = input
                && let Err(source) = crate::error::check_readable(path)
            {
                return Err(InputError {
                    file: input.display_name(),
                    error: source,
                });
            }
        }
        Ok(Archive::from_inputs(inputs))
    }

    /// The archive of these inputs (files or standard input), not checked until read.
    pub fn from_inputs(inputs: Vec<Input>) -> Archive {
        Archive {
            inputs,
            options: Options::default(),
            keep_raw: true,
            moves: None,
        }
    }

    /// Uses up to `n` worker threads (at least one; the default is one per
    /// core). As for every run, never more than the cores, nor than the
    /// input can keep busy (a small file gets fewer).
    pub fn threads(mut self, n: usize) -> Archive {
        self.options.threads = n.max(1);
        self
    }

    /// Reads with these settings of the engine (threads, mapping, a watch,
    /// cancellation, notes) instead of the defaults. They replace every
    /// setting, the thread count too: call [`Archive::threads`] after this,
    /// not before. Set [`Options::notes`] to `false` to keep the run's
    /// warnings (an input without a tag line) off standard error.
    pub fn with_options(mut self, options: Options) -> Archive {
        self.options = options;
        self
    }

    /// Games without their bytes: [`Game::raw`] stays empty, and so do what is
    /// read from it ([`Game::headers`], [`Game::tags`]; the speed is unknown).
    /// For a caller that needs only where each game lies, its class and its
    /// problems: memory then does not grow with the longest game.
    pub fn without_raw(mut self) -> Archive {
        self.keep_raw = false;
        self
    }

    /// Replays each game's mainline from its start position as `check
    /// --moves` does, the first move only or all of them ([`MovesMode`]):
    /// [`Game::replay`] then says whether the moves are legal, and which is
    /// not, and an illegal move is also among the game's
    /// [`problems`](Game::problems) (code `illegal-move`, last), as `check
    /// --moves` reports it. The replay runs on the workers, beside the
    /// classification.
    ///
    /// ```
    /// use pgnfen::archive::Archive;
    /// use pgnfen::moves::MovesMode;
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("a.pgn");
    /// std::fs::write(&path, "[Event \"a\"]\n\n1. e4 e5 2. Ke3 *\n")?;
    /// let games = Archive::open([&path])?.moves(MovesMode::All).games();
    /// for game in games {
    ///     let game = game?;
    ///     let illegal = game.replay().and_then(|r| r.illegal()).unwrap();
    ///     assert_eq!((illegal.ply, illegal.token.as_str()), (3, "Ke3"));
    ///     assert_eq!((illegal.line, illegal.column), (3, 13));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn moves(mut self, mode: MovesMode) -> Archive {
        self.moves = Some(mode);
        self
    }

    /// The inputs, in reading order.
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    /// Streams the games of every input, in input order, from a background
    /// thread. The iterator yields `Err` once, last, when an input cannot be
    /// read (a corrupt compressed stream, an I/O error), when the flag of
    /// [`Options::cancel`] stopped the run (kind
    /// [`io::ErrorKind::Interrupted`]) or when the thread failed (a panic, in
    /// a [`Watch`](pipeline::Watch) of the caller's, say). Dropping it stops
    /// the reading; the caller's cancellation flag is never set by this, so
    /// that one flag can serve every run of a program.
    pub fn games(&self) -> Games {
        let (tx, rx) = bounded(BATCHES_IN_FLIGHT);
        let (spare_tx, spare_rx) = bounded(SPARE_BATCHES);
        let inputs = self.inputs.clone();
        let mut options = self.options.clone();
        // The run watches a flag of its own, which dropping the iterator
        // sets; the caller's is relayed to it.
        let callers_flag = options.cancel.take();
        let already = callers_flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed));
        let cancel = Arc::new(AtomicBool::new(already));
        options.cancel = Some(Arc::clone(&cancel));
        let run_cancel = Arc::clone(&cancel);
        let keep_raw = self.keep_raw;
        let moves = self.moves;
        let index_tags = Arc::new(AtomicBool::new(false));
        let sink_index_tags = Arc::clone(&index_tags);
        let handle = std::thread::Builder::new()
            .name("pgnfen-archive".into())
            .spawn(move || {
                let relay = callers_flag.map(|flag| relay(flag, Arc::clone(&run_cancel)));
                let mut sink = GameSink {
                    tx: tx.clone(),
                    spare: spare_rx,
                    batch: Batch::default(),
                    current: None,
                    keep_raw,
                    index_tags: sink_index_tags,
                    problems_weight: 0,
                };
                let result = match moves {
                    None => pipeline::run(&inputs, &ArchiveJob, &mut sink, &options),
                    Some(mode) => {
                        let job = WithMoves {
                            inner: ArchiveJob,
                            mode,
                        };
                        pipeline::run(&inputs, &job, &mut sink, &options)
                    }
                }
                .and_then(|_| sink.flush().map_err(RunError::Sink));
                if let Err(e) = result {
                    // A closed channel (the consumer is gone) is the normal way to stop.
                    let _ = tx.send(Err(e));
                }
                // The run's own flag, set once it is over, ends the relay.
                run_cancel.store(true, Ordering::Relaxed);
                if let Some(Ok(relay)) = relay {
                    let _ = relay.join();
                }
            });
        match handle {
            Ok(handle) => Games {
                rx: Some(rx),
                spare: spare_tx,
                index_tags,
                batch: None,
                handle: Some(handle),
                cancel,
            },
            Err(e) => {
                // No thread: the one item is the error.
                let (tx, rx) = bounded(1);
                let _ = tx.send(Err(RunError::Sink(crate::pipeline::no_thread(e))));
                Games {
                    rx: Some(rx),
                    spare: spare_tx,
                    index_tags,
                    batch: None,
                    handle: None,
                    cancel,
                }
            }
        }
    }
}

/// How often [`relay`] looks at the caller's flag: the pipeline itself
/// looks at its own every 20 ms at most, so a stop takes at most half again
/// as long as when the caller's flag is the run's.
const RELAY_EVERY: Duration = Duration::from_millis(10);

/// A thread that sets the run's cancellation flag once the caller's is set,
/// and ends when the run's is set (by the relay, by a dropped [`Games`] or at
/// the run's end). The run cannot watch the caller's flag itself, since
/// stopping it when its iterator is dropped would then set that flag, which
/// the caller may share with its other runs (a Ctrl-C flag).
fn relay(callers_flag: Arc<AtomicBool>, run_cancel: Arc<AtomicBool>) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("pgnfen-archive-cancel".into())
        .spawn(move || {
            while !run_cancel.load(Ordering::Relaxed) {
                if callers_flag.load(Ordering::Relaxed) {
                    run_cancel.store(true, Ordering::Relaxed);
                    return;
                }
                std::thread::sleep(RELAY_EVERY);
            }
        })
}

/// One game of an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The input's name as messages give it (the path as given; `<stdin>`),
    /// shared by the input's games.
    pub file: Arc<str>,
    /// 1-based number of the game within its input.
    pub game: u64,
    /// Offset of its first byte in the (decompressed) input.
    pub offset: u64,
    /// Its length in bytes.
    pub length: u64,
    /// Its first line (1-based) in the input.
    pub line: u64,
    /// Its class, from its SetUp/FEN/Variant tags.
    pub class: Class,
    /// The Chess960 start position number (0-959) of a Chess960 game.
    pub chess960_position: Option<u16>,
    /// Its problems, errors and warnings, as `check --warnings` reports them
    /// (with [`Archive::moves`], as `check --warnings --moves` does: an
    /// illegal move last).
    pub problems: Vec<GameProblem>,
    /// The game exactly as in the input ([`Game::raw`]), and where its tag
    /// pairs lie when the pipeline found them.
    bytes: GameBytes,
    /// What the replay of its moves found ([`Archive::moves`]); boxed, so
    /// that a game read without it carries one word.
    replay: Option<Box<Replay>>,
}

impl Game {
    /// The game exactly as in the input: every byte of the input belongs to
    /// exactly one game, so these concatenated give the input back. (Read
    /// only: the game's tags are found in these bytes as they were read.)
    pub fn raw(&self) -> &[u8] {
        self.bytes.raw()
    }

    /// What the replay of the game's mainline found, when the archive was
    /// read with [`Archive::moves`] (`None` otherwise):
    /// [`Replay::NotChecked`] for a game whose start is not replayed
    /// (classes crc and malformed, a variant shakmaty does not play),
    /// [`Replay::Passed`], or the first [`Replay::Illegal`] move, with its
    /// line and column in the input.
    pub fn replay(&self) -> Option<&Replay> {
        self.replay.as_deref()
    }

    /// The bytes of [`Game::raw`], owned.
    pub fn into_raw(self) -> Vec<u8> {
        self.bytes.into_raw()
    }

    /// Every tag pair of the header, in order, values PGN-unescaped (`\"`,
    /// `\\`) and decoded as [`Game::tags`] decodes them: each name and value
    /// as UTF-8 when it is valid UTF-8, else as Windows-1252, so that no byte
    /// becomes U+FFFD ([`Encoding::Auto`]; [`Game::tags_in`] takes another). A name
    /// may come twice, as it does in the input.
    ///
    /// The tag lines are read from [`Game::raw`], as the scanner reads them
    /// (docs/games.md): lines before the first tag line are a
    /// preamble, blank and `%` lines may lie between tag lines, the first other
    /// line starts the movetext, and a line may hold several pairs. A pair that
    /// does not close (`[White ""Name""]`: a quote inside the value that is not
    /// escaped) is not read, nor is the rest of its line.
    // Read here rather than by the workers: the scanner can report every
    // pair (as for `export`), but doing that for every game cost the
    // pipeline more than reading the header again when asked (docs/
    // performance-log.md, "Python: the workers placing each game's tag pairs").
    pub fn headers(&self) -> Vec<(String, String)> {
        self.tags()
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect()
    }

    /// The game's speed ([`crate::speed`]) from its first `TimeControl` pair,
    /// read when asked for (the games stream does not read it).
    pub fn speed(&self) -> Speed {
        self.clock().speed
    }

    /// The game's speed and the clock of the first period of its first
    /// `TimeControl` pair, as the columns of `export` hold them.
    pub fn clock(&self) -> Clock {
        let value = self
            .raw_tags()
            .find(|(name, _)| *name == crate::speed::TAG)
            .map(|(_, value)| value);
        Clock::of(value)
    }

    /// The pairs of [`Game::tags`] as written: each name's bytes, and the
    /// bytes of its value between the quotes with its escapes as they are
    /// ([`crate::pgn::encoding::decode_escaped`] makes them text). For a
    /// caller that compares values before it decodes them.
    #[inline]
    pub fn raw_tags(&self) -> impl ExactSizeIterator<Item = (&[u8], &[u8])> {
        match self.bytes.spans() {
            Some(spans) => RawTags::Indexed(spans, self.raw()),
            // Only the input's first game may begin with a byte order mark to skip.
            None => RawTags::Read(tag_pairs(self.raw(), self.offset == 0).into_iter()),
        }
    }

    /// Calls `f` with each raw tag pair until it breaks: from the index when
    /// the pipeline made one, else read from the bytes.
    fn each_pair<'a>(&'a self, mut f: impl FnMut(&'a [u8], &'a [u8]) -> ControlFlow<()>) {
        match self.bytes.spans() {
            Some(spans) => {
                for span in spans {
                    let (name, value) = span.of(self.raw());
                    if f(name, value).is_break() {
                        return;
                    }
                }
            }
            None => each_pair(self.raw(), self.offset == 0, f),
        }
    }

    /// The pairs of [`Game::headers`], borrowed from [`Game::raw`] where no
    /// unescaping or repair was needed (no allocation for most tags).
    pub fn tags(&self) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> {
        self.tags_in(Encoding::Auto)
    }

    /// The value of the first pair named `name`, decoded as [`Game::tags`]
    /// decodes values, without decoding the others: for a caller that wants
    /// a few tags of many games. [`Game::tag_in`] takes another encoding.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), pgnfen::Error> {
    /// for game in pgnfen::Archive::open(["games.pgn"])?.games() {
    ///     let game = game?;
    ///     let white = game.tag("White").unwrap_or_default();
    ///     let black = game.tag("Black").unwrap_or_default();
    ///     println!("{white} - {black}: {}", game.class);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn tag(&self, name: &str) -> Option<Cow<'_, str>> {
        self.tag_in(name, Encoding::Auto)
    }

    /// The value of the first pair named `name` (as [`Game::tags_in`] gives
    /// names and values), without decoding the others: for a caller that
    /// wants a few tags of many games.
    pub fn tag_in(&self, name: &str, encoding: Encoding) -> Option<Cow<'_, str>> {
        let mut found = None;
        self.each_pair(|n, raw| {
            // An ASCII name reads as itself in every encoding.
            let same = if n.is_ascii() {
                n == name.as_bytes()
            } else {
                crate::pgn::encoding::decode_name(n, encoding) == name
            };
            if same {
                found = Some(raw);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        Some(decode_escaped(found?, encoding))
    }

    /// Every tag pair as [`Game::tags`] gives them, decoded as `encoding`
    /// says (see [`crate::pgn::encoding`]): names with invalid bytes are
    /// decoded so that distinct names stay distinct.
    pub fn tags_in(
        &self,
        encoding: Encoding,
    ) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> {
        self.raw_tags().map(move |(name, raw)| {
            (
                crate::pgn::encoding::decode_name(name, encoding),
                decode_escaped(raw, encoding),
            )
        })
    }
}

/// A game's bytes, followed in the same allocation, when the pipeline found
/// them on its thread as it assembled the games, by where its tag pairs lie
/// in them ([`PairSpan`] records): a consumer reading the tags of each game
/// (Python's `headers`) then neither reads the header again on its own
/// thread nor pays a second allocation per game. Without the index (a game
/// made otherwise, or too long for its offsets) the pairs are read from the
/// bytes when asked. The index only saves work, so it takes no part in
/// comparing games.
///
/// A game's bytes cannot change once the pipeline has made it ([`Game::raw`]
/// only lends them), so an index, once made, holds for the game and its
/// clones.
#[derive(Clone)]
struct GameBytes {
    buf: Vec<u8>,
    /// How many bytes of `buf` are the game's.
    raw_len: usize,
    /// Whether the rest of `buf` is the index of its pairs.
    indexed: bool,
}

impl GameBytes {
    /// Bytes without an index.
    fn plain(raw: Vec<u8>) -> GameBytes {
        GameBytes {
            raw_len: raw.len(),
            buf: raw,
            indexed: false,
        }
    }

    /// Bytes with the index of their pairs.
    fn indexed(raw: &[u8], spans: &[PairSpan]) -> GameBytes {
        let mut buf = Vec::with_capacity(raw.len() + spans.len() * PairSpan::BYTES);
        buf.extend_from_slice(raw);
        for span in spans {
            buf.extend_from_slice(&span.to_bytes());
        }
        GameBytes {
            buf,
            raw_len: raw.len(),
            indexed: true,
        }
    }

    #[inline]
    fn raw(&self) -> &[u8] {
        &self.buf[..self.raw_len]
    }

    fn into_raw(self) -> Vec<u8> {
        let mut raw = self.buf;
        raw.truncate(self.raw_len);
        raw
    }

    /// The spans of the pairs, if found.
    #[inline]
    fn spans(&self) -> Option<Spans<'_>> {
        self.indexed
            .then(|| Spans(self.buf[self.raw_len..].chunks_exact(PairSpan::BYTES)))
    }
}

impl PartialEq for GameBytes {
    fn eq(&self, other: &GameBytes) -> bool {
        self.raw() == other.raw()
    }
}

impl Eq for GameBytes {}

impl std::fmt::Debug for GameBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameBytes")
            .field("raw", &self.raw())
            .field("indexed", &self.indexed)
            .finish()
    }
}

/// The spans of a [`GameBytes`] index.
struct Spans<'a>(std::slice::ChunksExact<'a, u8>);

impl Iterator for Spans<'_> {
    type Item = PairSpan;

    #[inline]
    fn next(&mut self) -> Option<PairSpan> {
        self.0.next().map(PairSpan::from_bytes)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

/// The iterator of [`Game::raw_tags`].
enum RawTags<'a> {
    Indexed(Spans<'a>, &'a [u8]),
    Read(std::vec::IntoIter<(&'a [u8], &'a [u8])>),
}

impl<'a> Iterator for RawTags<'a> {
    type Item = (&'a [u8], &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            RawTags::Indexed(spans, raw) => spans.next().map(|span| span.of(raw)),
            RawTags::Read(pairs) => pairs.next(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            RawTags::Indexed(spans, _) => spans.size_hint(),
            RawTags::Read(pairs) => pairs.size_hint(),
        }
    }
}

impl ExactSizeIterator for RawTags<'_> {}

/// One tag pair: its name's and its raw value's byte ranges in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PairSpan {
    name: [u32; 2],
    value: [u32; 2],
}

impl PairSpan {
    /// Its size in a [`GameBytes`] index.
    const BYTES: usize = 16;

    fn to_bytes(self) -> [u8; PairSpan::BYTES] {
        let mut out = [0; PairSpan::BYTES];
        let words = [self.name[0], self.name[1], self.value[0], self.value[1]];
        for (to, word) in out.chunks_exact_mut(4).zip(words) {
            to.copy_from_slice(&word.to_ne_bytes());
        }
        out
    }

    /// A span from its [`PairSpan::to_bytes`] (`bytes` holds 16 of them).
    #[inline]
    fn from_bytes(bytes: &[u8]) -> PairSpan {
        let word = |i: usize| {
            let mut w = [0; 4];
            w.copy_from_slice(&bytes[4 * i..4 * i + 4]);
            u32::from_ne_bytes(w)
        };
        PairSpan {
            name: [word(0), word(1)],
            value: [word(2), word(3)],
        }
    }

    #[inline]
    fn of<'a>(&self, raw: &'a [u8]) -> (&'a [u8], &'a [u8]) {
        let [ns, ne] = self.name.map(|at| at as usize);
        let [vs, ve] = self.value.map(|at| at as usize);
        (&raw[ns..ne], &raw[vs..ve])
    }
}

/// Appends to `out` where the tag pairs of game bytes `raw` lie, as
/// [`each_pair`] reads them; false (nothing appended) for a game too long
/// for 32-bit offsets.
fn index_pairs(raw: &[u8], input_start: bool, out: &mut Vec<PairSpan>) -> bool {
    if u32::try_from(raw.len()).is_err() {
        return false;
    }
    // Each piece is a subslice of `raw`, so its offsets fit in 32 bits.
    let range = |piece: &[u8]| span_in(raw, piece).map(|at| at as u32);
    each_pair(raw, input_start, |name, value| {
        out.push(PairSpan {
            name: range(name),
            value: range(value),
        });
        ControlFlow::Continue(())
    });
    true
}

/// Where `piece`, a subslice of `raw` (a name or value the tag reader
/// gives), begins and ends in `raw`.
#[inline]
pub(crate) fn span_in(raw: &[u8], piece: &[u8]) -> [usize; 2] {
    let start = piece.as_ptr() as usize - raw.as_ptr() as usize;
    debug_assert!(start + piece.len() <= raw.len());
    [start, start + piece.len()]
}

/// A problem of one game's headers, placed as `check` places it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameProblem {
    /// Its stable code (`fen-syntax`, `missing-variant`, ...).
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in words.
    pub message: String,
    /// The tag at fault (`FEN`, `SetUp`, `Variant`).
    pub tag: &'static str,
    /// Its line (1-based) in the input.
    pub line: u64,
    /// Its column (1-based, in characters) in that line.
    pub column: usize,
    /// The column just past the part at fault (as `check --format json`'s `end_column`).
    pub end_column: usize,
    /// How to fix it, when there is something to say.
    pub help: Option<String>,
}

/// The streaming iterator of [`Archive::games`].
#[derive(Debug)]
pub struct Games {
    rx: Option<Receiver<Result<Batch, RunError>>>,
    /// Emptied batches, back to the pipeline's sink ([`Unpacking::into_empty`]).
    spare: Sender<Batch>,
    /// Set by [`Games::index_tags`]; read by the pipeline's sink.
    index_tags: Arc<AtomicBool>,
    /// The batch being handed out, game by game.
    batch: Option<Unpacking>,
    handle: Option<JoinHandle<()>>,
    /// The run's own cancellation flag (never the caller's: see [`relay`]):
    /// set when the iterator is dropped, so that a reader waiting on a slow
    /// pipe stops at its next read.
    cancel: Arc<AtomicBool>,
}

impl Games {
    /// The next item, waiting at most `timeout`: `None` when none came in
    /// time (callers that must stay responsive, such as the Python binding
    /// checking for Ctrl-C, wait in slices with this), `Some(None)` at the end.
    pub fn next_timeout(&mut self, timeout: Duration) -> Option<Option<Result<Game, RunError>>> {
        if let Some(game) = self.unpack() {
            return Some(Some(Ok(game)));
        }
        let Some(rx) = &self.rx else {
            return Some(None);
        };
        match rx.recv_timeout(timeout) {
            Ok(item) => Some(self.received(item)),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(self.finish().map(Err)),
        }
    }

    /// The next item if one is ready now, without waiting (`None` also at the
    /// end: [`Iterator::next`] or [`Games::next_timeout`] tell the end).
    /// Consumers that must not block while they hold a lock (the Python
    /// binding holds the interpreter's) take what is ready with this, and
    /// wait with [`Games::next_timeout`] only when nothing is.
    pub fn try_next(&mut self) -> Option<Result<Game, RunError>> {
        if let Some(game) = self.unpack() {
            return Some(Ok(game));
        }
        let item = self.rx.as_ref()?.try_recv().ok()?;
        self.received(item)
    }

    /// From the next batch on, has the pipeline find where each game's tag
    /// pairs lie, on its own thread, as it hands the games over: reading the
    /// tags of a game ([`Game::tags`], [`Game::raw_tags`], [`Game::tag_in`])
    /// then does not read its header again on the consumer's thread. Worth it
    /// when the consumer reads the tags of most games and is slower than the
    /// pipeline (the Python binding asks for it once a program reads tags);
    /// for a consumer that reads none it would only slow the pipeline down.
    pub fn index_tags(&self) {
        self.index_tags.store(true, Ordering::Relaxed);
    }

    /// The next game of the batch at hand; an emptied batch goes back to
    /// the pipeline's sink.
    fn unpack(&mut self) -> Option<Game> {
        let unpacking = self.batch.as_mut()?;
        match unpacking.next() {
            Some(game) => Some(game),
            None => {
                if let Some(spare) = self.batch.take().and_then(Unpacking::into_empty) {
                    // Full (the sink has enough) or closed (the run ended):
                    // then freed here.
                    let _ = self.spare.try_send(spare);
                }
                None
            }
        }
    }

    /// A batch (or the run's error) just received: its first game.
    fn received(&mut self, item: Result<Batch, RunError>) -> Option<Result<Game, RunError>> {
        match item {
            Ok(batch) => {
                self.batch = Some(Unpacking::new(batch));
                // The pipeline sends no empty batch.
                self.unpack().map(Ok)
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// Closes the channel and waits for the pipeline to stop: the error of a
    /// thread that panicked (the run's end is then no proof that every game
    /// was read).
    fn finish(&mut self) -> Option<RunError> {
        self.rx = None;
        self.batch = None;
        let handle = self.handle.take()?;
        self.cancel.store(true, Ordering::Relaxed);
        handle.join().err().map(|_| {
            RunError::Sink(io::Error::other(
                "the archive's reading thread failed unexpectedly (it panicked)",
            ))
        })
    }
}

impl Iterator for Games {
    type Item = Result<Game, RunError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(game) = self.unpack() {
                return Some(Ok(game));
            }
            let Some(item) = self.rx.as_ref()?.recv().ok() else {
                return self.finish().map(Err);
            };
            if let Some(item) = self.received(item) {
                return Some(item);
            }
        }
    }
}

impl Drop for Games {
    /// The pipeline's next hand-over fails on the closed channel, which stops
    /// it (the chunks in flight are dropped); the thread is then joined so
    /// that no work goes on after the iterator is gone.
    fn drop(&mut self) {
        // A panic is not told here: nobody is reading.
        let _ = self.finish();
    }
}

/// The games that ended in one chunk, handed from the pipeline to the
/// consumer in one piece: one channel message and one buffer for a few
/// thousand games, instead of one of each per game, which cost more than the
/// rest of the hand-over together (and freeing on the consumer's thread
/// memory taken on the pipeline's made the two contend for the allocator).
/// The consumer gives each game its own bytes ([`Game::raw`]) as it hands
/// the game out, so that keeping one game never keeps a whole batch alive.
#[derive(Debug, Default)]
struct Batch {
    /// The bytes of its games, end to end (empty [`Archive::without_raw`]).
    bytes: Vec<u8>,
    /// The names of the inputs its games come from (usually one).
    files: Vec<Arc<str>>,
    games: Vec<Slot>,
    /// The tag pairs of its games, each game's in [`Slot::pairs`].
    pairs: Vec<PairSpan>,
}

/// One game of a [`Batch`].
#[derive(Debug)]
struct Slot {
    /// Index into [`Batch::files`].
    file: usize,
    game: u64,
    offset: u64,
    length: u64,
    line: u64,
    class: Class,
    chess960_position: Option<u16>,
    problems: Vec<GameProblem>,
    /// Its bytes in [`Batch::bytes`].
    raw: std::ops::Range<usize>,
    /// Its tag pairs in [`Batch::pairs`], when indexed ([`GameBytes`]).
    pairs: Option<std::ops::Range<usize>>,
    /// Its replay ([`Archive::moves`]).
    replay: Option<Box<Replay>>,
}

/// A received batch, handing out its games in order (`next`: the index of
/// the next one). The games are read, not moved out or reordered: the
/// consumer writes nothing into memory the pipeline's sink fills again, which
/// would make the sink's thread wait for that memory to come back from the
/// consumer's processor. Emptied, the batch goes back to the sink to hold a
/// later one ([`Unpacking::into_empty`]).
#[derive(Debug)]
struct Unpacking {
    batch: Batch,
    next: usize,
}

impl Unpacking {
    fn new(batch: Batch) -> Unpacking {
        Unpacking { batch, next: 0 }
    }

    /// The batch, emptied, for the sink to fill again, unless a buffer is
    /// too large to keep ([`SPARE_BYTES`]). A new batch's buffers are a few
    /// MiB, which the allocator maps afresh, so that filling them cost a page
    /// fault every 4 KiB (a quarter of the sink's time), and freeing them
    /// unmapped them on the consumer's thread.
    fn into_empty(self) -> Option<Batch> {
        let Unpacking { mut batch, .. } = self;
        if batch.bytes.capacity() > SPARE_BYTES
            || batch.games.capacity() > SPARE_GAMES
            || batch.pairs.capacity() > SPARE_PAIRS
        {
            return None;
        }
        batch.bytes.clear();
        batch.files.clear();
        batch.games.clear();
        batch.pairs.clear();
        Some(batch)
    }

    fn next(&mut self) -> Option<Game> {
        let batch = &mut self.batch;
        let slot = batch.games.get_mut(self.next)?;
        self.next += 1;
        // Taken out only when there are some (rare): an empty vector is left
        // as it is, so that the record is read and not written.
        let problems = if slot.problems.is_empty() {
            Vec::new()
        } else {
            std::mem::take(&mut slot.problems)
        };
        // Taken out only when there is one, as the problems are.
        let replay = if slot.replay.is_some() {
            slot.replay.take()
        } else {
            None
        };
        let slot = &*slot;
        let raw = &batch.bytes[slot.raw.clone()];
        let bytes = match slot.pairs.clone() {
            Some(pairs) => GameBytes::indexed(raw, &batch.pairs[pairs]),
            None => GameBytes::plain(raw.to_vec()),
        };
        Some(Game {
            file: Arc::clone(&batch.files[slot.file]),
            game: slot.game,
            offset: slot.offset,
            length: slot.length,
            line: slot.line,
            class: slot.class,
            chess960_position: slot.chess960_position,
            problems,
            bytes,
            replay,
        })
    }
}

/// What the workers find out about each game.
struct ArchiveJob;

struct Facts {
    class: Class,
    chess960_position: Option<u16>,
    findings: Vec<Finding>,
}

impl Job for ArchiveJob {
    type Game = Facts;

    fn game(&self, header: &Header<'_>) -> Facts {
        if header.is_empty() {
            // As `stats` counts it: a game without these tags is standard.
            return Facts {
                class: Class::Standard,
                chess960_position: None,
                findings: Vec::new(),
            };
        }
        let verdict = header.verdict();
        Facts {
            class: verdict.class,
            chess960_position: verdict.chess960_position,
            // The placement of problems is check's (columns through escapes).
            findings: CheckJob { warnings: true }.place(header, &verdict).findings,
        }
    }

    /// The findings' heap (see [`crate::check::findings_weight`]).
    fn weight(&self, facts: &Facts) -> usize {
        crate::check::findings_weight(&facts.findings) + crate::check::HEAP_BLOCK
    }

    /// A game costs its reader (Python's loop) several times what decoding
    /// its bytes does: few zstd frames held keep up (see
    /// [`LEAN_BUDGET`](crate::pipeline::frames::LEAN_BUDGET)).
    fn frames_ahead(&self) -> usize {
        crate::pipeline::frames::LEAN_BUDGET
    }

    /// Few chunks, for the same reason (each game's facts and bytes wait in
    /// the batches besides).
    fn chunks_in_flight(&self, workers: usize) -> usize {
        crate::pipeline::game::lean_chunks_in_flight(workers)
    }
}

/// Assembles the games on the merger thread into batches, and hands each
/// chunk's batch to the channel.
struct GameSink {
    tx: Sender<Result<Batch, RunError>>,
    /// Batches the consumer has emptied, to fill again ([`Unpacking::into_empty`]).
    spare: Receiver<Batch>,
    /// The games that ended since the last hand-over.
    batch: Batch,
    /// The game whose bytes are being read: its bytes are already at the end
    /// of the batch's, from `current.raw.start`.
    current: Option<Slot>,
    /// [`Archive::without_raw`] not asked for.
    keep_raw: bool,
    /// [`Games::index_tags`] asked for.
    index_tags: Arc<AtomicBool>,
    /// The heap of the problems of the batch's games ([`BATCH_WEIGHT`]).
    problems_weight: usize,
}

impl GameSink {
    /// The current game is complete: into the batch, which goes on at once
    /// when its games hold more than [`BATCH_WEIGHT`] besides their bytes.
    fn end_game(&mut self) -> io::Result<()> {
        if let Some(mut slot) = self.current.take() {
            slot.raw.end = self.batch.bytes.len();
            if self.keep_raw && self.index_tags.load(Ordering::Relaxed) {
                let first = self.batch.pairs.len();
                let raw = &self.batch.bytes[slot.raw.clone()];
                if index_pairs(raw, slot.offset == 0, &mut self.batch.pairs) {
                    slot.pairs = Some(first..self.batch.pairs.len());
                }
            }
            self.batch.games.push(slot);
            let weight = self.batch.games.len() * std::mem::size_of::<Slot>()
                + self.batch.pairs.len() * std::mem::size_of::<PairSpan>()
                + self.problems_weight;
            if weight > BATCH_WEIGHT {
                return self.send();
            }
        }
        Ok(())
    }

    /// Hands the batch's complete games to the consumer; the bytes read so
    /// far of the current game move to the next batch.
    fn send(&mut self) -> io::Result<()> {
        if self.batch.games.is_empty() {
            return Ok(());
        }
        self.problems_weight = 0;
        let mut next = self.spare.try_recv().unwrap_or_default();
        next.files.push(Arc::clone(
            self.batch.files.last().expect("a game has a file"),
        ));
        if self.keep_raw {
            // Room for a chunk's games at once, rather than growing by
            // doubling; not more than a large chunk's, after a huge game.
            next.bytes.reserve(self.batch.bytes.capacity().min(4 << 20));
            next.pairs
                .reserve(self.batch.pairs.capacity().min(64 << 10));
        }
        if let Some(open) = &mut self.current {
            next.bytes
                .extend_from_slice(&self.batch.bytes[open.raw.start..]);
            self.batch.bytes.truncate(open.raw.start);
            open.raw.start = 0;
            open.file = 0;
        }
        let batch = std::mem::replace(&mut self.batch, next);
        self.tx
            .send(Ok(batch))
            .map_err(|_| io::Error::other("the reader of the games is gone"))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.end_game()?;
        self.send()
    }
}

impl Sink<Facts> for GameSink {
    fn input_damaged(&mut self, last_complete: bool) -> io::Result<()> {
        // The games before the damage go out before the error does; the
        // last one only when it is known to be whole.
        if last_complete {
            self.end_game()?;
        } else if let Some(open) = self.current.take() {
            self.batch.bytes.truncate(open.raw.start);
        }
        self.send()
    }

    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.end_game()?;
        self.batch.files.push(input.display_name().into());
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, facts: Facts) -> io::Result<()> {
        self.end_game()?;
        // As the pipeline weighs a chunk's results (`ArchiveJob::weight`).
        self.problems_weight += crate::check::findings_weight(&facts.findings);
        let problems = facts
            .findings
            .into_iter()
            .map(|f| GameProblem {
                code: f.code,
                severity: f.code.severity(),
                end_column: f.end_column(),
                line: f.line + info.line_delta,
                column: f.column,
                message: f.message,
                tag: f.tag,
                help: f.help,
            })
            .collect();
        let start = self.batch.bytes.len();
        self.current = Some(Slot {
            file: self.batch.files.len() - 1,
            game: info.index,
            offset: info.offset,
            length: 0,
            line: info.line,
            class: facts.class,
            chess960_position: facts.chess960_position,
            problems,
            raw: start..start,
            pairs: None,
            replay: None,
        });
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        if let Some(game) = &mut self.current {
            if self.keep_raw {
                self.batch.bytes.extend_from_slice(data);
            }
            game.length += data.len() as u64;
        }
        Ok(())
    }

    fn chunk_merged(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// With [`Archive::moves`]: each game's replay goes into its slot.
impl Sink<Moved<Facts>> for GameSink {
    fn input_damaged(&mut self, last_complete: bool) -> io::Result<()> {
        Sink::<Facts>::input_damaged(self, last_complete)
    }

    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        Sink::<Facts>::begin_input(self, input)
    }

    fn begin_game(&mut self, info: &GameInfo, game: Moved<Facts>) -> io::Result<()> {
        let mut facts = game.inner;
        if let Some(m) = game.replay.illegal() {
            // Among the problems as `check --moves` reports it: after the
            // header's, since the movetext comes after the header.
            facts.findings.push(Finding::illegal_move(m));
        }
        Sink::<Facts>::begin_game(self, info, facts)?;
        if let Some(slot) = &mut self.current {
            slot.replay = Some(Box::new(game.replay));
        }
        Ok(())
    }

    fn bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        Sink::<Facts>::bytes(self, offset, data)
    }

    fn chunk_merged(&mut self) -> io::Result<()> {
        Sink::<Facts>::chunk_merged(self)
    }
}

/// The tag pairs (name, raw value) of a game's header, read from its bytes by
/// the scanner's rules for tag lines. A reader of its own rather than the
/// scanner: this one is asked lazily, per game, and the scanner's byte-by-byte
/// state machine costs 40 % more per header (0.97 µs against 0.71 µs on the
/// real corpus in Python's `game.headers`). A property test holds the two equal
/// on the games the scanner cuts out of random PGN-ish bytes.
///
/// `input_start`: the game begins the input. Only there is a UTF-8 byte order
/// mark skipped; anywhere else a line that begins with one is not a tag line
/// (for the scanner too), so it is a preamble line of the game.
fn tag_pairs(raw: &[u8], input_start: bool) -> Vec<(&[u8], &[u8])> {
    // Most headers hold 7 to 20 pairs: one allocation, not four.
    let mut pairs = Vec::with_capacity(16);
    each_pair(raw, input_start, |name, value| {
        pairs.push((name, value));
        ControlFlow::Continue(())
    });
    pairs
}

/// Calls `f` with each tag pair of [`tag_pairs`], in order, until it breaks:
/// a lookup of one tag reads the header only up to that tag.
fn each_pair<'a>(
    raw: &'a [u8],
    input_start: bool,
    f: impl FnMut(&'a [u8], &'a [u8]) -> ControlFlow<()>,
) {
    each_pair_from(raw, LinePlace::start(raw, input_start), f, |_| {});
}

/// Where the tag reader ([`each_pair_from`]) stands between two lines of a
/// game's bytes: all it carries from one line to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LinePlace {
    /// Where the next line begins.
    pub(crate) at: usize,
    /// Whether a tag line came before it (the first other line then starts
    /// the movetext; before, it is a preamble line).
    pub(crate) in_header: bool,
}

impl LinePlace {
    /// The start of a game's bytes: only the input's first game may begin
    /// with a byte order mark to skip.
    pub(crate) fn start(raw: &[u8], input_start: bool) -> LinePlace {
        let bom = crate::pgn::scan::BOM;
        LinePlace {
            at: if input_start && raw.starts_with(&bom) {
                bom.len()
            } else {
                0
            },
            in_header: false,
        }
    }
}

/// [`each_pair`] from `place` on, calling `line_read` with the place after
/// each tag line once its pairs are read.
///
/// One pass over the bytes, line by line, each line read once: a tag line's
/// pairs are read where they lie, and only the rest of a line after its last
/// pair is searched for the line's end (looking for each line's end first,
/// then reading the line, cost twice as much on headers of short lines).
/// What it decides about a line depends only on the line's bytes and the
/// byte after its end (a `\r` may be followed by `\n`), which
/// [`last_header`] relies on.
pub(crate) fn each_pair_from<'a>(
    raw: &'a [u8],
    place: LinePlace,
    mut f: impl FnMut(&'a [u8], &'a [u8]) -> ControlFlow<()>,
    mut line_read: impl FnMut(LinePlace),
) {
    let LinePlace {
        mut at,
        mut in_header,
    } = place;
    while at < raw.len() {
        if raw[at] == b'%' {
            // An escape line: skipped wherever it lies.
            at = next_line(raw, at);
            continue;
        }
        let text = skip_blanks(raw, at);
        match raw.get(text) {
            None => return,
            Some(b'\n' | b'\r') => at = next_line(raw, text),
            Some(b'[') => {
                in_header = true;
                match read_pairs(raw, text + 1, &mut f) {
                    ControlFlow::Break(()) => return,
                    ControlFlow::Continue(stop) => at = next_line(raw, stop),
                }
                line_read(LinePlace { at, in_header });
            }
            // The first other line after the tag lines starts the movetext;
            // before them, it is a preamble line.
            Some(_) if in_header => return,
            Some(_) => at = next_line(raw, text),
        }
    }
}

/// Where the line after the one that holds `raw[from]` begins (`raw.len()`
/// after the last); a line ends with `\n`, `\r\n` or `\r`.
#[inline]
fn next_line(raw: &[u8], from: usize) -> usize {
    let end = match raw.get(from) {
        None => return raw.len(),
        Some(b'\n' | b'\r') => from,
        Some(_) => match memchr::memchr2(b'\n', b'\r', &raw[from..]) {
            Some(n) => from + n,
            None => return raw.len(),
        },
    };
    if raw[end] == b'\r' && raw.get(end + 1) == Some(&b'\n') {
        end + 2
    } else {
        end + 1
    }
}

/// The first byte from `at` on that is not a space or a tab.
#[inline]
fn skip_blanks(raw: &[u8], mut at: usize) -> usize {
    while matches!(raw.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

fn is_line_end(byte: Option<&u8>) -> bool {
    matches!(byte, None | Some(b'\n' | b'\r'))
}

/// Reads the pairs of the tag line that goes on at `raw[at]`, just after its
/// first `[`, as the scanner does: a pair that does not close ends the reading
/// of the line. `Continue` with where the reading stopped, on the same line.
#[inline]
fn read_pairs<'a>(
    raw: &'a [u8],
    mut at: usize,
    f: &mut impl FnMut(&'a [u8], &'a [u8]) -> ControlFlow<()>,
) -> ControlFlow<(), usize> {
    loop {
        at = skip_blanks(raw, at);
        let name_start = at;
        at = name_stop(raw, at);
        if at == name_start {
            return ControlFlow::Continue(at);
        }
        let name = &raw[name_start..at];
        // Each step checks the usual bytes first (`Name "value"]` and the
        // line end): the searches for blanks between the parts of a pair
        // were the largest line of the index.
        if raw.get(at..at + 2) == Some(b" \"") {
            at += 2;
        } else {
            at = skip_blanks(raw, at);
            if raw.get(at) != Some(&b'"') {
                return ControlFlow::Continue(at);
            }
            at += 1;
        }
        let value_start = at;
        // The closing quote, on this line; a backslash escapes the byte
        // after it (a line end is not escaped: the pair is then unclosed).
        loop {
            at = value_stop(raw, at);
            match raw.get(at) {
                Some(b'"') => break,
                Some(b'\\') if !is_line_end(raw.get(at + 1)) => at += 2,
                Some(b'\\') => return ControlFlow::Continue(at + 1),
                _ => return ControlFlow::Continue(at),
            }
        }
        let value = &raw[value_start..at];
        if raw.get(at + 1) == Some(&b']') {
            at += 1;
        } else {
            at = skip_blanks(raw, at + 1);
            if raw.get(at) != Some(&b']') {
                return ControlFlow::Continue(at);
            }
        }
        f(name, value)?;
        if is_line_end(raw.get(at + 1)) {
            return ControlFlow::Continue(at + 1);
        }
        at = skip_blanks(raw, at + 1);
        if raw.get(at) != Some(&b'[') {
            return ControlFlow::Continue(at);
        }
        at += 1;
    }
}

/// The first byte from `at` on that stops the reading of a tag value (a
/// quote, a backslash or a line-end byte), or `raw.len()`. Values are read
/// eight bytes at a time: a byte-by-byte loop was the largest part of
/// indexing the tags of a game for Python's `headers`.
#[inline]
fn value_stop(raw: &[u8], mut at: usize) -> usize {
    while let Some(word) = raw.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let stops = word_has(word, b'"')
            | word_has(word, b'\\')
            | word_has(word, b'\n')
            | word_has(word, b'\r');
        if stops != 0 {
            return at + (stops.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while raw
        .get(at)
        .is_some_and(|b| !matches!(b, b'"' | b'\\' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// Whether `byte` ends a tag name: a blank, the value's quote, `]` or a
/// line-end byte.
#[inline]
fn ends_name(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r')
}

/// The first byte from `at` on that ends a tag name ([`ends_name`]), or
/// `raw.len()`. Names are read eight bytes at a time, as values are (with
/// the checks of the pair's usual bytes, the index of a header took 22 %
/// fewer instructions than with a loop over each byte). The word test looks
/// for bytes below `!` (blanks and line ends, but also other control bytes)
/// and for `"` and `]`; a control byte that ends no name goes on a byte at a
/// time.
#[inline]
fn name_stop(raw: &[u8], mut at: usize) -> usize {
    while let Some(word) = raw.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let stops = word_below(word, b'!') | word_has(word, b'"') | word_has(word, b']');
        if stops != 0 {
            at += (stops.trailing_zeros() / 8) as usize;
            if ends_name(raw[at]) {
                return at;
            }
            break;
        }
        at += 8;
    }
    while raw.get(at).is_some_and(|&b| !ends_name(b)) {
        at += 1;
    }
    at
}

/// Tag pairs (name, raw value) borrowed from a game's bytes.
#[cfg(test)]
type TagPairs<'a> = Vec<(&'a [u8], &'a [u8])>;

#[cfg(test)]
/// The games of a whole input as the game scanner cuts them, each with the
/// tag pairs it reports for it (what `export` reads): the oracle of the
/// property test below. The scan is of the whole input, fed in pieces of
/// `piece` bytes, since a game read on its own may read differently (a line
/// that begins with a byte order mark is a tag line only at the input's start).
fn games_by_scanner(input: &[u8], piece: usize) -> Vec<(usize, TagPairs<'_>)> {
    let mut scanner = Scanner::new().with_all_pairs();
    let mut events = Vec::new();
    for piece in input.chunks(piece.max(1)) {
        scanner.feed(piece, &mut events);
    }
    scanner.finish(&mut events);
    let slice = |r: std::ops::Range<u64>| &input[r.start as usize..r.end as usize];
    let mut games: Vec<(usize, TagPairs<'_>)> = Vec::new();
    for event in events {
        match event {
            Event::GameStart { offset, .. } => games.push((offset as usize, Vec::new())),
            Event::Pair { name, value } => games
                .last_mut()
                .expect("a pair belongs to a game")
                .1
                .push((slice(name), slice(value))),
            _ => {}
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// PGN-ish bytes: tag lines (well formed or not, several on a line,
    /// escapes), blank and `%` lines, comments, movetext, CR/LF mixes, a BOM.
    fn pgnish() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(&b"["[..]),
            Just(&b"]"[..]),
            Just(&b"\""[..]),
            Just(&b"\\"[..]),
            Just(&b"\\\""[..]),
            Just(&b" "[..]),
            Just(&b"\t"[..]),
            Just(&b"\n"[..]),
            Just(&b"\r\n"[..]),
            Just(&b"\r"[..]),
            Just(&b"\n\n"[..]),
            Just(&b"%"[..]),
            Just(&b"{"[..]),
            Just(&b"}"[..]),
            Just(&b";"[..]),
            Just(&b"\xEF\xBB\xBF"[..]),
            Just(&b"[Event \"a b\"]\n"[..]),
            Just(&b"[FEN \"8/8 w\"] [SetUp \"1\"]\n"[..]),
            Just(&b"[White \"x\\\"y\"]\n"[..]),
            Just(&b"[A\"v\"]"[..]),
            Just(&b"1. e4 e5 *"[..]),
            Just(&b"1-0"[..]),
            Just(&b"Name"[..]),
            Just(&b"\"value\""[..]),
            Just(&b"[Na\xFFme \"\xE9\"]\n"[..]),
            Just(&b"[Event \"again\"]"[..]),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// One tag looked up is the first pair of that name of every tag read.
        #[test]
        fn one_tag_is_the_first_of_its_name(input in pgnish(), encoding in 0..3usize) {
            let encoding = [Encoding::Auto, Encoding::Utf8, Encoding::Latin1][encoding];
            let game = game_of(&input);
            let all: Vec<_> = game.tags_in(encoding).collect();
            for (name, _) in &all {
                let first = &all.iter().find(|(n, _)| n == name).unwrap().1;
                let one = game.tag_in(name, encoding);
                prop_assert_eq!(one.as_ref(), Some(first));
            }
            prop_assert_eq!(game.tag_in("Round", encoding), None);
        }

        /// The fast reader reads the pairs the scanner reports, game by game.
        #[test]
        fn the_fast_reader_agrees_with_the_scanner(input in pgnish(), piece in 1usize..600) {
            let games = games_by_scanner(&input, piece);
            for (i, (start, pairs)) in games.iter().enumerate() {
                let end = games.get(i + 1).map_or(input.len(), |g| g.0);
                let raw = &input[*start..end];
                prop_assert_eq!(&tag_pairs(raw, *start == 0), pairs, "{:?}", String::from_utf8_lossy(raw));
            }
        }

        /// A word at a time finds the stop of a value, and the end of a
        /// name, that a byte at a time would, whatever bytes precede and
        /// follow it: a borrow in the word trick sets bits past the first
        /// stop (for a byte that differs from a stop byte in the lowest bit,
        /// such as `#` after `"`, `]` after `\\`), and the name's test also
        /// stops at control bytes that end no name (`\x0b`, `\x00`, ...).
        #[test]
        fn stops_are_found_a_word_at_a_time(
            raw in prop::collection::vec(prop::sample::select(b" \t\"\\]\n\ra#[!\x0b\x0c\x00\x1f\x7f\x80\xff".to_vec()), 0..40),
            at in 0usize..41,
        ) {
            let at = at.min(raw.len());
            let ends_value = |b: u8| matches!(b, b'"' | b'\\' | b'\n' | b'\r');
            let byte_by_byte = |stop: &dyn Fn(u8) -> bool| {
                raw[at..].iter().position(|&b| stop(b)).map_or(raw.len(), |n| at + n)
            };
            prop_assert_eq!(value_stop(&raw, at), byte_by_byte(&ends_value));
            prop_assert_eq!(name_stop(&raw, at), byte_by_byte(&ends_name));
        }
    }

    proptest! {
        // Each case runs the pipeline on a file: fewer cases than the readers'.
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Batches cut anywhere (chunks of a few bytes to a few hundred): the
        /// games' bytes, end to end, are the input.
        #[test]
        fn batches_give_every_byte_once_in_order(
            input in pgnish(),
            copies in 1usize..30,
            chunk in 16usize..700,
            index_from in 0usize..40,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let data = input.repeat(copies);
            let path = write(&dir, "a.pgn", &data);
            let options = Options { chunk_sizes: (chunk, 2 * chunk), threads: 2, ..Options::default() };
            let mut stream = Archive::open([&path]).unwrap().with_options(options).games();
            let mut games = Vec::new();
            while let Some(game) = stream.next() {
                if games.len() == index_from {
                    // From some batch on (maybe none), the tags come indexed.
                    stream.index_tags();
                }
                games.push(game.unwrap());
            }
            let mut offset = 0;
            for (i, g) in games.iter().enumerate() {
                prop_assert_eq!((g.game, g.offset, g.raw().len() as u64), (i as u64 + 1, offset, g.length));
                offset += g.length;
                // The pipeline's index of the tags, when there is one, gives
                // the pairs that reading the bytes gives.
                let read = tag_pairs(g.raw(), g.offset == 0);
                prop_assert_eq!(g.raw_tags().collect::<Vec<_>>(), read);
            }
            let raw: Vec<u8> = games.iter().flat_map(|g| g.raw().iter().copied()).collect();
            let blank = |line: &[u8]| line.first() == Some(&b'%') || skip_blanks(line, 0) == line.len();
            let text = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&data);
            if text.split(|b| *b == b'\n' || *b == b'\r').all(blank) {
                // Blank and escape lines only, after a byte order mark at the
                // start: no game (docs/games.md).
                prop_assert!(games.is_empty());
            } else {
                prop_assert_eq!(raw, data);
            }
        }
    }

    #[test]
    fn an_emptied_batch_is_handed_back_empty_unless_too_large() {
        let batch = |bytes: usize| Batch {
            bytes: Vec::with_capacity(bytes),
            files: vec!["a.pgn".into()],
            games: Vec::new(),
            pairs: vec![PairSpan {
                name: [1, 2],
                value: [4, 5],
            }],
        };
        let mut unpacking = Unpacking::new(batch(1 << 20));
        unpacking.batch.bytes.extend_from_slice(b"[A \"b\"]\n");
        let empty = unpacking.into_empty().expect("a batch of 1 MiB is kept");
        assert!(
            empty.bytes.is_empty()
                && empty.files.is_empty()
                && empty.pairs.is_empty()
                && empty.games.is_empty()
        );
        assert!(empty.bytes.capacity() >= 1 << 20);
        // After a huge game, the memory goes.
        assert!(
            Unpacking::new(batch(SPARE_BYTES + 1))
                .into_empty()
                .is_none()
        );
    }

    #[test]
    fn games_come_with_their_tags_indexed_once_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "a.pgn", &GAME.repeat(3000));
        let options = Options {
            chunk_sizes: (256, 512),
            threads: 2,
            ..Options::default()
        };
        let stream = Archive::open([&path])
            .unwrap()
            .with_options(options)
            .games();
        stream.index_tags();
        let games: Vec<Game> = stream.collect::<Result<_, _>>().unwrap();
        // Only the games already on their way (a few batches) come without.
        let indexed = games.iter().filter(|g| g.bytes.spans().is_some()).count();
        assert!(indexed > 2500, "{indexed} of {}", games.len());
        let last = games.last().unwrap();
        assert!(last.bytes.spans().is_some());
        assert_eq!(last.raw_tags().count(), 3);
        assert_eq!(
            last.tag_in("FEN", Encoding::Auto).unwrap(),
            "8/8/8/8/8/8/8/8 w - - 0 1"
        );
        // A clone keeps the index, which holds for its bytes as well.
        let clone = last.clone();
        assert!(clone.bytes.spans().is_some());
        assert_eq!(clone.headers(), last.headers());
        // The index shares the game's allocation: the bytes handed out are
        // the game's only, and an indexed game equals the same game without.
        let plain = Game {
            bytes: GameBytes::plain(last.raw().to_vec()),
            ..last.clone()
        };
        assert_eq!(&plain, last);
        assert!(plain.bytes.spans().is_none());
        assert_eq!(
            plain.raw_tags().collect::<Vec<_>>(),
            last.raw_tags().collect::<Vec<_>>()
        );
        assert_eq!(clone.into_raw(), last.raw());
        // Without asking, none is.
        let games = Archive::open([&path]).unwrap().games();
        assert!(games.map(Result::unwrap).all(|g| g.bytes.spans().is_none()));
    }

    /// Found by the property test: a byte order mark that begins a line after
    /// the first game is garbage there, not the start of a tag line, for the
    /// scanner; the fast reader read that line's pairs as the next game's.
    #[test]
    fn a_byte_order_mark_past_the_input_start_begins_no_tag_line() {
        let input = b"[Event \"a b\"]\n1. e4 e5 *\n\xEF\xBB\xBF[Event \"x\"]\n\n[Event \"y\"]\n";
        let games = games_by_scanner(input, 512);
        assert_eq!(games.len(), 2);
        let (start, pairs) = &games[1];
        assert_eq!(pairs, &vec![(&b"Event"[..], &b"y"[..])]);
        assert_eq!(&tag_pairs(&input[*start..], false), pairs);
        // The same bytes at the input's start: there the mark is skipped.
        assert_eq!(
            names(&input[*start..]),
            vec![pair("Event", "x"), pair("Event", "y")]
        );
    }

    fn names(raw: &[u8]) -> Vec<(String, String)> {
        tag_pairs(raw, true)
            .into_iter()
            .map(|(n, v)| {
                (
                    String::from_utf8_lossy(n).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect()
    }

    fn pair(n: &str, v: &str) -> (String, String) {
        (n.to_string(), v.to_string())
    }

    #[test]
    fn reads_the_header_and_stops_at_the_movetext() {
        let raw = b"\xEF\xBB\xBFpreamble [No \"x\"]\r\n[A \"1\"]\r\n\r\n% escape\r\n [B \"two words\"]\r1. e4 [C \"z\"]\n[D \"late\"]\n";
        assert_eq!(names(raw), vec![pair("A", "1"), pair("B", "two words")]);
    }

    #[test]
    fn several_pairs_on_a_line_and_escapes() {
        let raw = br#"[A "x"] [B "a\"b\\"]  [C "y"] junk [D "z"]"#;
        assert_eq!(
            names(raw),
            vec![pair("A", "x"), pair("B", r#"a\"b\\"#), pair("C", "y")]
        );
    }

    #[test]
    fn malformed_pairs_end_the_line() {
        assert_eq!(
            names(b"[A \"unterminated]\n[B \"ok\"]\n"),
            vec![pair("B", "ok")]
        );
        assert_eq!(
            names(b"[A]\n[ \"v\"]\n[C \"v\" x]\n[D\"v\"]"),
            vec![pair("D", "v")]
        );
        assert_eq!(names(b"[A \"v\\"), vec![]);
        assert!(names(b"").is_empty());
    }

    #[test]
    fn headers_are_unescaped() {
        let game = Game {
            file: Arc::from(""),
            game: 1,
            offset: 0,
            length: 0,
            line: 1,
            class: Class::Standard,
            chess960_position: None,
            problems: Vec::new(),
            bytes: GameBytes::plain(b"[White \"O\\\"Neil \\\\ \xC3\xA9\xFF\"]\n".to_vec()),
            replay: None,
        };
        assert_eq!(
            game.tags_in(Encoding::Utf8)
                .map(|(n, v)| (n.into_owned(), v.into_owned()))
                .collect::<Vec<_>>(),
            vec![pair("White", "O\"Neil \\ \u{e9}\u{fffd}")]
        );
        // Not valid UTF-8 as a whole: the value is read as Windows-1252.
        assert_eq!(
            game.headers(),
            vec![pair("White", "O\"Neil \\ \u{c3}\u{a9}\u{ff}")]
        );
    }

    #[test]
    fn one_tag_is_the_first_pair_of_that_name_decoded_as_all_are() {
        let raw = b"[White \"O\\\"Neil\"] [Black \"b\"]\n[White \"second\"]\n[Na\xFFme \"\xE9\"]\n\n1. e4 *\n";
        let game = game_of(raw);
        for encoding in [Encoding::Auto, Encoding::Utf8, Encoding::Latin1] {
            let all: Vec<_> = game.tags_in(encoding).collect();
            for (name, _) in &all {
                let first = &all.iter().find(|(n, _)| n == name).unwrap().1;
                assert_eq!(game.tag_in(name, encoding).as_ref(), Some(first), "{name}");
            }
            assert_eq!(game.tag_in("Event", encoding), None);
        }
        assert_eq!(game.tag_in("White", Encoding::Auto).unwrap(), "O\"Neil");
        assert_eq!(
            game.tag_in("Na\u{ff}me", Encoding::Latin1).unwrap(),
            "\u{e9}"
        );
    }

    /// A game of these bytes, the first of its input.
    fn game_of(raw: &[u8]) -> Game {
        Game {
            file: Arc::from("a.pgn"),
            game: 1,
            offset: 0,
            length: raw.len() as u64,
            line: 1,
            class: Class::Standard,
            chess960_position: None,
            problems: Vec::new(),
            bytes: GameBytes::plain(raw.to_vec()),
            replay: None,
        }
    }

    #[test]
    fn games_read_with_moves_carry_the_replay_the_check_finds() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[Event \"legal\"]\n\n1. e4 e5 2. Nf3 *\n\n\
                    [Event \"illegal\"]\n[SetUp \"1\"]\n\
                    [FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. Kd2 Kd7 2. Kc9 *\n\n\
                    [Event \"crc\"]\n[Variant \"CRC\"]\n\n1. e4 *\n\n";
        let path = write(&dir, "m.pgn", text.as_bytes());
        // Small chunks: games finished by the merger are replayed too.
        for chunk_sizes in [(1 << 20, 1 << 20), (64, 128)] {
            let options = Options {
                chunk_sizes,
                threads: 2,
                ..Options::default()
            };
            let archive = Archive::open([&path])
                .unwrap()
                .with_options(options)
                .moves(MovesMode::All);
            let games: Vec<Game> = archive.games().collect::<Result<_, _>>().unwrap();
            let replays: Vec<_> = games.iter().map(|g| g.replay().cloned()).collect();
            assert_eq!(replays[0], Some(Replay::Passed));
            let illegal = replays[1].as_ref().and_then(Replay::illegal).unwrap();
            assert_eq!(
                (illegal.ply, illegal.token.as_str(), illegal.line),
                (3, "Kc9", 9)
            );
            let problem = games[1].problems.last().unwrap();
            assert_eq!((problem.code, problem.line), (Code::IllegalMove, 9));
            assert!(games[0].problems.is_empty());
            assert_eq!(replays[2], Some(Replay::NotChecked));
        }
        // The first move only: the illegal third ply is not reached.
        let first = Archive::open([&path]).unwrap().moves(MovesMode::First);
        let games: Vec<Game> = first.games().collect::<Result<_, _>>().unwrap();
        assert_eq!(games[1].replay(), Some(&Replay::Passed));
        // Without asking, no game carries one.
        let plain = Archive::open([&path]).unwrap().games();
        assert!(plain.map(Result::unwrap).all(|g| g.replay().is_none()));
    }

    fn write(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, data).unwrap();
        path
    }

    const GAME: &[u8] =
        b"[Event \"e\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n\n";

    #[test]
    fn games_stream_in_order_with_their_problems() {
        let dir = tempfile::tempdir().unwrap();
        let data = GAME.repeat(2000);
        let path = write(&dir, "a.pgn", &data);
        let games: Vec<Game> = Archive::open([&path])
            .unwrap()
            .threads(3)
            .games()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(games.len(), 2000);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.game, i as u64 + 1);
            assert_eq!(g.offset, (i * GAME.len()) as u64);
            assert_eq!(g.line, (i * 6 + 1) as u64);
            assert_eq!(g.raw(), GAME);
            assert_eq!(g.class, Class::Malformed);
            // No kings: an error on the FEN tag, placed on its line.
            assert_eq!(g.problems[0].code, Code::IllegalPosition);
            assert_eq!((g.problems[0].tag, g.problems[0].line), ("FEN", g.line + 2));
        }
    }

    /// Batches end at chunk ends, inside games and between inputs: every
    /// game still comes whole, with its own file, number and offset.
    #[test]
    fn games_cut_across_batches_come_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let long = format!("[Event \"long\"]\n\n{{{}}} 1. e4 *\n\n", "x".repeat(10_000));
        let mut first = Vec::new();
        for i in 0..300 {
            first.extend_from_slice(if i % 7 == 3 { long.as_bytes() } else { GAME });
        }
        let files = [
            write(&dir, "a.pgn", &first),
            write(&dir, "empty.pgn", b""),
            write(&dir, "b.pgn", &GAME.repeat(3)),
        ];
        for keep_raw in [true, false] {
            let options = Options {
                chunk_sizes: (4096, 8192),
                threads: 2,
                ..Options::default()
            };
            let mut archive = Archive::open(&files).unwrap().with_options(options);
            if !keep_raw {
                archive = archive.without_raw();
            }
            let games: Vec<Game> = archive.games().collect::<Result<_, _>>().unwrap();
            assert_eq!(games.len(), 303);
            for (path, data) in [(&files[0], &first[..]), (&files[2], &GAME.repeat(3)[..])] {
                let name = path.display().to_string();
                let mine: Vec<&Game> = games.iter().filter(|g| *g.file == *name).collect();
                let mut offset = 0;
                for (i, g) in mine.iter().enumerate() {
                    assert_eq!((g.game, g.offset), (i as u64 + 1, offset));
                    offset += g.length;
                    if keep_raw {
                        assert_eq!(g.raw().len() as u64, g.length);
                        assert_eq!(&data[g.offset as usize..offset as usize], g.raw());
                    } else {
                        assert!(g.raw().is_empty());
                    }
                }
                assert_eq!(offset, data.len() as u64);
            }
        }
    }

    #[test]
    fn batches_of_tiny_games_with_problems_stay_small() {
        // 11 bytes a game, each with a problem: a chunk of 1 MiB holds
        // 95,000 of them, whose slots and problems are 50 MB.
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "tiny.pgn", &b"[FEN \"x\"]\n\n".repeat(200_000));
        let stream = Archive::open([&path]).unwrap().threads(2).games();
        let rx = stream.rx.clone().unwrap();
        let (mut games, mut batches) = (0, 0);
        while let Ok(batch) = rx.recv() {
            let batch = batch.unwrap();
            assert!(batch.games.iter().all(|g| !g.problems.is_empty()));
            // The weight of its games passed the limit with its last game.
            let most = BATCH_WEIGHT / std::mem::size_of::<GameProblem>() + 1;
            assert!(batch.games.len() <= most, "{} games", batch.games.len());
            games += batch.games.len();
            batches += 1;
        }
        assert_eq!(games, 200_000);
        assert!(batches >= 20, "{batches} batches");
    }

    #[test]
    fn headers_skip_a_byte_order_mark_only_at_the_input_start() {
        let dir = tempfile::tempdir().unwrap();
        let data = b"\xEF\xBB\xBF[Event \"first\"]\n\n1. e4 *\n\xEF\xBB\xBF[Event \"no\"]\n\n[Event \"second\"]\n\n1. d4 *\n";
        let path = write(&dir, "a.pgn", data);
        let games: Vec<Game> = Archive::open([&path])
            .unwrap()
            .games()
            .collect::<Result<_, _>>()
            .unwrap();
        let headers: Vec<_> = games.iter().map(Game::headers).collect();
        assert_eq!(
            headers,
            vec![vec![pair("Event", "first")], vec![pair("Event", "second")]]
        );
        // The garbage line is the second game's first bytes, kept as written.
        assert!(games[1].raw().starts_with(b"\xEF\xBB\xBF[Event \"no\"]"));
    }

    #[test]
    fn a_missing_file_is_reported_by_name() {
        let err = Archive::open(["no/such.pgn"]).unwrap_err();
        assert_eq!(err.file, "no/such.pgn");
        assert_eq!(err.error.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_corrupt_stream_ends_the_games_with_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut data = zstd::encode_all(&GAME.repeat(5000)[..], 1).unwrap();
        // A frame cut short: decompression fails partway.
        data.truncate(data.len() / 2);
        let path = write(&dir, "a.pgn.zst", &data);
        let items: Vec<_> = Archive::open([&path]).unwrap().games().collect();
        let last = items.last().unwrap();
        assert!(matches!(last, Err(RunError::Input(e)) if e.file.ends_with("a.pgn.zst")));
        assert!(items[..items.len() - 1].iter().all(Result::is_ok));
    }

    #[test]
    fn dropping_the_iterator_stops_the_pipeline() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "big.pgn", &GAME.repeat(400_000)); // ~30 MB
        let started = std::time::Instant::now();
        let mut games = Archive::open([&path]).unwrap().threads(2).games();
        assert_eq!(games.next().unwrap().unwrap().game, 1);
        drop(games); // joins the background thread
        assert!(started.elapsed() < Duration::from_secs(5));
        let mut games = Archive::open([&path]).unwrap().games();
        let first = games.next_timeout(Duration::from_secs(10));
        assert!(matches!(first, Some(Some(Ok(ref g))) if g.game == 1));
    }
}
