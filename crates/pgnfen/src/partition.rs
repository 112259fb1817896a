//! Partitions: the same work as a one-machine run, cut into pieces that can run
//! anywhere (a Dask cluster) and be combined into exactly the one-machine result.
//!
//! [`plan`] cuts each input into partitions: byte ranges of a plain file, ranges
//! of whole frames of a zstd file of several frames (pzstd's, the lichess
//! database's); any other input (gzip, bzip2, xz, a one-frame zstd, zip) is
//! one partition. A partition *owns the games that start in it*: a run of it
//! ([`Partition::stats`], [`Partition::filter`], `Partition::export_batches`) reads it
//! from its first game to the end of the last game that starts in it, reading
//! past its end as far as that game goes.
//!
//! Where a partition's first game starts is not known without reading what came
//! before, so the first run is speculative: it guesses the first likely game
//! start (a line beginning with `[` after a blank line, as the pipeline's chunks
//! do). The run reports where the game after its own games starts
//! ([`Outcome::next`]); that is where the next partition's first game truly
//! starts. [`judge`] compares it with the next partition's guess: when they
//! differ (the guess fell inside a comment holding a blank line and a tag line,
//! or a game started without a blank line before it) the partition is run again
//! from the right place ([`Start::At`]), or found to own no game at all. Walking
//! the partitions of a file in order this way (`pgnfen.dask` does it on a
//! cluster) gives every game to exactly one
//! partition, so counts, rows and `filter` outputs combine to the one-machine
//! result, byte for byte.
//!
//! Coordinates: a partition's offsets are counted in its decoded bytes from its
//! own start ([`Outcome::decoded_len`] of them are its own). The offset, line
//! and game number of a row in the whole input come from [`Bases`], the sums
//! over the partitions before it, known once the partitions before it are
//! resolved.
//!
//! ```
//! use pgnfen::partition;
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("games.pgn");
//! # let game = "[Event \"e\"]\n\n1. e4 e5 *\n\n";
//! # std::fs::write(&path, game.repeat(1000))?;
//! // About 8 KiB per partition: a cluster worker reads each one at its offset.
//! let parts = partition::plan(&[&path], 8 << 10)?;
//! assert!(parts.len() > 1);
//! assert_eq!(parts[0].index, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;
use crate::pipeline::chunk::first_likely_start;
use crate::pipeline::source::{Compression, Unnested, ZstdReader};
use crate::pipeline::{self, GameInfo, Input, Job, RunError, Sink, frames};

/// How a partition's bytes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A byte range of a plain file.
    Plain,
    /// A range of whole frames of a zstd file (compressed byte offsets).
    ZstdFrames,
    /// A whole input that cannot be cut (gzip, bzip2, xz, a one-frame zstd, zip).
    Whole,
}

/// One partition of an input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Partition {
    /// The file.
    pub path: PathBuf,
    /// How its bytes are read.
    pub kind: Kind,
    /// Its position among its file's partitions (0 for the first).
    pub index: usize,
    /// The byte range of the file it covers (compressed bytes for zstd frames;
    /// the whole file for [`Kind::Whole`]).
    pub start: u64,
    /// End of the byte range (exclusive).
    pub end: u64,
}

impl Partition {
    /// Counts the games this partition owns, as [`crate::stats::run`] counts
    /// an archive: the counts (which add up over the partitions of a file
    /// to the one-machine counts once every partition is resolved) and the
    /// run's outcome, to judge by [`judge`].
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read.
    pub fn stats(
        &self,
        start: Start,
        options: &pipeline::Options,
    ) -> Result<(crate::stats::Counts, Outcome), Error> {
        self.stats_selected(start, &crate::select::Selector::default(), None, options)
    }

    /// [`Partition::stats`] of the games `selector` keeps (`stats --tag`
    /// and `--speed`): the others are counted in
    /// [`crate::stats::Counts::unmatched`], as one machine counts them. An
    /// empty selector counts every game, and the counts say nothing of a
    /// selection. With `moves`, each game's mainline is replayed (`stats
    /// --moves`; [`crate::stats::Counts::moves`]): a partition reads on
    /// past its end to its last game's end, so that game's movetext is
    /// whole.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a selector that names too many tags;
    /// [`Error::Io`] when the file cannot be read.
    pub fn stats_selected(
        &self,
        start: Start,
        selector: &crate::select::Selector,
        moves: Option<crate::moves::MovesMode>,
        options: &pipeline::Options,
    ) -> Result<(crate::stats::Counts, Outcome), Error> {
        // The speed of every game is counted: its tag is read.
        let selector = selector.clone().with_time_control();
        selector.validate()?;
        let mut counts = crate::stats::Counts::before(&selector, moves);
        let outcome = crate::stats::with_stats_job!(&selector, moves, |job| run(
            self,
            start,
            None,
            job,
            &mut counts,
            options
        ))?;
        Ok((counts, outcome))
    }

    /// Writes the games this partition owns that `selection` keeps (with
    /// `moves`, those whose mainline replays without an illegal move, as
    /// `filter --moves`), byte for byte, to `kept`, and hands it back
    /// uncommitted (the caller commits it once the run is resolved): the
    /// outcome, the number of games kept, and the output. With
    /// `more_inputs_follow` (the file is not the last of the run), a last
    /// game without a final line end gets one, as on one machine, where the
    /// next input adds it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read or `kept` written.
    pub fn filter(
        &self,
        start: Start,
        selection: &crate::filter::Selection,
        moves: Option<crate::moves::MovesMode>,
        kept: crate::pipeline::output::Output,
        more_inputs_follow: bool,
        options: &pipeline::Options,
    ) -> Result<(Outcome, u64, crate::pipeline::output::Output), Error> {
        let mut split = crate::filter::Split::new(kept, None);
        let job = crate::filter::FilterJob(selection);
        let outcome = match moves {
            None => run(self, start, None, &job, &mut split, options)?,
            Some(mode) => {
                let job = crate::moves::WithMoves { inner: job, mode };
                run(self, start, None, &job, &mut split, options)?
            }
        };
        if more_inputs_follow {
            // As on one machine, where the next input's start ends the line
            // (only the partition that ends its file can have one open).
            split
                .end_open_line()
                .map_err(|e| Error::from(pipeline::RunError::Sink(e)))?;
        }
        Ok((outcome, split.kept_games, split.kept))
    }
}

/// Partitions one plan holds at most: a million partitions are already far
/// more tasks than a cluster schedules well, and a partition size of a few
/// bytes would otherwise plan one per byte of the inputs (a gigabyte's worth
/// of partitions would not fit in memory).
pub const MAX_PARTITIONS: u64 = 1 << 20;

/// Cuts every file into partitions of about `target` bytes (of the file as
/// stored: compressed bytes for zstd), in input order.
///
/// # Errors
///
/// [`Error::Io`] naming a file that cannot be read; [`Error::Usage`] for
/// standard input (`-`), which cannot be read at an offset, and for a
/// `target` so small that the plan would hold more than [`MAX_PARTITIONS`].
pub fn plan<P: AsRef<Path>>(paths: &[P], target: u64) -> Result<Vec<Partition>, Error> {
    let target = target.max(1);
    let mut parts = Vec::new();
    for path in paths {
        let path = path.as_ref();
        if path.as_os_str() == "-" {
            return Err(crate::error::Usage::PartitionOfStdin.into());
        }
        let io_err = |source| Error::Io {
            file: path.display().to_string(),
            error: source,
        };
        // A folder is refused as one machine refuses it (File::open of a
        // folder succeeds, and the read that follows fails otherwise).
        crate::error::check_readable(path).map_err(io_err)?;
        let file = File::open(path).map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        // As many bytes as the magic of every known format needs (a tar header).
        let head = crate::pipeline::source::head_of(&file).map_err(io_err)?;
        let ranges: Vec<(Kind, std::ops::Range<u64>)> = match Compression::sniff(&head) {
            // Refused here already: plain partitions of a tar would be read as PGN.
            // (The same message as on one machine.)
            Compression::Refused(what) => {
                return Err(io_err(crate::pipeline::source::refused(what)));
            }
            // (A file cut inside magic bytes: refused as on one machine.)
            Compression::None => {
                crate::pipeline::source::refuse_cut_magic(
                    &head,
                    head.len() < crate::pipeline::source::MAGIC_LEN,
                )
                .map_err(io_err)?;
                let count = len.div_ceil(target).max(1);
                refuse_too_many(parts.len() as u64 + count, target)?;
                (0..count)
                    .map(|i| (Kind::Plain, i * target..((i + 1) * target).min(len)))
                    .collect()
            }
            Compression::Zstd if frames::several_frames(&file, len) => {
                // As many as the frames at most, so counted once made.
                let ranges = frames::partitions(&file, target).map_err(io_err)?;
                refuse_too_many((parts.len() + ranges.len()) as u64, target)?;
                ranges.into_iter().map(|r| (Kind::ZstdFrames, r)).collect()
            }
            _ => vec![(Kind::Whole, 0..len)],
        };
        parts.extend(
            ranges
                .into_iter()
                .enumerate()
                .map(|(index, (kind, r))| Partition {
                    path: path.to_path_buf(),
                    kind,
                    index,
                    start: r.start,
                    end: r.end,
                }),
        );
    }
    Ok(parts)
}

/// Refuses a plan of `count` partitions of `target` bytes when that is more
/// than [`MAX_PARTITIONS`] (for a plain file, before its partitions are
/// made; a zstd file's are as many as its frames at most).
fn refuse_too_many(count: u64, target: u64) -> Result<(), Error> {
    if count > MAX_PARTITIONS {
        return Err(crate::error::Usage::TooManyPartitions { target }.into());
    }
    Ok(())
}

/// Where a run of a partition starts reading games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At the first likely game start of the partition: a guess, checked by
    /// [`judge`] against the previous partition's [`Outcome::next`]. The first
    /// partition of a file always starts at its first byte.
    Guess,
    /// At this offset (in the partition's decoded bytes), known to be a game start.
    At(u64),
}

/// What a run of a partition found out, for combining it with its neighbours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Where its first game starts (its decoded offset); `None` when no game
    /// starts in it.
    pub first: Option<u64>,
    /// Where the first game after its own starts (decoded offset, at or past
    /// [`Outcome::decoded_len`]); `None` when its last game ends the input.
    pub next: Option<u64>,
    /// Decoded bytes of the partition itself (without what was read past it).
    pub decoded_len: u64,
    /// Line ends from `first` to `next`: the lines of its games.
    pub lines: u64,
    /// Games it owns.
    pub games: u64,
    /// Whether a tag line was seen in what it read (its own bytes, and those
    /// past them that it read to finish its last game): a file in which no
    /// partition saw one gets the warning that one machine gives ("no PGN
    /// tag line found"). Always true for a zip, read whole.
    pub tag_line: bool,
}

impl Outcome {
    /// The outcome of a partition that owns no game: the game that started
    /// before it runs through it, and the next one starts at `next`.
    pub fn empty(next: Option<u64>, decoded_len: u64) -> Outcome {
        Outcome {
            first: None,
            next,
            decoded_len,
            lines: 0,
            games: 0,
            tag_line: false,
        }
    }
}

/// What to do with a partition's speculative outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The guess was right: keep its results.
    Keep,
    /// The guess was wrong: run it again from this decoded offset.
    Redo(u64),
    /// It owns no game: drop its results; its outcome is [`Outcome::empty`]
    /// with this `next` (in its own coordinates).
    Empty(Option<u64>),
}

/// Judges partition `k`'s outcome by partition `k - 1`'s final outcome
/// (`previous`; `None` for the first partition of a file, which is always
/// right: it starts at the file's first byte).
pub fn judge(previous: Option<&Outcome>, outcome: &Outcome) -> Verdict {
    let Some(previous) = previous else {
        return Verdict::Keep;
    };
    // Where this partition's first game truly starts, in its own coordinates.
    let expected = previous
        .next
        .map(|n| n.saturating_sub(previous.decoded_len));
    match expected {
        Some(at) if at < outcome.decoded_len => {
            if outcome.first == Some(at) {
                Verdict::Keep
            } else {
                Verdict::Redo(at)
            }
        }
        // The previous partition's last game runs through this one (or ends
        // the input): nothing starts here.
        _ => Verdict::Empty(expected),
    }
}

/// Where a partition's rows lie in its input: added to the offsets, lines and
/// game numbers a run counts from its own first game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bases {
    /// Decoded bytes of the input before the partition.
    pub offset: u64,
    /// Line ends of the input before the partition's first game.
    pub line: u64,
    /// Games of the input before the partition's first game.
    pub game: u64,
}

impl Bases {
    /// The bases of the partition after one with these bases and `outcome`.
    pub fn after(self, outcome: &Outcome) -> Bases {
        Bases {
            offset: self.offset + outcome.decoded_len,
            line: self.line + outcome.lines,
            game: self.game + outcome.games,
        }
    }
}

/// Runs `job` and `sink` over the games `part` owns, reading from `start`.
/// The sink sees the partition's file as its input and each game with its
/// offset, line and number in the whole input when `bases` are given
/// (relative to the partition's first game otherwise). The offsets handed to
/// the sink are counted from the partition's first game. Notes
/// ([`pipeline::Options::notes`]) are given for a zip's members, as on one
/// machine; a file in which no tag line is found is the caller's to judge,
/// from every partition's [`Outcome::tag_line`].
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read, or the sink failed.
pub(crate) fn run<J: Job, S: Sink<J::Game>>(
    part: &Partition,
    start: Start,
    bases: Option<Bases>,
    job: &J,
    sink: &mut S,
    options: &pipeline::Options,
) -> Result<Outcome, Error> {
    let name = part.path.display().to_string();
    let io_err = |source| Error::Io {
        file: name.clone(),
        error: source,
    };
    let first = match start {
        Start::At(at) => Some(at),
        Start::Guess if part.index == 0 => Some(0),
        Start::Guess => {
            let (first, len) = guess(part).map_err(io_err)?;
            if first.is_none() {
                // No likely game start in the partition: it owns nothing (the
                // combination checks that the previous partition agrees).
                return Ok(Outcome::empty(None, len));
            }
            first
        }
    };
    let first = first.unwrap_or(0);
    if part.kind == Kind::Whole && first == 0 && bases.is_none_or(|b| b == Bases::default()) {
        // A zip is read as on one machine: each member an input of its own,
        // with its own name and game numbers, not one stream of them all.
        let file = File::open(&part.path).map_err(io_err)?;
        let head = crate::pipeline::source::head_of(&file).map_err(io_err)?;
        if matches!(Compression::sniff(&head), Compression::Zip) {
            let games = pipeline::run(&[Input::File(part.path.clone())], job, sink, options)?;
            // The input's only partition: nothing comes after it to place.
            return Ok(Outcome {
                first: Some(0),
                next: None,
                decoded_len: 0,
                lines: 0,
                games,
                tag_line: true,
            });
        }
    }
    // Whether the file holds a tag line is judged over all its partitions
    // (`Outcome::tag_line`): a part of it gives no note of its own.
    let options = &pipeline::Options {
        notes: false,
        ..options.clone()
    };
    let own = Arc::new(AtomicU64::new(0));
    let (reader, own_len) = open_all(part, own.clone()).map_err(io_err)?;
    let (stream, skipped) = skip(reader, first).map_err(io_err)?;
    let decoded_len = |own: &AtomicU64| own_len.unwrap_or_else(|| own.load(Ordering::Acquire));
    if skipped < first {
        // The input ends before `first`.
        return Ok(Outcome::empty(None, decoded_len(&own)));
    }
    let input = Input::File(part.path.clone());
    let mut bounded = Bounded {
        inner: sink,
        first,
        own: own.clone(),
        own_len,
        bases,
        next: None,
        games: 0,
        lines: 0,
        tag_line: false,
    };
    // Only the file's first byte may begin a byte order mark to skip.
    let at_file_start = part.start == 0 && first == 0;
    match pipeline::run_reader(&input, stream, at_file_start, job, &mut bounded, options) {
        Ok(_) => {}
        Err(RunError::Sink(e)) if e.get_ref().is_some_and(|r| r.is::<PastEnd>()) => {}
        Err(e) => return Err(e.into()),
    }
    let (next, games, lines) = (bounded.next, bounded.games, bounded.lines);
    Ok(Outcome {
        first: Some(first),
        next,
        decoded_len: decoded_len(&own),
        lines,
        games,
        tag_line: bounded.tag_line,
    })
}

/// The decoded bytes of the partition alone (for the guess).
fn open_own(part: &Partition) -> io::Result<Box<dyn Read + Send>> {
    match part.kind {
        Kind::Plain => {
            let mut file = File::open(&part.path)?;
            file.seek(SeekFrom::Start(part.start))?;
            Ok(Box::new(file.take(part.end - part.start)))
        }
        Kind::Whole => Input::File(part.path.clone()).open(Arc::new(AtomicU64::new(0))),
        Kind::ZstdFrames => Ok(unnested(
            part,
            Box::new(Frames::open(&part.path, part.start, part.end)?),
        )),
    }
}

/// The first partition's decoded bytes refused if they are an archive or a
/// compressed file (a `.tar.zst`), as the one-machine run refuses them
/// ([`Unnested`]); the others begin inside the text.
fn unnested(part: &Partition, reader: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    if part.start == 0 {
        Box::new(Unnested::new(reader, Compression::Zstd))
    } else {
        reader
    }
}

/// The decoded bytes of the partition and everything after it in the file,
/// and the number of the partition's own decoded bytes when it is known
/// before reading (a zstd partition counts them in `own` as it reads them).
fn open_all(
    part: &Partition,
    own: Arc<AtomicU64>,
) -> io::Result<(Box<dyn Read + Send>, Option<u64>)> {
    match part.kind {
        Kind::Plain => {
            let mut file = File::open(&part.path)?;
            file.seek(SeekFrom::Start(part.start))?;
            Ok((Box::new(file), Some(part.end - part.start)))
        }
        // A whole input is read to its end: every game in it is its own.
        Kind::Whole => Ok((open_own(part)?, Some(u64::MAX))),
        Kind::ZstdFrames => {
            let len = std::fs::metadata(&part.path)?.len();
            let mine = Counted {
                inner: Frames::open(&part.path, part.start, part.end)?,
                count: own,
            };
            let rest = Frames::open(&part.path, part.end, len)?;
            Ok((unnested(part, Box::new(mine.chain(rest))), None))
        }
    }
}

/// The first likely game start in the partition's own bytes, and their number
/// when the partition was read to its end looking for one. Memory: a window of
/// the last 64 KiB and the block being read (a start whose blank line and the
/// line before it do not fit in the window is not seen: the guess is then
/// wrong, which the combination notices).
fn guess(part: &Partition) -> io::Result<(Option<u64>, u64)> {
    const WINDOW: usize = 64 << 10;
    let mut reader = open_own(part)?;
    let mut window: Vec<u8> = Vec::with_capacity(2 * WINDOW);
    // Offset of window[0] in the partition.
    let mut base = 0u64;
    let mut from = 1;
    let mut buf = vec![0u8; WINDOW];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok((None, base + window.len() as u64)),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        window.extend_from_slice(&buf[..n]);
        if let Some(q) = first_likely_start(&window, from) {
            return Ok((Some(base + q as u64), 0));
        }
        // Look again at the last bytes once more come (a candidate needs the
        // byte after its line end); keep the window bounded.
        from = window.len().saturating_sub(1).max(1);
        if window.len() > WINDOW {
            let drop = window.len() - WINDOW;
            window.drain(..drop);
            base += drop as u64;
            from = from.saturating_sub(drop).max(1);
        }
    }
}

/// Skips the first `n` bytes of `reader`; returns it and how many were skipped
/// (fewer when it ended).
fn skip(mut reader: Box<dyn Read + Send>, n: u64) -> io::Result<(Box<dyn Read + Send>, u64)> {
    let skipped = io::copy(&mut (&mut reader).take(n), &mut io::sink())?;
    Ok((reader, skipped))
}

/// The decoded bytes of the zstd frames of `start..end` of a file (`start`
/// at a frame or at pzstd's announcement of one), decoded frame by frame so
/// that an error names its frame's offset, and bytes that are no frame are
/// the error they are on one machine ([`frames::FrameWalker`]).
struct Frames {
    file: File,
    walker: frames::FrameWalker,
    current: Option<FrameDecoder>,
}

/// One frame's decoder, its errors naming the frame.
type FrameDecoder = frames::FrameErrors<
    ZstdReader<zstd::stream::read::Decoder<'static, io::BufReader<io::Take<File>>>>,
>;

impl Frames {
    fn open(path: &Path, start: u64, end: u64) -> io::Result<Frames> {
        Ok(Frames {
            file: File::open(path)?,
            walker: frames::FrameWalker::range(start, end),
            current: None,
        })
    }
}

impl Read for Frames {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(frame) = &mut self.current {
                let n = frame.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                self.current = None;
            }
            let Some(frame) = self.walker.next_frame(&self.file)? else {
                return Ok(0);
            };
            // The walker reads at offsets; this handle's own position is the
            // frame decoder's alone.
            let mut bytes = self.file.try_clone()?;
            bytes.seek(SeekFrom::Start(frame.start))?;
            self.current = Some(frames::FrameErrors {
                inner: ZstdReader(zstd::stream::read::Decoder::new(
                    bytes.take(frame.end - frame.start),
                )?),
                start: frame.start,
            });
        }
    }
}

/// Counts the bytes read through it.
struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Release);
        Ok(n)
    }
}

/// The sink error that ends a run at the first game past the partition.
#[derive(Debug, thiserror::Error)]
#[error("the partition's games are over")]
struct PastEnd;

/// Hands the partition's own games to the inner sink, relocated by the bases,
/// and stops at the first game that starts past the partition.
struct Bounded<'s, S> {
    inner: &'s mut S,
    /// Where the run's stream starts in the partition.
    first: u64,
    own: Arc<AtomicU64>,
    own_len: Option<u64>,
    bases: Option<Bases>,
    next: Option<u64>,
    games: u64,
    lines: u64,
    tag_line: bool,
}

impl<G, S: Sink<G>> Sink<G> for Bounded<'_, S> {
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.inner.begin_input(input)
    }

    fn begin_game(&mut self, info: &GameInfo, game: G) -> io::Result<()> {
        let at = self.first + info.offset;
        // The partition's own bytes are all read before a byte past them, so
        // the count is final when a game starts past it.
        let own_len = self
            .own_len
            .unwrap_or_else(|| self.own.load(Ordering::Acquire));
        if at >= own_len {
            self.next = Some(at);
            self.lines = info.line - 1;
            return Err(io::Error::other(PastEnd));
        }
        self.games += 1;
        let info = match self.bases {
            Some(b) => GameInfo {
                index: b.game + self.games,
                offset: b.offset + at,
                line: b.line + info.line,
                line_delta: b.line + info.line_delta,
            },
            None => GameInfo {
                index: self.games,
                offset: at,
                ..*info
            },
        };
        self.inner.begin_game(&info, game)
    }

    fn bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.inner.bytes(offset, data)
    }

    fn orphan_bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.inner.orphan_bytes(offset, data)
    }

    /// Every game's bytes separately: the merger may otherwise hand over the
    /// bytes of consecutive games of one destination together, and the bytes
    /// of the last own game must end exactly where the next game begins.
    fn destination(&self, _game: &G) -> Option<u8> {
        None
    }

    fn wants_bytes(&self) -> bool {
        self.inner.wants_bytes()
    }

    fn tag_line(&mut self) {
        self.tag_line = true;
    }

    fn watches_tag_lines(&self) -> bool {
        true
    }

    fn input_damaged(&mut self, last_complete: bool) -> io::Result<()> {
        self.inner.input_damaged(last_complete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_format_is_not_cut_into_plain_partitions() {
        let dir = tempfile::tempdir().unwrap();
        // A 7z archive: read as plain text, its partitions would be junk games.
        let path = dir.path().join("games.pgn");
        let mut data = b"7z\xbc\xaf\x27\x1c\x00\x04".to_vec();
        data.extend(b"[Event \"x\"]\n\n1. e4 *\n\n".repeat(100));
        std::fs::write(&path, &data).unwrap();
        match plan(&[&path], 64) {
            Err(Error::Io { file, error }) => {
                assert!(file.ends_with("games.pgn"), "{file}");
                assert!(error.to_string().contains("a 7z archive"), "{error}");
            }
            other => panic!("{other:?}"),
        }
    }
}
