//! Assembles scanner events into games: where each game starts in a chunk and
//! the per-game work of the command, computed as soon as its header is complete.
//!
//! # Bounded memory
//!
//! A header's tags are kept in one arena per builder, and hostile headers (tens
//! of thousands of SetUp pairs on one line, a million SetUp lines in one game,
//! megabyte-long values) must not make it grow with the square of the input or
//! without bound:
//!
//! * the text of a tag line is stored once per line, not once per tag, and only
//!   whole when it is at most [`LINE_KEEP`] bytes long; of a longer line each tag
//!   keeps a window of [`WINDOW`] bytes either side of its value (enough for a
//!   diagnostic's snippet), with the column of the window's start counted once;
//! * at most [`MAX_TAGS`] SetUp/FEN/Variant tags are kept per header, and no
//!   more once the arena holds [`HEADER_BUDGET`] bytes, except the first of each
//!   name, which is always kept (classification reads the first of each name).
//!   Every later tag that is not kept is still compared with the first of its
//!   name: the ones whose value differs are counted ([`Header::unlisted`]), so
//!   that problem counts stay exact, and the first of them is kept as a note for
//!   a diagnostic ([`Header::unlisted_note`]);
//! * extra tags asked for by a job ([`Job::extra_tags`], for `--tag`) keep only
//!   their first occurrence in a header;
//! * every pair, for a job that asks for them all ([`Job::all_pairs`], for
//!   `export`): read where it lies when its header ends in the piece of input
//!   it began in (nearly every header), else copied into an arena of its own
//!   as each piece ends (so that it cannot crowd out the SetUp/FEN/Variant
//!   tags); either way at most [`MAX_PAIRS`] pairs per header, and no more
//!   once they hold [`PAIR_BUDGET`] bytes; the pairs left out are counted
//!   ([`Header::dropped_pairs`]), never silently lost.
//!
//! [`Job::extra_tags`]: Job::extra_tags

use std::ops::Range;

use crate::class::Class;
use crate::classify::{TagInput, Tally, Verdict, classify, same_tag_value, tally};
use crate::pgn::scan::{Event, TagName};
use crate::problem::Problem;

/// The work a command does on each game's header, on the worker threads.
pub trait Job: Sync {
    /// What the job computes for each game (sent to the sink, in input order).
    type Game: Send + 'static;
    /// Computes the game's result from its header, on a worker thread.
    fn game(&self, header: &Header<'_>) -> Self::Game;

    /// Names of further tags (beyond SetUp, FEN and Variant) whose values the
    /// job reads through [`Header::extra`]. Empty by default: the scanner then
    /// does not look at other tags' values at all (the fast path).
    fn extra_tags(&self) -> &[Vec<u8>] {
        &[]
    }

    /// Whether the job reads every tag pair of the header ([`Header::pairs`]).
    /// Off by default: the scanner then reads only the values it must.
    fn all_pairs(&self) -> bool {
        false
    }

    /// About how many bytes a game's result holds beyond its own size (the
    /// heap it owns). A worker keeps the results of a whole chunk until the
    /// merger takes them, so the pipeline bounds the sum of these per chunk;
    /// 0 (the default) for results that own nothing worth counting.
    fn weight(&self, _game: &Self::Game) -> usize {
        0
    }

    /// Whether the job reads each game's movetext (`--moves`): the result of a
    /// game is then handed to [`Job::moves`] with the game's movetext before it
    /// goes to the sink. Off by default: no movetext is looked at.
    fn reads_moves(&self) -> bool {
        false
    }

    /// Completes a game's result with its movetext (only when
    /// [`Job::reads_moves`]), on a worker thread for a game that lies in one
    /// chunk, on the merger for one that crosses chunks.
    fn moves(&self, _game: &mut Self::Game, _text: &crate::moves::MoveText<'_>) {}

    /// Called on the thread that computed them with the results of every
    /// [`Job::game`] call it made since its last `seal`, in order, once they
    /// are complete and before any reaches the sink: the results of a chunk
    /// (a worker), or of a piece the merger scans itself. Results that will
    /// not reach the sink (a chunk rescanned) are sealed too. A job may move
    /// what its results hold into storage they share: `export` packs a
    /// chunk's rows into one block, so that no game allocates. Nothing by
    /// default.
    fn seal<'g>(&self, _results: impl Iterator<Item = &'g mut Self::Game>) {}

    /// Bytes of a multi-frame zstd input's decoded frames that may be held
    /// at once, the frame being read out included (24 MiB by default: frames
    /// in flight for every core). A job that costs several times the
    /// decoding per byte and holds much memory of its own asks for less.
    fn frames_ahead(&self) -> usize {
        super::frames::BUDGET
    }

    /// Chunks a run keeps in flight with `workers` worker threads, the one
    /// being read and the one being merged included: each holds up to 4 MiB
    /// of input and up to 2 MiB of results. Ten on two cores by default: the
    /// merger shares the cores with the workers, and with six the workers
    /// often filled every chunk while it waited for a core, then waited for
    /// it in turn (a `stats` of 1 GB slept 225 to 300 times instead of 100
    /// to 250; see docs/performance-log.md, "Waits between the threads"). A job
    /// whose results hold much memory of their own (`export`'s rows, the
    /// games of Python's loop) keeps two a worker and two more, ten at most
    /// (`lean_chunks_in_flight`).
    fn chunks_in_flight(&self, workers: usize) -> usize {
        (4 * workers + 2).min(10)
    }
}

/// [`Job::chunks_in_flight`] of a job whose results hold much memory.
pub fn lean_chunks_in_flight(workers: usize) -> usize {
    (2 * workers + 2).min(10)
}

/// Bytes of movetext kept for the replay of a game that crosses chunks; a
/// longer movetext is replayed as far as this goes (bounded memory).
pub const MOVES_BUDGET: usize = 8 << 20;

/// The scanner a job needs: `scanner` told the extra tags and whether to
/// report every pair.
pub fn scanner_for<J: Job>(
    job: &J,
    scanner: crate::pgn::scan::Scanner,
) -> crate::pgn::scan::Scanner {
    let mut scanner = scanner.with_extra_tags(job.extra_tags());
    if job.reads_moves() {
        scanner = scanner.with_movetext();
    }
    if job.all_pairs() {
        scanner.with_all_pairs()
    } else {
        scanner
    }
}

/// Tag lines up to this long are kept whole (once per line).
pub const LINE_KEEP: usize = 4096;
/// Of a longer tag line, each tag keeps this many bytes before and after its value.
pub const WINDOW: usize = 128;
/// Most SetUp/FEN/Variant tags kept per header (besides the first of each name).
pub const MAX_TAGS: usize = 64;
/// Later tags are kept only while the header's arena is smaller than this.
pub const HEADER_BUDGET: usize = 1 << 20;
/// Most tag pairs kept per header for [`Job::all_pairs`] (a lichess header has 17).
pub const MAX_PAIRS: usize = 1024;
/// Further pairs are kept only while the pair arena is smaller than this.
pub const PAIR_BUDGET: usize = 1 << 20;

/// One SetUp, FEN or Variant tag of a header.
#[derive(Clone, Copy, Debug)]
pub struct HeaderTag<'a> {
    /// Which of the three tags it is.
    pub name: TagName,
    /// The raw value between the quotes; empty when it was unreadable (a value
    /// cut by a forced chunk cut inside a line longer than the largest chunk).
    pub raw: &'a [u8],
    /// Line number, relative: add [`GameInfo::line_delta`] for the line in the input.
    ///
    /// [`GameInfo::line_delta`]: crate::pipeline::GameInfo
    pub line: u64,
    /// The tag line without its line end (as far as the chunk holds it), or for
    /// a line longer than 4 KiB a window of it around the value.
    pub line_text: &'a [u8],
    /// Byte offset of the value inside `line_text`.
    pub value_column: usize,
    /// Characters of the line before `line_text` (0 when it is the whole line).
    pub column_base: usize,
    /// Absolute byte offset of the value in the input.
    pub value_offset: u64,
    /// Whether the value could be read (see `raw`).
    pub complete: bool,
    /// The tag line's line end (`\n`, `\r\n`, `\r`, or empty at the end of the input).
    pub line_end: &'static [u8],
}

impl HeaderTag<'_> {
    /// The 1-based column (in characters, as [`display_column`] counts them) of
    /// byte `at` of `line_text`.
    ///
    /// [`display_column`]: crate::pgn::tags::display_column
    pub fn column(&self, at: usize) -> usize {
        if self.column_base == 0 {
            crate::pgn::tags::display_column(self.line_text, at)
        } else {
            let text = &self.line_text[..at.min(self.line_text.len())];
            1 + self.column_base + chars(text)
        }
    }
}

/// The message of a SetUp, FEN or Variant tag whose value was too long to
/// read whole (its reading kept none of it).
pub(crate) fn too_long(name: TagName) -> String {
    format!("the {} value is too long to read", name.as_str())
}

/// Characters `text` shows as ([`crate::pgn::tags::shown_chars`]).
fn chars(text: &[u8]) -> usize {
    crate::pgn::tags::shown_chars(text)
}

#[derive(Clone, Debug)]
struct Slot {
    name: TagName,
    raw: Range<usize>,
    line_text: Range<usize>,
    value_column: usize,
    column_base: usize,
    line: u64,
    value_offset: u64,
    complete: bool,
    line_end: &'static [u8],
}

/// The tags of one header, in order.
#[derive(Debug)]
pub struct Header<'a> {
    arena: &'a [u8],
    slots: &'a [Slot],
    unlisted: [u64; 3],
    note: Option<&'a Slot>,
    dropped_fens: Option<(u64, u64)>,
    extras: &'a [Option<Range<usize>>],
    // Every pair: read by `export` (and the fuzz targets) only.
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    pair_arena: &'a [u8],
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    pairs: &'a [(Range<usize>, Range<usize>)],
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    dropped_pairs: u64,
}

impl<'a> Header<'a> {
    /// No SetUp, FEN or Variant tag (extra tags do not count).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn make_tag(&self, s: &Slot) -> HeaderTag<'a> {
        HeaderTag {
            name: s.name,
            raw: &self.arena[s.raw.clone()],
            line: s.line,
            line_text: &self.arena[s.line_text.clone()],
            value_column: s.value_column,
            column_base: s.column_base,
            value_offset: s.value_offset,
            complete: s.complete,
            line_end: s.line_end,
        }
    }

    /// The `i`-th kept tag, in header order.
    pub fn tag(&self, i: usize) -> HeaderTag<'a> {
        self.make_tag(&self.slots[i])
    }

    /// Whether the header holds no SetUp, FEN or Variant tag at all (kept or
    /// not): the game is then of class `standard` without classifying it.
    pub fn has_no_start_tags(&self) -> bool {
        self.slots.is_empty() && self.unlisted() == 0
    }

    /// The kept tags, in header order.
    pub fn tags(&self) -> impl Iterator<Item = HeaderTag<'a>> + '_ {
        (0..self.slots.len()).map(|i| self.tag(i))
    }

    /// The tags as the classifier takes them.
    pub fn inputs(&self) -> Vec<TagInput<'a>> {
        self.tags()
            .map(|t| TagInput {
                name: t.name,
                raw: t.raw,
            })
            .collect()
    }

    /// Later SetUp/FEN/Variant tags that were not kept (see the module notes)
    /// and whose value differs from the first of their name: each one is a
    /// `duplicate-tag` problem not in [`Self::tags`].
    pub fn unlisted(&self) -> u64 {
        self.unlisted.iter().sum()
    }

    /// The first of the [`Self::unlisted`] tags, its value and line cut to a
    /// window (for a diagnostic; not for classification).
    pub fn unlisted_note(&self) -> Option<HeaderTag<'a>> {
        self.note.map(|s| self.make_tag(s))
    }

    /// The classification of the header: [`classify`] over the kept tags, plus
    /// the unlisted duplicates (which make the game malformed).
    pub fn verdict(&self) -> Verdict {
        let mut verdict = self.with_inputs(classify);
        // A value cut by the reading (longer than a chunk can hold) is
        // classified as empty: its problem says why, not "empty FEN".
        for p in &mut verdict.problems {
            let slot = &self.slots[p.tag];
            if !slot.complete {
                p.problem = Problem::new(p.problem.code, 0..0, too_long(slot.name));
            }
        }
        let n = self.unlisted();
        if n > 0 {
            verdict.unlisted_duplicates = n;
            verdict.class = Class::Malformed;
            verdict.chess960_position = None;
        }
        verdict
    }

    /// [`Header::verdict`] for a job that only counts ([`tally`]: no
    /// message is written). The unlisted duplicates make the game malformed
    /// here too, but are not in its counts: [`Header::unlisted`] has them.
    pub fn tally(&self) -> Tally {
        let mut counted = self.with_inputs(tally);
        if self.unlisted() > 0 {
            counted.class = Class::Malformed;
            counted.chess960_position = None;
        }
        counted
    }

    /// `f` of the kept tags as the classifier takes them.
    fn with_inputs<T>(&self, f: impl FnOnce(&[TagInput<'a>]) -> T) -> T {
        // The usual header has a few of these tags: their inputs on the stack
        // rather than in a vector allocated per game.
        const STACK: usize = 8;
        if self.slots.len() <= STACK {
            let mut inputs = [TagInput {
                name: TagName::SetUp,
                raw: b"",
            }; STACK];
            for (input, s) in inputs.iter_mut().zip(self.slots) {
                *input = TagInput {
                    name: s.name,
                    raw: &self.arena[s.raw.clone()],
                };
            }
            f(&inputs[..self.slots.len()])
        } else {
            f(&self.inputs())
        }
    }

    /// FEN tags that were not kept (past the 64 a header keeps): how many, and the
    /// relative line of the first. `convert` reports them as left unchanged.
    pub fn dropped_fens(&self) -> Option<(u64, u64)> {
        self.dropped_fens
    }

    /// Every tag pair of the header in order, duplicates included, as (name,
    /// raw value with escapes not decoded); only for a job that asks for them
    /// ([`Job::all_pairs`]), empty otherwise.
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (&'a [u8], &'a [u8])> + '_ {
        let arena = self.pair_arena;
        self.pairs
            .iter()
            .map(move |(n, v)| (&arena[n.clone()], &arena[v.clone()]))
    }

    /// The bytes [`Self::pair_spans`] index: every kept name and value, and
    /// between them either nothing (pairs copied out of several pieces of
    /// the input) or the header's own bytes (the tag lines as they lie in the
    /// input, from the first name to the last value).
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    pub fn pair_arena(&self) -> &'a [u8] {
        self.pair_arena
    }

    /// [`Self::pairs`] as ranges of [`Self::pair_arena`] (name, value): one
    /// check of the whole arena (say, for UTF-8) then holds for every piece.
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    pub fn pair_spans(&self) -> &'a [(Range<usize>, Range<usize>)] {
        self.pairs
    }

    /// Pairs of the header not in [`Self::pairs`]: past 1,024 pairs or
    /// 1 MiB of pairs, or cut by a forced chunk cut inside a very long line.
    #[cfg_attr(not(any(feature = "export", feature = "internals")), allow(dead_code))]
    pub fn dropped_pairs(&self) -> u64 {
        self.dropped_pairs
    }

    /// The raw value (escapes not decoded) of the first pair of extra tag
    /// `index` ([`Job::extra_tags`]), or `None` when the header has none (or its
    /// value was cut by a forced chunk cut).
    pub fn extra(&self, index: usize) -> Option<&'a [u8]> {
        self.extras
            .get(index)
            .and_then(|r| r.clone())
            .map(|r| &self.arena[r])
    }
}

/// Where a game starts in a chunk, and its per-game work once the header is read.
#[derive(Debug)]
pub struct Entry<G> {
    /// Absolute offset of the game's first byte (may lie before the chunk).
    pub start: u64,
    /// Line number of its first line: relative to the scan's start in a
    /// worker, absolute once the merger took the entry.
    pub line: u64,
    /// The game began in an earlier chunk.
    pub continued: bool,
    /// `None` while its header goes on past the chunk.
    pub result: Option<G>,
    /// For a job that reads moves ([`Job::reads_moves`]): the result still
    /// waits for the movetext, which starts at this absolute offset and line
    /// (in the base of the header's lines) and goes on past the chunk.
    pub moves_from: Option<(u64, u64)>,
}

/// Turns events into [`Entry`]s; keeps the open header across chunks.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    arena: Vec<u8>,
    slots: Vec<Slot>,
    /// Slot of the first tag of each name (SetUp, FEN, Variant).
    first: [Option<usize>; 3],
    /// Later tags not kept whose value differs from the first of their name.
    unlisted: [u64; 3],
    /// The first of those, windowed.
    note: Option<Slot>,
    /// FEN tags not kept: how many, and the line of the first.
    dropped_fens: Option<(u64, u64)>,
    /// The first value of each extra tag: `None` not seen, `Some(None)` seen
    /// but cut, `Some(Some(range))` in the arena.
    extras: Vec<Option<Option<Range<usize>>>>,
    extra_ranges: Vec<Option<Range<usize>>>,
    /// Every pair (for [`Job::all_pairs`]): names and values in their own
    /// arena, for the pairs of a header read in an earlier piece than its end.
    pair_arena: Vec<u8>,
    pairs: Vec<(Range<usize>, Range<usize>)>,
    dropped_pairs: u64,
    /// The kept pairs read in this piece (absolute ranges of their name and
    /// value): a header that ends in the piece it began in is handed to the
    /// job with its pairs as they lie in the piece, copied nowhere; what is
    /// left when a piece ends goes into `pair_arena` (see [`Builder::keep_pairs`]).
    pairs_here: Vec<(Range<u64>, Range<u64>)>,
    /// Bytes of the names and values kept so far (the arena's size once they
    /// are all in it): the [`PAIR_BUDGET`] rule.
    pair_bytes: usize,
    /// `pairs_here` as ranges of the piece from the first name's start.
    pairs_view: Vec<(Range<usize>, Range<usize>)>,
    /// The last whole tag line stored: its (clipped) absolute start and arena range.
    shared_line: Option<(u64, Range<usize>)>,
    /// The end (absolute) of the last tag line looked up, by its (clipped) start.
    line_end: Option<(u64, u64)>,
    /// Characters counted on a long tag line: its (clipped) start, up to which
    /// absolute offset, how many.
    columns: Option<(u64, u64, usize)>,
    /// A game is open (started, maybe still in its header).
    open: bool,
    header_done: bool,
}

/// The first FEN value of each header in a piece's events, with the first
/// Variant value of that header (raw, as they lie in the piece): what
/// [`crate::classify::prefetch_analyses`] asks for. Values that lie partly
/// outside the piece (a header begun in an earlier one) are left out.
struct HeaderFens<'a> {
    data: &'a [u8],
    offset: u64,
    events: std::slice::Iter<'a, Event>,
}

impl<'a> HeaderFens<'a> {
    fn new(data: &'a [u8], offset: u64, events: &'a [Event]) -> HeaderFens<'a> {
        HeaderFens {
            data,
            offset,
            events: events.iter(),
        }
    }
}

/// The bytes of the absolute range `at` in `data`, which starts at `offset`.
fn within<'a>(data: &'a [u8], offset: u64, at: &Range<u64>) -> Option<&'a [u8]> {
    let start = usize::try_from(at.start.checked_sub(offset)?).ok()?;
    let end = usize::try_from(at.end.checked_sub(offset)?).ok()?;
    data.get(start..end)
}

impl<'a> Iterator for HeaderFens<'a> {
    type Item = (&'a [u8], Option<&'a [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        let (data, offset) = (self.data, self.offset);
        // The header's first FEN and Variant tags: `Some(None)` when the
        // value lies outside the piece.
        let (mut fen, mut variant) = (None, None);
        for event in self.events.by_ref() {
            match event {
                Event::GameStart { .. } | Event::HeaderEnd => {
                    if let Some(Some(fen)) = fen {
                        return Some((fen, variant.flatten()));
                    }
                    (fen, variant) = (None, None);
                }
                Event::Tag(tag) if tag.name == TagName::Fen && fen.is_none() => {
                    fen = Some(within(data, offset, &tag.value));
                }
                Event::Tag(tag) if tag.name == TagName::Variant && variant.is_none() => {
                    variant = Some(within(data, offset, &tag.value));
                }
                _ => {}
            }
        }
        fen.flatten().map(|fen| (fen, variant.flatten()))
    }
}

/// Where the line that starts at `data[ls]` ends (its first `\n` or `\r`, or
/// the end of `data`). `value_end` is where a complete value of a pair on that
/// line closes: the scanner found it on the line, so no line end comes before
/// it, and the usual `"]` and line end just after it are checked directly
/// instead of searching the whole line (a FEN tag's line is 70 bytes).
fn line_end_after(data: &[u8], ls: usize, value_end: Option<usize>) -> usize {
    if let Some(ve) = value_end
        && let Some([b'"', b']', eol]) = data.get(ve..ve + 3)
        && matches!(eol, b'\n' | b'\r')
    {
        return ve + 2;
    }
    memchr::memchr2(b'\n', b'\r', &data[ls..]).map_or(data.len(), |i| ls + i)
}

impl Builder {
    /// Adds `by` to the line numbers of the open header's tags: the merger makes a
    /// worker's relative lines absolute when it adopts the worker's state, so that
    /// a header finished in a later chunk carries absolute lines throughout.
    pub fn rebase_lines(&mut self, by: u64) {
        for slot in &mut self.slots {
            slot.line += by;
        }
        if let Some(note) = &mut self.note {
            note.line += by;
        }
        if let Some((_, line)) = &mut self.dropped_fens {
            *line += by;
        }
    }

    fn start_header(&mut self, extras: usize) {
        self.arena.clear();
        self.slots.clear();
        self.first = [None; 3];
        self.unlisted = [0; 3];
        self.note = None;
        self.dropped_fens = None;
        self.extras.clear();
        self.extras.resize(extras, None);
        self.pair_arena.clear();
        self.pairs.clear();
        self.dropped_pairs = 0;
        self.pairs_here.clear();
        self.pair_bytes = 0;
        self.shared_line = None;
        self.line_end = None;
        self.columns = None;
        self.open = true;
        self.header_done = false;
    }

    /// Stores a tag's line text (shared or windowed, see the module notes) and
    /// value; at most `max_value` bytes of the value are kept (the rest of a
    /// longer value is left out of `raw` and of the window).
    fn store(
        &mut self,
        tag: &crate::pgn::scan::TagRef,
        data: &[u8],
        offset: u64,
        max_value: usize,
    ) -> Slot {
        let end = offset + data.len() as u64;
        let complete = tag.value.start >= offset && tag.value.end <= end;
        let line_start = tag.line_start.max(offset);
        let ls = ((line_start - offset) as usize).min(data.len());
        let le = match self.line_end {
            Some((start, e)) if start == line_start => (e - offset) as usize,
            _ => {
                let e = line_end_after(
                    data,
                    ls,
                    complete.then(|| (tag.value.end - offset) as usize),
                );
                self.line_end = Some((line_start, offset + e as u64));
                e
            }
        };
        let line_end: &'static [u8] = match (data.get(le), data.get(le + 1)) {
            (Some(b'\r'), Some(b'\n')) => b"\r\n",
            (Some(b'\r'), _) => b"\r",
            (Some(b'\n'), _) => b"\n",
            _ => b"",
        };
        // The value inside the chunk (clamped to the line when it is not all here).
        let vs = (tag.value.start.clamp(offset, end) - offset) as usize;
        let vs = vs.clamp(ls, le);
        let ve = if complete {
            (tag.value.end - offset) as usize
        } else {
            vs
        };
        if le - ls <= LINE_KEEP && max_value == usize::MAX {
            let text = match &self.shared_line {
                Some((start, range)) if *start == line_start => range.clone(),
                _ => {
                    let s = self.arena.len();
                    self.arena.extend_from_slice(&data[ls..le]);
                    let range = s..self.arena.len();
                    self.shared_line = Some((line_start, range.clone()));
                    range
                }
            };
            let raw = if complete {
                text.start + (vs - ls)..text.start + (ve - ls)
            } else {
                text.start..text.start
            };
            return Slot {
                name: tag.name,
                raw,
                line_text: text,
                value_column: tag.value.start.saturating_sub(line_start) as usize,
                column_base: 0,
                line: tag.line,
                value_offset: tag.value.start,
                complete,
                line_end,
            };
        }
        // A long line (or a note): a window around the value.
        let kept_end = ve.min(vs.saturating_add(max_value));
        let mut ws = vs.saturating_sub(WINDOW).max(ls);
        // On a byte that is no continuation byte, so that the characters
        // before and in the window add up (see `chars`).
        while ws > ls && (data[ws] & 0xC0) == 0x80 {
            ws -= 1;
        }
        let we = kept_end.saturating_add(WINDOW).min(le);
        let column_base = if ws == ls {
            0
        } else {
            // Counted on from the last tag of the same line: linear per line.
            let (from, before) = match self.columns {
                Some((start, pos, n)) if start == line_start && pos <= offset + ws as u64 => {
                    ((pos - offset) as usize, n)
                }
                _ => {
                    let bom = data[ls..].starts_with(&crate::pgn::scan::BOM) && ls + 3 <= ws;
                    (ls + if bom { 3 } else { 0 }, 0)
                }
            };
            let n = before + chars(&data[from..ws]);
            self.columns = Some((line_start, offset + ws as u64, n));
            n
        };
        let s = self.arena.len();
        self.arena.extend_from_slice(&data[ws..we]);
        let raw = if complete {
            s + (vs - ws)..s + (kept_end - ws)
        } else {
            s..s
        };
        Slot {
            name: tag.name,
            raw,
            line_text: s..self.arena.len(),
            value_column: tag.value.start.saturating_sub(offset + ws as u64) as usize,
            column_base,
            line: tag.line,
            value_offset: tag.value.start,
            complete: complete && kept_end == ve,
            line_end,
        }
    }

    /// Consumes the events of one chunk (`data` starting at absolute `offset`).
    ///
    /// For a job that reads moves, each game whose movetext ends in the chunk
    /// is replayed here; the last game's entry is left with
    /// [`Entry::moves_from`] set (its movetext may go on in the next chunk:
    /// the merger finishes it, or [`Builder::finish_moves`] at the end of the input).
    pub fn consume<J: Job>(
        &mut self,
        job: &J,
        data: &[u8],
        offset: u64,
        events: &[Event],
        out: &mut Vec<Entry<J::Game>>,
    ) {
        let reads_moves = job.reads_moves();
        // The FEN analyses of these games come from the thread's memo, where
        // each hit waits twice for memory: asked for all at once before the
        // games are judged, the waits overlap (a hint, nothing more).
        crate::classify::prefetch_analyses(HeaderFens::new(data, offset, events));
        // The entry (index into `out`) whose movetext is being read.
        let mut reading: Option<usize> = None;
        // Cached line facts are about the previous chunk's bytes.
        self.shared_line = None;
        self.line_end = None;
        self.columns = None;
        if self.open && !self.header_done {
            // The header of a game from an earlier chunk goes on here.
            out.push(Entry {
                start: 0,
                line: 0,
                continued: true,
                result: None,
                moves_from: None,
            });
        }
        for event in events {
            match event {
                Event::GameStart {
                    offset: start,
                    line,
                } => {
                    if let Some(i) = reading.take() {
                        finish_entry(job, &mut out[i], data, offset, *start);
                    }
                    self.start_header(job.extra_tags().len());
                    out.push(Entry {
                        start: *start,
                        line: *line,
                        continued: false,
                        result: None,
                        moves_from: None,
                    });
                }
                Event::Tag(tag) => {
                    if !self.open || self.header_done {
                        continue;
                    }
                    let idx = tag.name.index();
                    let keep = match self.first[idx] {
                        None => true,
                        Some(_) => self.slots.len() < MAX_TAGS && self.arena.len() < HEADER_BUDGET,
                    };
                    if keep {
                        let slot = self.store(tag, data, offset, usize::MAX);
                        self.first[idx].get_or_insert(self.slots.len());
                        self.slots.push(slot);
                        continue;
                    }
                    if tag.name == TagName::Fen {
                        let (n, _) = self.dropped_fens.get_or_insert((0, tag.line));
                        *n += 1;
                    }
                    let end = offset + data.len() as u64;
                    let raw: &[u8] = if tag.value.start >= offset && tag.value.end <= end {
                        &data
                            [(tag.value.start - offset) as usize..(tag.value.end - offset) as usize]
                    } else {
                        b""
                    };
                    let first = &self.slots[self.first[idx].unwrap_or_default()];
                    if !same_tag_value(tag.name, &self.arena[first.raw.clone()], raw) {
                        self.unlisted[idx] += 1;
                        if self.note.is_none() {
                            self.note = Some(self.store(tag, data, offset, 2 * WINDOW));
                        }
                    }
                }
                Event::Extra { index, value } => {
                    if !self.open || self.header_done {
                        continue;
                    }
                    let Some(seen @ None) = self.extras.get_mut(*index as usize) else {
                        continue;
                    };
                    let end = offset + data.len() as u64;
                    *seen = Some(if value.start >= offset && value.end <= end {
                        let s = self.arena.len();
                        self.arena.extend_from_slice(
                            &data[(value.start - offset) as usize..(value.end - offset) as usize],
                        );
                        Some(s..self.arena.len())
                    } else {
                        None
                    });
                }
                Event::Pair { name, value } => {
                    if !self.open || self.header_done {
                        continue;
                    }
                    let end = offset + data.len() as u64;
                    let inside = |r: &Range<u64>| r.start >= offset && r.end <= end;
                    if !(inside(name) && inside(value))
                        || self.pairs.len() + self.pairs_here.len() >= MAX_PAIRS
                        || self.pair_bytes >= PAIR_BUDGET
                    {
                        self.dropped_pairs += 1;
                        continue;
                    }
                    self.pair_bytes += (name.end - name.start + value.end - value.start) as usize;
                    self.pairs_here.push((name.clone(), value.clone()));
                }
                Event::Movetext { offset: at, line } => {
                    let Some(i) = reading else { continue };
                    // A game of text without any tag line has its movetext
                    // start at the input's first byte, known only at the
                    // input's end: it may lie before this piece, and then
                    // whoever holds it replays it (see `finish_entry`).
                    out[i].moves_from = Some((*at, *line));
                }
                Event::HeaderEnd => {
                    if !self.open || self.header_done {
                        continue;
                    }
                    self.header_done = true;
                    self.extra_ranges.clear();
                    self.extra_ranges
                        .extend(self.extras.iter().map(|e| e.clone().flatten()));
                    // The scanner reports SetUp, FEN and Variant as such, never as
                    // extra tags: their first value comes from the kept tags.
                    for (i, name) in job.extra_tags().iter().enumerate() {
                        let Some(idx) = TagName::from_name(name).map(TagName::index) else {
                            continue;
                        };
                        if let (Some(slot), Some(r)) = (
                            self.first[idx].map(|f| &self.slots[f]),
                            self.extra_ranges.get_mut(i),
                        ) {
                            *r = slot.complete.then(|| slot.raw.clone());
                        }
                    }
                    let (pair_arena, pairs) = match self.settle_pairs(data, offset) {
                        Some(piece) => (&data[piece], &self.pairs_view[..]),
                        None => (&self.pair_arena[..], &self.pairs[..]),
                    };
                    let header = Header {
                        arena: &self.arena,
                        slots: &self.slots,
                        unlisted: self.unlisted,
                        note: self.note.as_ref(),
                        dropped_fens: self.dropped_fens,
                        extras: &self.extra_ranges,
                        pair_arena,
                        pairs,
                        dropped_pairs: self.dropped_pairs,
                    };
                    let result = job.game(&header);
                    if let Some(last) = out.last_mut() {
                        last.result = Some(result);
                        if reads_moves {
                            // The movetext starts where the scanner's
                            // `Movetext` event says; without one (the input
                            // or the game ends in the header) it is empty.
                            last.moves_from = Some((offset + data.len() as u64, 0));
                            reading = Some(out.len() - 1);
                        }
                    }
                }
            }
        }
        // The piece goes: the pairs read in it of a header still open are
        // copied while they can be.
        self.keep_pairs(data, offset);
    }

    /// Copies the pairs read in this piece into the arena (`data` is the
    /// piece, from absolute `offset`), in the order they came, names and
    /// values as [`Header::pair_arena`] holds them.
    fn keep_pairs(&mut self, data: &[u8], offset: u64) {
        for (name, value) in self.pairs_here.drain(..) {
            let mut put = |r: Range<u64>| {
                let s = self.pair_arena.len();
                self.pair_arena.extend_from_slice(
                    &data[(r.start - offset) as usize..(r.end - offset) as usize],
                );
                s..self.pair_arena.len()
            };
            let pair = (put(name), put(value));
            self.pairs.push(pair);
        }
    }

    /// Where the pairs of the header that ends in this piece are read from:
    /// `Some`, the piece's own bytes (this range of `data`) from the first
    /// name on, with `pairs_view` as their ranges there, when every pair was
    /// read in this piece (the usual case: nothing copied); `None`, the arena
    /// and `pairs`, with this piece's pairs copied into it. The job reads the
    /// same pairs either way; only the bytes between them differ.
    fn settle_pairs(&mut self, data: &[u8], offset: u64) -> Option<Range<usize>> {
        if !self.pairs.is_empty() || self.pairs_here.is_empty() {
            self.keep_pairs(data, offset);
            return None;
        }
        // The pairs came in input order: the last value ends them.
        let base = self.pairs_here[0].0.start;
        let end = self.pairs_here[self.pairs_here.len() - 1].1.end;
        let at = |r: &Range<u64>| (r.start - base) as usize..(r.end - base) as usize;
        self.pairs_view.clear();
        self.pairs_view
            .extend(self.pairs_here.iter().map(|(n, v)| (at(n), at(v))));
        self.pairs_here.clear();
        Some((base - offset) as usize..(end - offset) as usize)
    }

    /// Replays the movetext of the entries still waiting for it, which ends
    /// with `data` (the last chunk of the input).
    pub fn finish_moves<J: Job>(
        &self,
        job: &J,
        data: &[u8],
        offset: u64,
        out: &mut [Entry<J::Game>],
    ) {
        let end = offset + data.len() as u64;
        for entry in out.iter_mut() {
            finish_entry(job, entry, data, offset, end);
        }
    }
}

/// Hands the entry's movetext, `moves_from..end` of `data` (at absolute
/// `offset`), to the job, if the entry waits for it. A movetext that begins
/// before `data` (that of an input without a tag line, longer than the bytes
/// at hand) keeps waiting: the merger, which holds the input's earlier bytes
/// for that game, replays it.
fn finish_entry<J: Job>(job: &J, entry: &mut Entry<J::Game>, data: &[u8], offset: u64, end: u64) {
    let (Some((from, line)), Some(result)) = (entry.moves_from, entry.result.as_mut()) else {
        return;
    };
    if from < offset {
        return;
    }
    entry.moves_from = None;
    let chunk_end = offset + data.len() as u64;
    let from = from.min(chunk_end);
    let end = end.clamp(from, chunk_end);
    let text = crate::moves::MoveText {
        bytes: crate::moves::without_input_bom(
            &data[(from - offset) as usize..(end - offset) as usize],
            from,
        ),
        line,
        complete: true,
    };
    job.moves(result, &text);
}

/// Replays the movetext of entries of one chunk (`data` at absolute `offset`)
/// that waited for it because it crossed a piece boundary and that ends in the
/// chunk, where the next game starts. The chunk's last game keeps waiting.
pub fn finish_moves_within<J: Job>(job: &J, data: &[u8], offset: u64, out: &mut [Entry<J::Game>]) {
    let mut next_start = None;
    for entry in out.iter_mut().rev() {
        if let Some(end) = next_start
            && entry.moves_from.is_some()
        {
            finish_entry(job, entry, data, offset, end);
        }
        if !entry.continued {
            next_start = Some(entry.start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The check after a value finds the line end the search from the
        /// line's start finds, on lines of pairs, blanks, `\r` and `\n`,
        /// wherever the value closes on its line (`close`: at the line's
        /// last pair, followed by `"]` and a line end, the usual case).
        #[test]
        fn the_line_end_after_a_value_is_the_searched_one(
            line in proptest::collection::vec(
                proptest::sample::select(b"ab \"]\\[".to_vec()),
                0..40,
            ),
            close in proptest::option::of(proptest::sample::select(b"\r\nx".to_vec())),
            after in proptest::collection::vec(proptest::sample::select(b"\"]\r\nx".to_vec()), 0..4),
            ls in 0usize..4,
            ve in 0usize..44,
        ) {
            // A line (no line end in it) from `ls`, then any bytes.
            let mut data = vec![b'x'; ls];
            data.extend_from_slice(&line);
            if let Some(eol) = close {
                data.extend_from_slice(&[b'"', b']', eol]);
            }
            data.extend_from_slice(&after);
            let searched = memchr::memchr2(b'\n', b'\r', &data[ls..]).map_or(data.len(), |i| ls + i);
            // A value closes only inside the line.
            let ve = if close.is_some() { ls + line.len() } else { (ls + ve).min(searched) };
            prop_assert_eq!(line_end_after(&data, ls, Some(ve)), searched);
            prop_assert_eq!(line_end_after(&data, ls, None), searched);
        }
    }

    /// What the prefetch before a piece's games asks for: each header's first
    /// FEN value with its first Variant value wherever it stands in the
    /// header, nothing for a header without a FEN tag, nothing for a value
    /// that lies outside the piece.
    #[test]
    fn each_header_gives_its_first_fen_and_first_variant() {
        let text: &[u8] =
            b"[Event \"a\"]\n[Variant \"Chess960\"]\n[FEN \"one\"]\n[FEN \"again\"]\n\n1. e4 *\n\n\
            [FEN \"two\"]\n[Variant \"FRC\"]\n[Variant \"later\"]\n\n*\n\n\
            [Event \"no FEN\"]\n[Variant \"Crazyhouse\"]\n\n1. d4 *\n\n\
            [FEN \"three\"]\n";
        let mut scanner = crate::pgn::scan::Scanner::new();
        let mut events = Vec::new();
        scanner.feed(text, &mut events);
        scanner.finish(&mut events);
        let found: Vec<_> = HeaderFens::new(text, 0, &events).collect();
        let expected: Vec<(&[u8], Option<&[u8]>)> = vec![
            (b"one", Some(b"Chess960")),
            (b"two", Some(b"FRC")),
            (b"three", None),
        ];
        assert_eq!(found, expected);
        // The same events against a piece that starts 10 bytes in: the
        // values are read at their place in it.
        let shifted: Vec<_> = HeaderFens::new(&text[10..], 10, &events).collect();
        assert_eq!(shifted, expected);
        // A piece that starts inside the first FEN value: not that header's
        // second FEN tag instead, nothing for it.
        let cut = text.windows(5).position(|w| w == b"[FEN ").unwrap() + 7;
        let from_cut: Vec<_> = HeaderFens::new(&text[cut..], cut as u64, &events).collect();
        assert_eq!(from_cut, expected[1..]);
    }
}
