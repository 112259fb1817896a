//! Problem codes (docs/codes.md): what can be wrong with a start-position header.
//!
//! ```
//! use pgnfen_core::{Code, Problem, Severity};
//!
//! let code = Code::from_name("castling-rights").expect("a documented code");
//! assert_eq!(code.severity(), Severity::Error);
//! let problem = Problem::new(code, 13..14, "no rook on h1 for K");
//! assert_eq!(problem.to_string(), "error[castling-rights]: no rook on h1 for K");
//! ```

use std::fmt;
use std::ops::Range;

/// How bad a problem is. An error in the headers makes the game `malformed`,
/// a warning does not; `illegal-move` (an error of the moves, `--moves`) and
/// `lossy-castling` (of a conversion) leave the class as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The header is wrong: the game cannot be read as intended.
    Error,
    /// The header works but is not as it should be.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stable problem codes. Their kebab-case names are part of the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// The FEN does not follow the FEN grammar.
    FenSyntax,
    /// The position is illegal.
    IllegalPosition,
    /// A castling right whose king or rook is not on its square.
    CastlingRights,
    /// An en passant square that no double pawn step can have left.
    EnPassant,
    /// `SetUp "1"` and no FEN tag.
    SetupWithoutFen,
    /// A SetUp value other than 0 or 1 (or 0 with a FEN).
    SetupValue,
    /// Two SetUp, FEN or Variant tags that disagree.
    DuplicateTag,
    /// The position does not fit the Variant tag.
    VariantMismatch,
    /// A Variant tag that needs a FEN, and none.
    VariantWithoutFen,
    /// A FEN tag without `SetUp "1"`.
    FenWithoutSetup,
    /// Chess960 castling or a 10-file board, and no Variant tag saying so
    /// (none, or one of standard chess).
    MissingVariant,
    /// A FEN without its two clock fields.
    MissingClocks,
    /// A FEN not written the canonical way of its dialect.
    Noncanonical,
    /// Castling rights that the dialect cannot write exactly.
    LossyCastling,
    /// A mainline move that does not fit the start position (`--moves`).
    IllegalMove,
}

impl Code {
    /// Every code, in the order reports list them (`Code as usize` indexes it).
    pub const ALL: [Code; 15] = [
        Code::FenSyntax,
        Code::IllegalPosition,
        Code::CastlingRights,
        Code::EnPassant,
        Code::SetupWithoutFen,
        Code::SetupValue,
        Code::DuplicateTag,
        Code::VariantMismatch,
        Code::VariantWithoutFen,
        Code::FenWithoutSetup,
        Code::MissingVariant,
        Code::MissingClocks,
        Code::Noncanonical,
        Code::LossyCastling,
        Code::IllegalMove,
    ];

    /// The code as reports write it (`fen-syntax`, ...; see docs/codes.md).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::FenSyntax => "fen-syntax",
            Code::IllegalPosition => "illegal-position",
            Code::CastlingRights => "castling-rights",
            Code::EnPassant => "en-passant",
            Code::SetupWithoutFen => "setup-without-fen",
            Code::SetupValue => "setup-value",
            Code::DuplicateTag => "duplicate-tag",
            Code::VariantMismatch => "variant-mismatch",
            Code::VariantWithoutFen => "variant-without-fen",
            Code::FenWithoutSetup => "fen-without-setup",
            Code::MissingVariant => "missing-variant",
            Code::MissingClocks => "missing-clocks",
            Code::Noncanonical => "noncanonical",
            Code::LossyCastling => "lossy-castling",
            Code::IllegalMove => "illegal-move",
        }
    }

    /// The code of a name written by [`Code::as_str`].
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// Whether the code is an error or a warning.
    pub fn severity(self) -> Severity {
        match self {
            Code::FenWithoutSetup
            | Code::MissingVariant
            | Code::MissingClocks
            | Code::Noncanonical => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = crate::ParseNameError;

    /// A name written by [`Code::as_str`] (`fen-syntax`, ...).
    fn from_str(s: &str) -> Result<Code, crate::ParseNameError> {
        Code::from_name(s).ok_or_else(|| crate::ParseNameError::new("problem code", s, None))
    }
}

/// One problem found in a FEN string or in a game's SetUp/FEN/Variant tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What kind of problem.
    pub code: Code,
    /// Bytes at fault, as a range inside the string judged (the FEN string for
    /// FEN problems, the tag value for tag problems), each with its PGN escapes
    /// (`\"`, `\\`) undone. May be empty (a point).
    pub span: Range<usize>,
    /// What is wrong and what would be right.
    pub message: String,
    /// How to fix it, when there is one obvious fix.
    pub help: Option<String>,
}

impl Problem {
    /// A problem with `code` at `span` (bytes of the value), without help.
    pub fn new(code: Code, span: Range<usize>, message: impl Into<String>) -> Problem {
        Problem {
            code,
            span,
            message: message.into(),
            help: None,
        }
    }

    /// Adds a line on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Problem {
        self.help = Some(help.into());
        self
    }

    /// The severity of its code.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Whether its code is an error.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }

    /// 1-based column of the fault inside the judged string, in bytes.
    pub fn column(&self) -> usize {
        self.span.start + 1
    }

    /// 1-based column of the fault inside `text`, the judged string, in
    /// characters as a reader sees them: what the reports show
    /// ([`crate::pgn::tags::display_column`]).
    pub fn column_in(&self, text: &[u8]) -> usize {
        crate::pgn::tags::display_column(text, self.span.start)
    }
}

/// `error[castling-rights]: MESSAGE` (then `; help: HELP` when there is
/// help), as the command line writes a problem after its place.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity(), self.code, self.message)?;
        if let Some(help) = &self.help {
            write!(f, "; help: {help}")?;
        }
        Ok(())
    }
}

/// A problem is the error of [`crate::fen::Position::write`] (a position that a
/// dialect cannot write), so it is an error type too.
impl std::error::Error for Problem {}

/// The distinct codes of a game's problems, each once, in the order they
/// were first reported (as `check` lists them): [`classify::Tally::codes`],
/// `export`'s `problems` column. Packed in one word: the code's index in
/// [`Code::ALL`] plus 1 per 4 bits, the first in the lowest bits (15 codes
/// fit in 60 bits).
///
/// [`classify::Tally::codes`]: crate::classify::Tally::codes
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodeList(u64);

// Every code's index plus 1 must fit in a nibble, and every code once in
// the word: a 16th code needs a wider list.
const _: () = assert!(Code::ALL.len() <= 15);

impl CodeList {
    /// Adds `code` at the end, unless the list holds it already.
    pub fn add(&mut self, code: Code) {
        let n = code as u64 + 1;
        let mut rest = self.0;
        let mut shift = 0;
        while rest != 0 {
            if rest & 0xF == n {
                return;
            }
            rest >>= 4;
            shift += 4;
        }
        self.0 |= n << shift;
    }

    /// The codes, in order.
    pub fn iter(self) -> impl Iterator<Item = Code> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            let n = rest & 0xF;
            rest >>= 4;
            (n != 0).then(|| Code::ALL[n as usize - 1])
        })
    }

    /// Whether the list holds no code.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// How many problems of each [`Code`] a game has, at most `u16::MAX` each:
/// [`classify::Tally::problems`]. Read by code (`counts[Code::FenSyntax]`).
///
/// Sixteen counters for the fifteen codes: 32 bytes, which the compiler
/// copies as two 16-byte halves. Fifteen counters (30 bytes) were copied as
/// two halves that overlap, and reading such a copy right after writing it
/// stalled the processor (a load cannot take its bytes from two stores still
/// on their way to the cache): a third of the time `stats`' workers spent on
/// handing each game's counts on, in a profile.
///
/// ```
/// use pgnfen_core::Code;
/// use pgnfen_core::problem::ProblemCounts;
///
/// let mut counts = ProblemCounts::default();
/// assert!(counts.is_empty());
/// counts.add(Code::DuplicateTag);
/// counts.add(Code::DuplicateTag);
/// assert_eq!(counts[Code::DuplicateTag], 2);
/// assert_eq!(counts.iter().filter(|&(_, n)| n > 0).count(), 1);
/// ```
///
/// [`classify::Tally::problems`]: crate::classify::Tally::problems
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProblemCounts([u16; 16]);

// A counter for every code, and the 32 bytes that are copied without overlap.
const _: () = assert!(Code::ALL.len() <= 16);

impl ProblemCounts {
    /// Counts one more problem of `code` (staying at `u16::MAX`).
    #[inline]
    pub fn add(&mut self, code: Code) {
        let n = &mut self.0[code as usize];
        *n = n.saturating_add(1);
    }

    /// Every code with its count, zeros included, in the order of [`Code::ALL`].
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (Code, u16)> + use<> {
        Code::ALL.iter().copied().zip(self.0)
    }

    /// Whether no problem was counted.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 16]
    }
}

impl std::ops::Index<Code> for ProblemCounts {
    type Output = u16;

    #[inline]
    fn index(&self, code: Code) -> &u16 {
        &self.0[code as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_as_they_are_shown() {
        for code in Code::ALL {
            assert_eq!(code.to_string().parse::<Code>(), Ok(code));
        }
        for dialect in crate::fen::Dialect::ALL {
            assert_eq!(dialect.to_string().parse(), Ok(dialect));
        }
        for ep in crate::fen::EpPolicy::ALL {
            assert_eq!(ep.to_string().parse(), Ok(ep));
        }
        let e = "fen-syntaxx".parse::<Code>().unwrap_err();
        assert_eq!((e.kind(), e.given()), ("problem code", "fen-syntaxx"));
    }

    #[test]
    fn problem_counts_count_each_code_and_stop_at_the_top() {
        let mut counts = ProblemCounts::default();
        for _ in 0..3 {
            counts.add(Code::FenSyntax);
        }
        counts.add(Code::ALL[Code::ALL.len() - 1]);
        assert!(!counts.is_empty());
        assert_eq!(counts[Code::FenSyntax], 3);
        assert_eq!(counts[Code::ALL[Code::ALL.len() - 1]], 1);
        let all: Vec<_> = counts.iter().collect();
        assert_eq!(all.len(), Code::ALL.len());
        assert!(all.iter().map(|&(c, _)| c).eq(Code::ALL.iter().copied()));
        assert_eq!(all.iter().map(|&(_, n)| u32::from(n)).sum::<u32>(), 4);
        for _ in 0..u32::from(u16::MAX) + 5 {
            counts.add(Code::DuplicateTag);
        }
        assert_eq!(counts[Code::DuplicateTag], u16::MAX);
    }

    #[test]
    fn code_lists_keep_the_first_order_once() {
        let mut p = CodeList::default();
        assert!(p.is_empty());
        for c in [
            Code::MissingVariant,
            Code::FenSyntax,
            Code::MissingVariant,
            Code::LossyCastling,
            Code::FenSyntax,
        ] {
            p.add(c);
        }
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            [Code::MissingVariant, Code::FenSyntax, Code::LossyCastling]
        );
        let mut all = CodeList::default();
        for c in Code::ALL.iter().rev() {
            all.add(*c);
        }
        assert_eq!(all.iter().count(), Code::ALL.len());
        assert_eq!(all.iter().next(), Code::ALL.last().copied());
    }

    #[test]
    fn a_problem_displays_as_the_command_line_writes_it() {
        let p = Problem::new(Code::FenSyntax, 0..1, "no board");
        assert_eq!(p.to_string(), "error[fen-syntax]: no board");
        let boxed: Box<dyn std::error::Error> = Box::new(p.with_help("write a board"));
        assert_eq!(
            boxed.to_string(),
            "error[fen-syntax]: no board; help: write a board"
        );
    }

    #[test]
    fn names_round_trip_and_are_kebab_case() {
        for code in Code::ALL {
            assert_eq!(Code::from_name(code.as_str()), Some(code));
            assert!(
                code.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-')
            );
        }
        assert_eq!(Code::from_name("nonsense"), None);
    }

    #[test]
    fn severities_follow_the_spec() {
        assert_eq!(Code::FenWithoutSetup.severity(), Severity::Warning);
        assert_eq!(Code::Noncanonical.severity(), Severity::Warning);
        assert_eq!(Code::LossyCastling.severity(), Severity::Error);
        assert_eq!(Code::DuplicateTag.severity(), Severity::Error);
    }
}
