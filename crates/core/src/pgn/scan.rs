//! The game cut (docs/games.md), as a resumable byte-level state machine.
//!
//! The scanner is fed consecutive pieces of one input (split anywhere) and
//! reports where each game starts and where its SetUp/FEN/Variant tag values
//! lie, as absolute byte offsets. It keeps no more than a few bytes of
//! carry-over between pieces (at most 4 bytes of a possible termination
//! marker, plus the running hash of a tag name), so memory stays bounded.
//!
//! # The rule (docs/games.md)
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`. Outside `{...}` comments a line is
//! *blank* (spaces and tabs only; a `%` line, `%` in column 1, counts as blank),
//! a *tag line* (its first non-blank byte is `[`) or *other*.
//!
//! * Before the first tag line of the input, other lines are a preamble of the
//!   first game (which starts at offset 0); nothing in them is structural.
//! * A header is a run of tag lines with blank lines allowed between them; a
//!   blank line followed by a tag whose name the header already holds starts a
//!   new game at that tag line. The first other line starts the movetext.
//! * A tag line may hold several pairs: after a pair closes (`]`), blanks and a
//!   `[` start the next one, read the same way (its name is remembered, its
//!   value reported for SetUp/FEN/Variant). Only the line's first pair can
//!   start a new game. Anything else after a `]`, or a pair that does not
//!   close, ends the reading of the line; the rest of it is ignored.
//! * In movetext `{` opens a comment up to the next `}` (across lines, no
//!   nesting; unterminated: to the end of the input), `;` a comment to the end
//!   of the line, `(`/`)` a variation. A termination marker (`1-0`, `0-1`,
//!   `1/2-1/2`, `*` as a whole token, outside comments and variations) ends the
//!   game; a tag line (outside comments) ends it too and starts the next game.
//! * After a marker the rest of its line and the blank lines that follow belong
//!   to the ended game. Other lines after that are garbage: they are the first
//!   bytes of the next game if a tag line follows, else of the ended game
//!   (garbage at the end of the input). Nothing in them is structural.
//!
//! # How it is fast
//!
//! Movetext is not walked byte by byte: outside comments one SIMD pass looks
//! for the few structural bytes (`\n \r { ; ( ) - *`, by nibble table
//! look-ups), inside comments a SIMD search looks for `}` and line ends, and
//! opaque line rests (garbage, `;` comments, `%` lines) are skipped with a
//! search for the line end (inlined loops: these searches are short, where
//! memchr's dispatch costs more than it saves). A tag line
//! wholly inside the piece is read without the byte-level state machine, and
//! the value of a tag other than SetUp/FEN/Variant (or the extra tags asked
//! for with [`Scanner::with_extra_tags`], for `--tag` and the speed) only when a `[` comes
//! later on the line (the search for the line end notes that on the way), as a
//! further pair may follow. The cost of that option is one compare of the
//! first extra name (none asked for: it never matches) per tag name that is
//! none of the three, and a call for the others when several are asked for. A `-` or `*` is checked for a marker by looking at
//! the few bytes around it. Tag names are found with one SIMD compare and
//! packed with one load, and every line end asks for the bytes a page ahead
//! (a software prefetch).

use std::ops::Range;

mod find;

/// The three tags pgnfen reads. Tag names are case-sensitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagName {
    /// `SetUp`.
    SetUp,
    /// `FEN`.
    Fen,
    /// `Variant`.
    Variant,
}

impl TagName {
    /// The three, in the order of [`TagName::index`].
    pub const ALL: [TagName; 3] = [TagName::SetUp, TagName::Fen, TagName::Variant];

    /// The tag name as written in PGN.
    pub fn as_str(self) -> &'static str {
        match self {
            TagName::SetUp => "SetUp",
            TagName::Fen => "FEN",
            TagName::Variant => "Variant",
        }
    }

    /// Its place in [`TagName::ALL`] (0, 1, 2), for arrays kept per name.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The tag of this name as written in PGN (names are case-sensitive).
    pub fn from_name(name: &[u8]) -> Option<TagName> {
        match name {
            b"SetUp" => Some(TagName::SetUp),
            b"FEN" => Some(TagName::Fen),
            b"Variant" => Some(TagName::Variant),
            _ => None,
        }
    }
}

/// A SetUp, FEN or Variant tag pair found in a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagRef {
    /// Which tag.
    pub name: TagName,
    /// Absolute offset of the first byte of the tag line (the line start, before any indent).
    pub line_start: u64,
    /// 1-based line number of the tag line, counted from the scanner's first line.
    pub line: u64,
    /// Absolute offsets of the raw value between the quotes (escapes not decoded).
    pub value: Range<u64>,
}

/// What the scanner reports, in input order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A game starts at this absolute offset; `line` is its first line (1-based,
    /// counted from the scanner's first line).
    GameStart {
        /// Absolute offset of the game's first byte.
        offset: u64,
        /// Its first line.
        line: u64,
    },
    /// A SetUp, FEN or Variant tag pair of the current game's header.
    Tag(TagRef),
    /// The current game's header is over (first movetext line, or the game ended):
    /// no more Tag events come for this game.
    HeaderEnd,
    /// A pair of one of the extra tags the scanner was asked for
    /// ([`Scanner::with_extra_tags`]): `index` into that list, and the absolute
    /// offsets of the raw value between the quotes.
    Extra {
        /// Index of the tag name in the scanner's list.
        index: u8,
        /// Absolute offsets of the raw value.
        value: Range<u64>,
    },
    /// The current game's movetext starts at this absolute offset, on this
    /// line (its first line that is not a tag, blank or `%` line); follows
    /// the game's [`Event::HeaderEnd`]. Only from a scanner made
    /// [`Scanner::with_movetext`] (for `--moves`, which replays the movetext).
    Movetext {
        /// Absolute offset of the line's first byte.
        offset: u64,
        /// The line (1-based, as [`Event::GameStart`] counts).
        line: u64,
    },
    /// Any complete tag pair of the current game's header, SetUp/FEN/Variant
    /// included, in order: the absolute offsets of its name and of its raw value
    /// between the quotes. Only from a scanner made
    /// [`Scanner::with_all_pairs`] (for `export`, which reads every tag).
    Pair {
        /// Absolute offsets of the tag name.
        name: Range<u64>,
        /// Absolute offsets of the raw value.
        value: Range<u64>,
    },
}

/// Most extra tag names a scanner can be asked for.
pub const MAX_EXTRA_TAGS: usize = 64;

/// Which tag a pair is, once its name is complete: one of the three, or one of
/// the extra tags asked for (by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wanted {
    Tag(TagName),
    Extra(u8),
}

/// How the state at the end of one piece fits a speculative scan of the next
/// piece that began with [`Scanner::at_cut`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutFit {
    /// The next piece starts a new game exactly where the speculative scan assumed.
    NewGame,
    /// A game already started before the cut and has no tag yet (garbage after a
    /// result, or text before the first tag of the input): the speculative scan's
    /// first game is that game, starting earlier. Replace the speculative scan's
    /// first `GameStart` by [`Scanner::pending_game_start`] when that is `Some`
    /// (the start was not reported yet), drop it when `None` (it was).
    SameGame,
    /// The speculative scan is wrong here; scan the next piece with this scanner.
    Rescan,
}

/// Where the games read so far end when the input breaks off (damaged
/// compressed data: nothing more can be read), from the scanner's state
/// there: [`Scanner::break_off`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakOff {
    /// Every game begun is whole: the last one's termination marker was
    /// read (the rest of its line belongs to it), or no game began.
    Complete,
    /// The last game is whole; the text from this absolute offset on (lines
    /// after its marker that no tag line followed) belongs to no game yet.
    Pending(u64),
    /// The last game begun was cut short: its header or its movetext was
    /// being read (no termination marker).
    LastGame,
}

/// Most tag names remembered per header (for the "blank line, then a tag the
/// header already holds" rule). Names past this many tag lines are not remembered.
pub const MAX_HEADER_NAMES: usize = 256;

/// The UTF-8 byte order mark. Before an input's first line it is no part of
/// the text (the scanner, the book reader and the tag readers skip it there).
pub const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Bytes of marker look-behind kept across pieces (`1/2-` needs 3 plus a delimiter).
const TAIL: usize = 4;

/// How far ahead of each line start the scanner asks for the input's bytes
/// (see [`Scanner::terminator`]). One page ahead measured best on the bench
/// archive (2048 to 16384 all helped, about 10 % of the command's CPU time).
const PREFETCH: usize = 4096;

/// Bytes that end a movetext token.
#[inline]
fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C | b'{' | b'}' | b'(' | b')' | b';'
    )
}

/// Where the scanner stands in the game structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Start of the input: only blank lines so far, no game.
    Empty,
    /// The first game started (reported) with text before its first tag line.
    Preamble,
    /// A game ended at a termination marker; only blank lines since.
    Ended,
    /// Other lines after a marker: the next game starts here if a tag line follows.
    Garbage { offset: u64, line: u64 },
    /// In a header.
    Header,
    /// In movetext (header over, no marker yet).
    Movetext,
}

/// Progress through a tag line `[Name "value"]`, possibly followed by more pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TagSt {
    /// After a pair's `[`, skipping blanks.
    Open,
    Name,
    /// After the name, before `"`.
    AfterName,
    Value,
    /// After a backslash in the value.
    ValueEsc,
    /// After the closing quote, before `]`.
    AfterValue,
    /// After a pair's `]`, skipping blanks: a `[` opens the next pair.
    AfterPair,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TagLine {
    st: TagSt,
    /// The current pair's name so far: bytes packed big-endian while it is at
    /// most 8 long, then FNV-1a.
    hash: u64,
    len: u64,
    /// Which wanted tag the current pair is (once its name is complete).
    name: Option<Wanted>,
    line_start: u64,
    line: u64,
    /// Absolute offsets of the current pair's name (for [`Event::Pair`]).
    name_start: u64,
    name_end: u64,
    value_start: u64,
    value_end: u64,
}

/// Where the scanner stands within a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// At the very start of the input, `n` bytes of a UTF-8 BOM matched.
    Bom(u8),
    /// Column 1 of a line (outside comments).
    LineStart,
    /// Only blanks so far on this line.
    Indent,
    /// The rest of the line is opaque.
    SkipLine,
    Tag(TagLine),
    /// Movetext, outside comments.
    Move,
    /// Inside a `{` comment.
    Comment,
}

/// The resumable game scanner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanner {
    /// Absolute offset of the next byte to scan (the first carried byte, if any).
    pos: u64,
    /// Line terminators consumed.
    lines: u64,
    /// Absolute offset of the current line's first byte.
    line_start: u64,
    /// The last byte was a `\r`: a `\n` now belongs to its line end.
    skip_lf: bool,
    mode: Mode,
    phase: Phase,
    /// A blank line followed the last tag line of the header.
    saw_blank: bool,
    /// Variation depth in movetext.
    depth: u32,
    /// Name keys of the current header's tag lines.
    names: Vec<u64>,
    /// Name keys (as [`Scanner::name_key`] makes them) and lengths of the extra
    /// tags whose values are reported ([`Event::Extra`]); usually empty.
    extra: Vec<(u64, u64)>,
    /// The first of `extra`, or `NO_EXTRA`: tested inline, so that a job
    /// that reads one extra tag (`stats` reads `TimeControl`) pays two
    /// compares per tag name, not a call.
    extra_first: (u64, u64),
    /// Report every pair ([`Event::Pair`]); off by default (the fast path
    /// reads only the values of the tags it needs).
    all_pairs: bool,
    /// Report where each movetext starts ([`Event::Movetext`]).
    movetext: bool,
    /// The last bytes consumed, every byte up to the last delimiter replaced by
    /// a space: the start of a token that may be a marker.
    tail: [u8; TAIL],
    /// Unscanned bytes at the end of the last piece (a possible marker).
    carry: [u8; 8],
    carry_len: u8,
    finished: bool,
}

enum Marker {
    Yes,
    No,
    /// The bytes after the candidate are not here yet.
    NeedMore,
}

const fn pack(name: &[u8]) -> u64 {
    let mut h = 0u64;
    let mut i = 0;
    while i < name.len() {
        h = (h << 8) | name[i] as u64;
        i += 1;
    }
    h
}

/// The name key of a tag name from its [`name_hash`] and length.
#[inline(always)]
fn name_key_of(hash: u64, len: u64) -> u64 {
    if len <= 8 {
        hash
    } else {
        hash ^ len.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The key parts of the tag name `name[..len]` as [`TagLine::hash`] builds
/// them byte by byte: the first (at most 8) bytes packed big-endian, then
/// FNV-1a over the rest. `name` may go on past the name.
#[inline]
fn name_hash(name: &[u8], len: usize) -> u64 {
    let m = len.min(8);
    let mut h = match name.get(..8) {
        // One load instead of a loop: the big-endian word shifted down to
        // its first `m` bytes is what packing them one by one gives.
        Some(w) if m > 0 => u64::from_be_bytes(w.try_into().expect("8 bytes")) >> (64 - 8 * m),
        _ => name[..m].iter().fold(0, |h, &b| (h << 8) | b as u64),
    };
    for &b in &name[m..len] {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01B3);
    }
    h
}

/// The event for a complete pair of a wanted tag.
#[inline]
fn tag_event(name: Wanted, line_start: u64, line: u64, value: Range<u64>) -> Event {
    match name {
        Wanted::Tag(name) => Event::Tag(TagRef {
            name,
            line_start,
            line,
            value,
        }),
        Wanted::Extra(index) => Event::Extra { index, value },
    }
}

const KEY_SETUP: u64 = pack(b"SetUp");
const KEY_FEN: u64 = pack(b"FEN");
const KEY_VARIANT: u64 = pack(b"Variant");

/// [`Scanner::extra_first`] when no extra tag is asked for: no name has this length.
const NO_EXTRA: (u64, u64) = (0, u64::MAX);

impl Scanner {
    /// A scanner at the very start of an input (offset 0, line 1, no game yet).
    pub fn new() -> Scanner {
        Scanner {
            pos: 0,
            lines: 0,
            line_start: 0,
            skip_lf: false,
            mode: Mode::Bom(0),
            phase: Phase::Empty,
            saw_blank: false,
            depth: 0,
            names: Vec::new(),
            extra: Vec::new(),
            extra_first: NO_EXTRA,
            all_pairs: false,
            movetext: false,
            tail: [b' '; TAIL],
            carry: [0; 8],
            carry_len: 0,
            finished: false,
        }
    }

    /// A speculative scanner for a piece that begins at absolute `offset`, at the
    /// start of a tag line that follows a blank line: as if a game had just ended.
    /// Lines are counted from 1 at the cut.
    ///
    /// Offsets are `u64` byte positions: `offset` plus the bytes fed must
    /// stay below `u64::MAX` (16 EiB), else the offsets of later events
    /// overflow (a panic in a debug build). The scanner's own arithmetic is
    /// unchecked because it runs for every line.
    pub fn at_cut(offset: u64) -> Scanner {
        Scanner {
            pos: offset,
            line_start: offset,
            mode: Mode::LineStart,
            phase: Phase::Ended,
            ..Scanner::new()
        }
    }

    /// Also reports the values of these tags ([`Event::Extra`], with the index
    /// into `names`; at most [`MAX_EXTRA_TAGS`] are used). Tag names are
    /// compared by the key the scanner uses for the duplicate-name rule: exact
    /// for names of up to 8 bytes, a 64-bit hash with the length beyond.
    pub fn with_extra_tags<N: AsRef<[u8]>>(mut self, names: &[N]) -> Scanner {
        self.extra = names
            .iter()
            .take(MAX_EXTRA_TAGS)
            .map(|n| {
                let n = n.as_ref();
                (
                    name_key_of(name_hash(n, n.len()), n.len() as u64),
                    n.len() as u64,
                )
            })
            .collect();
        self.extra_first = self.extra.first().copied().unwrap_or(NO_EXTRA);
        self
    }

    /// Also reports every complete tag pair of every header ([`Event::Pair`]),
    /// whatever its name: every value is then read.
    pub fn with_all_pairs(mut self) -> Scanner {
        self.all_pairs = true;
        self
    }

    /// Also reports where each game's movetext starts ([`Event::Movetext`]).
    pub fn with_movetext(mut self) -> Scanner {
        self.movetext = true;
        self
    }

    /// Scans the next piece of the input, which begins where the previous piece ended.
    pub fn feed(&mut self, piece: &[u8], events: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        let mut piece = piece;
        if self.carry_len > 0 && !piece.is_empty() {
            let c = self.carry_len as usize;
            let mut tmp = [0u8; 32];
            tmp[..c].copy_from_slice(&self.carry[..c]);
            let t = piece.len().min(tmp.len() - c);
            tmp[c..c + t].copy_from_slice(&piece[..t]);
            self.carry_len = 0;
            let n = self.run(&tmp[..c + t], false, events);
            if n >= c {
                piece = &piece[n - c..];
            } else {
                // Still waiting inside the carried bytes: the piece was short and
                // is all in `tmp`.
                self.set_carry(&tmp[n..c + t]);
                return;
            }
        }
        let n = self.run(piece, false, events);
        self.set_carry(&piece[n..]);
    }

    /// Ends the input (flushes a tag line cut off at the end, ends the last game).
    pub fn finish(&mut self, events: &mut Vec<Event>) {
        if self.finished {
            return;
        }
        if self.carry_len > 0 {
            let c = self.carry_len as usize;
            let tmp = self.carry;
            self.carry_len = 0;
            let n = self.run(&tmp[..c], true, events);
            debug_assert_eq!(n, c);
        }
        match self.mode {
            Mode::Tag(mut t) if matches!(t.st, TagSt::Open | TagSt::Name) => {
                self.name_done(&mut t, events);
            }
            Mode::Bom(n) if n > 0 => self.other_line(events),
            _ => {}
        }
        if matches!(self.phase, Phase::Header | Phase::Preamble) {
            events.push(Event::HeaderEnd);
            if self.phase == Phase::Preamble && self.movetext {
                // An input of text without any tag line is one game with no
                // header: all of its text is its movetext.
                events.push(Event::Movetext { offset: 0, line: 1 });
            }
        }
        self.finished = true;
    }

    /// Line terminators seen so far.
    pub fn lines_seen(&self) -> u64 {
        self.lines
    }

    /// Absolute offset of the next byte the scanner expects (bytes fed so far).
    pub fn offset(&self) -> u64 {
        self.pos + self.carry_len as u64
    }

    /// Whether a speculative scan started at the current position would be right.
    pub fn fits_cut(&self) -> CutFit {
        if self.carry_len > 0 || !matches!(self.mode, Mode::LineStart | Mode::Bom(0)) {
            return CutFit::Rescan;
        }
        match self.phase {
            Phase::Ended | Phase::Movetext => CutFit::NewGame,
            Phase::Empty | Phase::Preamble | Phase::Garbage { .. } => CutFit::SameGame,
            Phase::Header => CutFit::Rescan,
        }
    }

    /// Where the games read so far end if the input breaks off here.
    pub fn break_off(&self) -> BreakOff {
        match self.phase {
            // A line of blanks so far after the marker's line: it could have
            // become the next game's indented tag line.
            Phase::Ended if self.mode == Mode::Indent => BreakOff::Pending(self.line_start),
            Phase::Empty | Phase::Ended => BreakOff::Complete,
            Phase::Garbage { offset, .. } => BreakOff::Pending(offset),
            Phase::Preamble | Phase::Header | Phase::Movetext => BreakOff::LastGame,
        }
    }

    /// Whether the current game's header is over and nothing waits to be
    /// assigned to a game: the scanner is in movetext, or after a termination
    /// marker with only blank lines since. From here on a scanner's events
    /// depend only on its own state, not on the header read before (the
    /// pipeline resumes a speculative scan where the true scanner meets it
    /// in such a state).
    pub fn between_headers(&self) -> bool {
        matches!(self.phase, Phase::Movetext | Phase::Ended)
    }

    /// A game start that is already determined but not reported yet: the start of
    /// garbage after a marker (reported only once a tag line follows), or the
    /// start of the input while only blank lines were seen. Used with
    /// [`CutFit::SameGame`]. Offsets are absolute, lines counted from this
    /// scanner's first line.
    pub fn pending_game_start(&self) -> Option<(u64, u64)> {
        match self.phase {
            Phase::Empty => Some((0, 1)),
            Phase::Garbage { offset, line } => Some((offset, line)),
            _ => None,
        }
    }

    /// Adds `by` to every line number the scanner holds: rebases a speculative
    /// scanner (which counts lines from 1 at its cut) once the number of line
    /// terminators before the cut is known. Only affects later events.
    pub fn rebase_lines(&mut self, by: u64) {
        self.lines = self.lines.saturating_add(by);
        if let Mode::Tag(t) = &mut self.mode {
            t.line = t.line.saturating_add(by);
        }
        if let Phase::Garbage { line, .. } = &mut self.phase {
            *line = line.saturating_add(by);
        }
    }

    fn set_carry(&mut self, rest: &[u8]) {
        debug_assert!(rest.len() <= self.carry.len());
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carry_len = rest.len() as u8;
    }

    /// Consumes the line terminator at `k` (`\n`, `\r`, or `\r\n`); returns the
    /// index after it.
    #[inline]
    fn terminator(&mut self, buf: &[u8], k: usize, base: u64) -> usize {
        self.lines += 1;
        let mut next = k + 1;
        if buf[k] == b'\r' {
            if next < buf.len() {
                if buf[next] == b'\n' {
                    next += 1;
                }
            } else {
                self.skip_lf = true;
            }
        }
        self.line_start = base + next as u64;
        // Pieces are often memory-mapped file pages read once and first
        // touched here, where the searches then wait for memory (the hardware
        // prefetcher stops at page ends): have the bytes some lines ahead on
        // their way. Mostly the same cache line again; that costs little.
        find::prefetch(buf, next + PREFETCH);
        next
    }

    fn enter_header(&mut self) {
        self.phase = Phase::Header;
        self.names.clear();
        self.saw_blank = false;
        self.depth = 0;
    }

    #[inline]
    fn blank_line(&mut self) {
        if self.phase == Phase::Header {
            self.saw_blank = true;
        }
    }

    /// A tag line begins at the current line start; returns its scan state (the
    /// caller scans it, rather than reading it back from `self.mode`, which made
    /// the CPU wait for the stores just done).
    #[inline]
    fn tag_line(&mut self, events: &mut Vec<Event>) -> TagLine {
        let (offset, line) = (self.line_start, self.lines + 1);
        match self.phase {
            Phase::Empty => {
                events.push(Event::GameStart { offset: 0, line: 1 });
                self.enter_header();
            }
            Phase::Preamble => self.enter_header(),
            Phase::Ended | Phase::Movetext => {
                events.push(Event::GameStart { offset, line });
                self.enter_header();
            }
            Phase::Garbage { offset, line } => {
                events.push(Event::GameStart { offset, line });
                self.enter_header();
            }
            Phase::Header => {}
        }
        TagLine {
            st: TagSt::Open,
            hash: 0,
            len: 0,
            name: None,
            line_start: offset,
            line,
            name_start: 0,
            name_end: 0,
            value_start: 0,
            value_end: 0,
        }
    }

    /// An other line begins; sets the mode that scans it.
    fn other_line(&mut self, events: &mut Vec<Event>) {
        self.mode = Mode::SkipLine;
        match self.phase {
            Phase::Empty => {
                events.push(Event::GameStart { offset: 0, line: 1 });
                self.phase = Phase::Preamble;
            }
            Phase::Preamble | Phase::Garbage { .. } => {}
            Phase::Ended => {
                self.phase = Phase::Garbage {
                    offset: self.line_start,
                    line: self.lines + 1,
                };
            }
            Phase::Header => {
                events.push(Event::HeaderEnd);
                if self.movetext {
                    events.push(Event::Movetext {
                        offset: self.line_start,
                        line: self.lines + 1,
                    });
                }
                self.phase = Phase::Movetext;
                self.depth = 0;
                self.mode = Mode::Move;
            }
            Phase::Movetext => self.mode = Mode::Move,
        }
    }

    /// The name of the current pair of the tag line `t` is complete: see
    /// [`Self::name_key`].
    #[inline]
    fn name_done(&mut self, t: &mut TagLine, events: &mut Vec<Event>) {
        t.name = self.name_key(t.hash, t.len, t.line_start, t.line, events);
    }

    /// A pair's name is complete (`hash` and `len` as [`TagLine`] holds them;
    /// the tag line starts at `line_start`, on `line`): the duplicate-name rule
    /// (only a line's first pair can follow a blank line), the name list, and
    /// which of the three tags it is. Inlined: it runs for every tag line.
    #[inline(always)]
    fn name_key(
        &mut self,
        hash: u64,
        len: u64,
        line_start: u64,
        line: u64,
        events: &mut Vec<Event>,
    ) -> Option<Wanted> {
        let key = name_key_of(hash, len);
        if len > 0 {
            if self.saw_blank && self.names.contains(&key) {
                self.repeated_name(line_start, line, events);
            }
            if self.names.len() < MAX_HEADER_NAMES {
                self.names.push(key);
            }
        }
        self.saw_blank = false;
        match (len, key) {
            (5, KEY_SETUP) => Some(Wanted::Tag(TagName::SetUp)),
            (3, KEY_FEN) => Some(Wanted::Tag(TagName::Fen)),
            (7, KEY_VARIANT) => Some(Wanted::Tag(TagName::Variant)),
            // The first extra tag inline; the others (rare: several --tag
            // names) through a call.
            _ if key == self.extra_first.0 && len == self.extra_first.1 => Some(Wanted::Extra(0)),
            _ if self.extra.len() > 1 => self.extra_index(key, len),
            _ => None,
        }
    }

    #[cold]
    fn extra_index(&self, key: u64, len: u64) -> Option<Wanted> {
        self.extra
            .iter()
            .position(|&(k, l)| k == key && l == len)
            .map(|i| Wanted::Extra(i as u8))
    }

    /// A blank line, then a tag the header already holds: a new game starts at
    /// that tag line. Kept out of line: it is rare.
    #[cold]
    fn repeated_name(&mut self, line_start: u64, line: u64, events: &mut Vec<Event>) {
        events.push(Event::HeaderEnd);
        events.push(Event::GameStart {
            offset: line_start,
            line,
        });
        self.enter_header();
    }

    /// Scans the bytes of a tag line from `i` up to its end or the end of `buf`.
    /// Returns the index where it stopped; updates `self.mode`.
    fn tag_bytes(
        &mut self,
        mut t: TagLine,
        buf: &[u8],
        mut i: usize,
        base: u64,
        events: &mut Vec<Event>,
    ) -> usize {
        let len = buf.len();
        while i < len {
            let b = buf[i];
            if t.st == TagSt::Name && !matches!(b, b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r') {
                // Plain name bytes, in a tight loop.
                let mut h = t.hash;
                let mut n = t.len;
                let mut j = i;
                while j < len {
                    let b = buf[j];
                    if matches!(b, b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r') {
                        break;
                    }
                    h = if n < 8 {
                        (h << 8) | b as u64
                    } else {
                        (h ^ b as u64).wrapping_mul(0x0100_0000_01B3)
                    };
                    n += 1;
                    j += 1;
                }
                t.hash = h;
                t.len = n;
                i = j;
                continue;
            }
            if b == b'\n' || b == b'\r' {
                if matches!(t.st, TagSt::Open | TagSt::Name) {
                    self.name_done(&mut t, events);
                }
                self.mode = Mode::LineStart;
                return self.terminator(buf, i, base);
            }
            match t.st {
                TagSt::Open => {
                    if b == b' ' || b == b'\t' {
                    } else if b == b'"' || b == b']' {
                        self.name_done(&mut t, events);
                        self.mode = Mode::SkipLine;
                        return i;
                    } else {
                        t.st = TagSt::Name;
                        t.name_start = base + i as u64;
                        continue;
                    }
                }
                TagSt::Name => {
                    if b == b' ' || b == b'\t' || b == b'"' || b == b']' {
                        t.name_end = base + i as u64;
                        self.name_done(&mut t, events);
                        if b == b']' {
                            // No value: the rest of the line is opaque.
                            self.mode = Mode::SkipLine;
                            return i;
                        }
                        if b == b'"' {
                            t.st = TagSt::Value;
                            t.value_start = base + i as u64 + 1;
                        } else {
                            t.st = TagSt::AfterName;
                        }
                    } else {
                        t.hash = if t.len < 8 {
                            (t.hash << 8) | b as u64
                        } else {
                            (t.hash ^ b as u64).wrapping_mul(0x0100_0000_01B3)
                        };
                        t.len += 1;
                    }
                }
                TagSt::AfterName => {
                    if b == b'"' {
                        t.st = TagSt::Value;
                        t.value_start = base + i as u64 + 1;
                    } else if b != b' ' && b != b'\t' {
                        self.mode = Mode::SkipLine;
                        return i;
                    }
                }
                TagSt::Value => {
                    if b == b'"' {
                        t.st = TagSt::AfterValue;
                        t.value_end = base + i as u64;
                    } else if b == b'\\' {
                        t.st = TagSt::ValueEsc;
                    }
                }
                TagSt::ValueEsc => t.st = TagSt::Value,
                TagSt::AfterValue => {
                    if b == b']' {
                        if let Some(name) = t.name {
                            events.push(tag_event(
                                name,
                                t.line_start,
                                t.line,
                                t.value_start..t.value_end,
                            ));
                        }
                        if self.all_pairs {
                            events.push(Event::Pair {
                                name: t.name_start..t.name_end,
                                value: t.value_start..t.value_end,
                            });
                        }
                        t.st = TagSt::AfterPair;
                    } else if b != b' ' && b != b'\t' {
                        self.mode = Mode::SkipLine;
                        return i;
                    }
                }
                TagSt::AfterPair => {
                    if b == b'[' {
                        t.st = TagSt::Open;
                        t.hash = 0;
                        t.len = 0;
                        t.name = None;
                    } else if b != b' ' && b != b'\t' {
                        self.mode = Mode::SkipLine;
                        return i;
                    }
                }
            }
            i += 1;
        }
        self.mode = Mode::Tag(t);
        i
    }

    /// Scans a tag line that lies whole in `buf[..n]` (`buf[n]` is its line
    /// terminator), from `j`, just after the first `[`: what
    /// [`Self::tag_bytes`] does byte by byte, without its state machine. Only
    /// the names are looked at, and the value only for SetUp, FEN and Variant,
    /// or when `more` (a `[` comes later on the line: a further pair may follow).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn whole_tag_line(
        &mut self,
        t: TagLine,
        buf: &[u8],
        n: usize,
        mut j: usize,
        more: bool,
        base: u64,
        events: &mut Vec<Event>,
    ) {
        let line = &buf[..n];
        // Most bytes tested are a name's or a bracket: above the space, one
        // comparison tells them.
        let blank = |b: u8| b <= b' ' && (b == b' ' || b == b'\t');
        loop {
            // `j` is just after a pair's `[`.
            while j < n && blank(line[j]) {
                j += 1;
            }
            // The name is found with one SIMD compare and packed with one
            // load; `buf` (not `line`) lets those read past the line end.
            let len = find::name_len(&buf[j..], n - j);
            let h = name_hash(&buf[j..], len);
            let name_start = j;
            j += len;
            let name = self.name_key(h, len as u64, t.line_start, t.line, events);
            if len == 0 {
                return;
            }
            // Most tag lines hold one pair of another tag: with no `[` later on
            // the line no further pair can follow, and this value is not needed.
            if name.is_none() && !more && !self.all_pairs {
                return;
            }
            // After the name: blanks, then the opening quote.
            while j < n && blank(line[j]) {
                j += 1;
            }
            if j == n || line[j] != b'"' {
                return;
            }
            let value_start = j + 1;
            // The closing quote; a backslash escapes the byte after it.
            j = value_start;
            // An extra tag's value (a TimeControl, an Elo) is a few bytes: a
            // plain loop finds its end sooner than a call. On a backslash or
            // past the first bytes, the search below goes on from there.
            let mut closed = false;
            if matches!(name, Some(Wanted::Extra(_))) {
                let stop = n.min(j + 24);
                while j < stop {
                    match line[j] {
                        b'"' => {
                            closed = true;
                            break;
                        }
                        b'\\' => break,
                        _ => j += 1,
                    }
                }
            }
            while !closed {
                match find::value_stop(&buf[j..], n - j) {
                    None => return,
                    Some(o) if line[j + o] == b'"' => {
                        j += o;
                        closed = true;
                    }
                    Some(o) => {
                        j += o + 2;
                        if j >= n {
                            return;
                        }
                    }
                }
            }
            let value_end = j;
            j += 1;
            while j < n && blank(line[j]) {
                j += 1;
            }
            if j == n || line[j] != b']' {
                return;
            }
            if let Some(name) = name {
                events.push(tag_event(
                    name,
                    t.line_start,
                    t.line,
                    base + value_start as u64..base + value_end as u64,
                ));
            }
            if self.all_pairs {
                events.push(Event::Pair {
                    name: base + name_start as u64..base + (name_start + len) as u64,
                    value: base + value_start as u64..base + value_end as u64,
                });
            }
            // After the `]`: blanks, then a `[` opens the next pair.
            j += 1;
            while j < n && blank(line[j]) {
                j += 1;
            }
            if j == n || line[j] != b'[' {
                return;
            }
            j += 1;
        }
    }

    /// Whether the `-` or `*` at `buf[k]` (movetext, depth 0) is a marker token.
    fn marker_at(&self, buf: &[u8], k: usize, last: bool) -> Marker {
        let back = |d: usize| -> u8 {
            if k >= d {
                buf[k - d]
            } else {
                self.tail[TAIL - (d - k)]
            }
        };
        let fwd = |d: usize| -> Option<u8> { buf.get(k + d).copied() };
        let end_ok = |d: usize| -> Marker {
            match fwd(d) {
                Some(b) if is_delim(b) => Marker::Yes,
                Some(_) => Marker::No,
                None if last => Marker::Yes,
                None => Marker::NeedMore,
            }
        };
        if buf[k] == b'*' {
            if !is_delim(back(1)) {
                return Marker::No;
            }
            return end_ok(1);
        }
        let (before, after): (&[u8], &[u8]) = match back(1) {
            b'1' => (b"1", b"0"),
            b'0' => (b"0", b"1"),
            b'2' => (b"1/2", b"1/2"),
            _ => return Marker::No,
        };
        for (j, &e) in before.iter().rev().enumerate() {
            if back(j + 1) != e {
                return Marker::No;
            }
        }
        if !is_delim(back(before.len() + 1)) {
            return Marker::No;
        }
        for (j, &e) in after.iter().enumerate() {
            match fwd(j + 1) {
                Some(b) if b == e => {}
                Some(_) => return Marker::No,
                None if last => return Marker::No,
                None => return Marker::NeedMore,
            }
        }
        end_ok(after.len() + 1)
    }

    /// Scans `buf`, which starts at `self.pos`. Returns how many bytes were
    /// consumed: all of them, except (when not `last`) a few at the end that
    /// may complete a marker.
    fn run(&mut self, buf: &[u8], last: bool, events: &mut Vec<Event>) -> usize {
        let base = self.pos;
        let len = buf.len();
        let mut i = 0;
        if self.skip_lf && len > 0 {
            self.skip_lf = false;
            if buf[0] == b'\n' {
                i = 1;
                self.line_start = base + 1;
            }
        }
        'outer: while i < len {
            match self.mode {
                Mode::Move => loop {
                    let Some(o) = find::find_struct(&buf[i..]) else {
                        i = len;
                        break 'outer;
                    };
                    let k = i + o;
                    match buf[k] {
                        b'\n' | b'\r' => {
                            i = self.terminator(buf, k, base);
                            // Most movetext lines are followed by another one
                            // that starts with a move number: an other line,
                            // which keeps the scanner in `Mode::Move` (mode
                            // `Move` means phase `Movetext`). Stay in this loop
                            // then; blanks, `%`, `[` and line ends go through
                            // `Mode::LineStart`.
                            if i < len
                                && !matches!(buf[i], b' ' | b'\t' | b'\n' | b'\r' | b'%' | b'[')
                            {
                                continue;
                            }
                            self.mode = Mode::LineStart;
                            continue 'outer;
                        }
                        b'{' => {
                            // Most comments close on their line: skip them here.
                            if let Some(o) = find::find_comment_end(&buf[k + 1..])
                                && buf[k + 1 + o] == b'}'
                            {
                                i = k + 2 + o;
                                continue;
                            }
                            i = k + 1;
                            self.mode = Mode::Comment;
                            continue 'outer;
                        }
                        b';' => {
                            i = k + 1;
                            self.mode = Mode::SkipLine;
                            continue 'outer;
                        }
                        b'(' => {
                            self.depth = self.depth.saturating_add(1);
                            i = k + 1;
                        }
                        b')' => {
                            self.depth = self.depth.saturating_sub(1);
                            i = k + 1;
                        }
                        _ => {
                            if self.depth > 0 {
                                i = k + 1;
                                continue;
                            }
                            match self.marker_at(buf, k, last) {
                                Marker::No => i = k + 1,
                                Marker::Yes => {
                                    self.phase = Phase::Ended;
                                    self.mode = Mode::SkipLine;
                                    i = k + 1;
                                    continue 'outer;
                                }
                                Marker::NeedMore => {
                                    i = k;
                                    break 'outer;
                                }
                            }
                        }
                    }
                },
                Mode::Comment => match find::find_comment_end(&buf[i..]) {
                    None => i = len,
                    Some(o) => {
                        let k = i + o;
                        if buf[k] == b'}' {
                            self.mode = Mode::Move;
                            i = k + 1;
                        } else {
                            i = self.terminator(buf, k, base);
                        }
                    }
                },
                Mode::SkipLine => match find::find_eol(&buf[i..]) {
                    None => i = len,
                    Some(o) => {
                        i = self.terminator(buf, i + o, base);
                        self.mode = Mode::LineStart;
                    }
                },
                Mode::LineStart | Mode::Indent => {
                    let b = buf[i];
                    match b {
                        b' ' | b'\t' => {
                            self.mode = Mode::Indent;
                            i += 1;
                        }
                        b'\n' | b'\r' => {
                            self.blank_line();
                            i = self.terminator(buf, i, base);
                            self.mode = Mode::LineStart;
                        }
                        b'%' if self.mode == Mode::LineStart => {
                            self.blank_line();
                            self.mode = Mode::SkipLine;
                            i += 1;
                        }
                        b'[' => loop {
                            let t = self.tag_line(events);
                            let (Some(o), more) = find::find_eol_and(&buf[i + 1..], b'[') else {
                                i = self.tag_bytes(t, buf, i + 1, base, events);
                                break;
                            };
                            // The usual case: the whole line is here.
                            let e = i + 1 + o;
                            self.whole_tag_line(t, buf, e, i + 1, more, base, events);
                            i = self.terminator(buf, e, base);
                            self.mode = Mode::LineStart;
                            // In a header the next line is usually another tag
                            // line: read it here rather than through the
                            // dispatch on `self.mode`.
                            if i >= len || buf[i] != b'[' {
                                break;
                            }
                        },
                        _ => self.other_line(events),
                    }
                }
                Mode::Tag(t) => i = self.tag_bytes(t, buf, i, base, events),
                Mode::Bom(n) => {
                    let b = buf[i];
                    if b == BOM[n as usize] {
                        i += 1;
                        if n == 2 {
                            self.mode = Mode::LineStart;
                            self.line_start = base + i as u64;
                        } else {
                            self.mode = Mode::Bom(n + 1);
                        }
                    } else if n == 0 {
                        self.mode = Mode::LineStart;
                    } else {
                        // A partial BOM: the first line holds other bytes.
                        self.other_line(events);
                    }
                }
            }
        }
        self.update_tail(&buf[..i]);
        self.pos = base + i as u64;
        i
    }

    fn update_tail(&mut self, done: &[u8]) {
        let mut t = self.tail;
        for &b in &done[done.len().saturating_sub(TAIL)..] {
            t.copy_within(1.., 0);
            t[TAIL - 1] = b;
        }
        if let Some(d) = t.iter().rposition(|&b| is_delim(b)) {
            t[..=d].fill(b' ');
        }
        self.tail = t;
    }
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner::new()
    }
}

#[cfg(test)]
mod tests;
