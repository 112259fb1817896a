//! The game cut of SPEC §4, as a resumable byte-level state machine.
//!
//! The scanner is fed consecutive pieces of one input (split anywhere) and
//! reports where each game starts and where its SetUp/FEN/Variant tag values
//! lie, as absolute byte offsets. It never looks at a byte twice and keeps
//! no more than a few bytes of carry-over, so memory stays bounded.

use std::ops::Range;

/// The three tags pgnfen reads. Tag names are case-sensitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagName {
    SetUp,
    Fen,
    Variant,
}

impl TagName {
    pub fn as_str(self) -> &'static str {
        match self {
            TagName::SetUp => "SetUp",
            TagName::Fen => "FEN",
            TagName::Variant => "Variant",
        }
    }
}

/// A SetUp, FEN or Variant tag pair found in a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagRef {
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
    GameStart { offset: u64, line: u64 },
    /// A SetUp, FEN or Variant tag pair of the current game's header.
    Tag(TagRef),
    /// The current game's header is over (first movetext line, or the game ended):
    /// no more Tag events come for this game.
    HeaderEnd,
}

/// How the state at the end of one piece fits a speculative scan of the next
/// piece that began with [`Scanner::at_cut`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutFit {
    /// The next piece starts a new game exactly where the speculative scan assumed.
    NewGame,
    /// A game already started before the cut and has no tag yet (garbage after a
    /// result, or text before the first tag of the input): the speculative scan's
    /// first game is that game, starting earlier.
    SameGame,
    /// The speculative scan is wrong here; scan the next piece with this scanner.
    Rescan,
}

/// The resumable game scanner.
#[derive(Clone, Debug)]
pub struct Scanner {}

impl Scanner {
    /// A scanner at the very start of an input (offset 0, line 1, no game yet).
    pub fn new() -> Scanner {
        todo!()
    }

    /// A speculative scanner for a piece that begins at absolute `offset`, at the
    /// start of a tag line that follows a blank line: as if a game had just ended.
    /// Lines are counted from 1 at the cut.
    pub fn at_cut(_offset: u64) -> Scanner {
        todo!()
    }

    /// Scans the next piece of the input, which begins where the previous piece ended.
    pub fn feed(&mut self, _piece: &[u8], _events: &mut Vec<Event>) {
        todo!()
    }

    /// Ends the input (flushes a tag line cut off at the end, ends the last game).
    pub fn finish(&mut self, _events: &mut Vec<Event>) {
        todo!()
    }

    /// Line terminators seen so far.
    pub fn lines_seen(&self) -> u64 {
        todo!()
    }

    /// Whether a speculative scan started at the current position would be right.
    pub fn fits_cut(&self) -> CutFit {
        todo!()
    }
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner::new()
    }
}
