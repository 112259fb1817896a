//! The FEN model: strict parsing of 8×8 and 10×8 FEN records (docs/dialects.md), position
//! checks, classification of a bare position (docs/classes.md) and writing in the three
//! dialects (docs/dialects.md).
//!
//! The one entry point is [`analyse`]; it never panics, whatever the bytes.
//!
//! ```
//! use pgnfen_core::fen::{Dialect, VariantHint, analyse};
//! use pgnfen_core::Class;
//!
//! // Chess960 start position 518 is the standard array: X-FEN writes KQkq.
//! let analysis = analyse(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", VariantHint::Chess960);
//! assert_eq!(analysis.class, Class::Chess960);
//! assert_eq!(analysis.chess960_position, Some(518));
//! let position = analysis.position.expect("a legal position");
//! assert_eq!(
//!     position.write(Dialect::Xfen, None)?,
//!     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
//! );
//! // A broken record: problems with their byte spans, never a panic.
//! let broken = analyse(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", VariantHint::StandardLike);
//! assert_eq!(broken.class, Class::Malformed);
//! assert!(!broken.problems.is_empty());
//! # Ok::<(), pgnfen_core::Problem>(())
//! ```

pub mod board;
pub mod castling;
pub mod chess960;
pub mod epd;
pub(crate) mod parse;
pub mod report;
pub mod write;

pub use board::{Board, Color, Piece, Role, Square};
pub use castling::{CastlingRights, Side};
pub use epd::{Record, analyse_record};
pub use parse::Prefix;
pub use report::{Report, ReportProblem, report, report_record};

use crate::class::Class;
use crate::problem::{Code, Problem};

/// The three ways of writing castling rights (docs/dialects.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dialect {
    /// Classic FEN: `KQkq` only.
    Fen,
    /// X-FEN: `KQkq` for the outermost rook, the file letter for an inner one.
    Xfen,
    /// Shredder-FEN: always the rook files (`HAha`).
    Shredder,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 3] = [Dialect::Fen, Dialect::Xfen, Dialect::Shredder];

    /// The dialect's name as the commands write it: `fen`, `xfen`, `shredder`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Fen => "fen",
            Dialect::Xfen => "xfen",
            Dialect::Shredder => "shredder",
        }
    }

    /// One line on how the dialect writes castling rights (`--help` shows it).
    pub fn description(self) -> &'static str {
        match self {
            Dialect::Fen => "Classic FEN: `KQkq` only",
            Dialect::Xfen => {
                "X-FEN: `KQkq` for the outermost rook, the file letter for an inner one"
            }
            Dialect::Shredder => "Shredder-FEN: always the rook files (`HAha`)",
        }
    }
}

/// Which en passant square to write (`--ep`; docs/dialects.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EpPolicy {
    /// The square of the input, if any.
    AsIs,
    /// Only when a pawn of the side to move stands beside the pawn that moved.
    PseudoLegal,
    /// Only when the en passant capture is legal.
    Legal,
}

impl EpPolicy {
    /// Every policy.
    pub const ALL: [EpPolicy; 3] = [EpPolicy::AsIs, EpPolicy::PseudoLegal, EpPolicy::Legal];

    /// The policy's name as the commands write it: `as-is`, `pseudo-legal`, `legal`.
    pub fn as_str(self) -> &'static str {
        match self {
            EpPolicy::AsIs => "as-is",
            EpPolicy::PseudoLegal => "pseudo-legal",
            EpPolicy::Legal => "legal",
        }
    }

    /// One line on which square the policy writes (`--help` shows it).
    pub fn description(self) -> &'static str {
        match self {
            EpPolicy::AsIs => "The square of the input, if any",
            EpPolicy::PseudoLegal => {
                "Only when a pawn of the side to move stands beside the pawn that moved"
            }
            EpPolicy::Legal => "Only when the en passant capture is legal",
        }
    }
}

impl std::fmt::Display for Dialect {
    /// Its name, as [`Dialect::as_str`] writes it and `parse` reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for EpPolicy {
    /// Its name, as [`EpPolicy::as_str`] writes it and `parse` reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Dialect {
    type Err = crate::ParseNameError;

    /// A name written by [`Dialect::as_str`], in any case and also as the
    /// dialects are called in prose (`"X-FEN"`, `"Shredder-FEN"`).
    ///
    /// ```
    /// use pgnfen_core::fen::Dialect;
    /// assert_eq!("X-FEN".parse::<Dialect>(), Ok(Dialect::Xfen));
    /// assert_eq!("Shredder-FEN".parse::<Dialect>(), Ok(Dialect::Shredder));
    /// assert_eq!("shredder".parse::<Dialect>(), Ok(Dialect::Shredder));
    /// let e = "epd".parse::<Dialect>().unwrap_err();
    /// assert_eq!(e.to_string(), r#"unknown dialect "epd"; expected fen, xfen or shredder"#);
    /// ```
    fn from_str(s: &str) -> Result<Dialect, crate::ParseNameError> {
        let folded: String = s
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .collect::<String>()
            .to_ascii_lowercase();
        let name = folded
            .strip_suffix("fen")
            .filter(|rest| *rest == "shredder");
        let expected = "fen, xfen or shredder";
        crate::ParseNameError::find(
            &Dialect::ALL,
            Dialect::as_str,
            "dialect",
            name.unwrap_or(&folded),
            expected,
        )
        .map_err(|_| crate::ParseNameError::new("dialect", s, Some(expected)))
    }
}

impl std::str::FromStr for EpPolicy {
    type Err = crate::ParseNameError;

    /// A name written by [`EpPolicy::as_str`].
    fn from_str(s: &str) -> Result<EpPolicy, crate::ParseNameError> {
        crate::ParseNameError::find(
            &EpPolicy::ALL,
            EpPolicy::as_str,
            "en passant policy",
            s,
            "as-is, pseudo-legal or legal",
        )
    }
}

/// Board width: 8 files (a–h) or 10 files (a–j), always 8 ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardSize {
    /// 8×8: chess and Chess960.
    Eight,
    /// 10×8: the Capablanca family.
    Ten,
}

impl BoardSize {
    /// `"8x8"` or `"10x8"`, as in `fen --format json`.
    pub fn as_str(self) -> &'static str {
        match self {
            BoardSize::Eight => "8x8",
            BoardSize::Ten => "10x8",
        }
    }
}

/// What a game's Variant tag says about the board, so that a FEN is
/// judged in the right castling mode. A bare FEN is `StandardLike`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VariantHint {
    /// No Variant tag, or a standard-like one: the position decides.
    StandardLike,
    /// A Chess960 Variant tag: 8×8 positions are judged in Chess960 mode and are class `chess960`.
    Chess960,
    /// A Capablanca-family Variant tag (10×8).
    Capablanca,
}

/// Everything pgnfen knows about one FEN string.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Known as soon as the placement parsed; `None` when the placement is unreadable.
    pub board: Option<BoardSize>,
    /// `Standard`, `Setup`, `Chess960`, `Crc` or `Malformed` (never `Other`).
    pub class: Class,
    /// Scharnagl number (0–959) when the position is a Chess960 start array (518 = standard).
    pub chess960_position: Option<u16>,
    /// A castling right needs Chess960 castling (king off the e-file or rook off the a/h-files).
    pub needs_chess960_castling: bool,
    /// Every problem found, errors and warnings, spans inside the FEN string.
    pub problems: Vec<Problem>,
    /// The position, when there is no error-severity problem.
    pub position: Option<Position>,
    /// The fields of the record already written as the writers write them.
    verbatim: parse::Verbatim,
}

impl Analysis {
    /// Whether the record is a legal position (no error-severity problem).
    pub fn is_valid(&self) -> bool {
        self.position.is_some()
    }

    /// The position written in `dialect` as [`Position::write_read_from`]
    /// writes it, appended to `out` (on failure `out` is left as it was);
    /// `None` when there is no position.
    ///
    /// `text` is the record this analysis was made from: the fields it
    /// already holds as the writers write them (a placement and clocks in
    /// their shortest form, as nearly every FEN has) are copied from it
    /// instead of written again. Given a record of another length, the
    /// position is written in full; given another record of the same
    /// length, what is written is unspecified (as the span of a problem of
    /// [`Position::write_read_from`] given another record), and a debug
    /// build panics.
    ///
    /// ```
    /// use pgnfen_core::fen::{Dialect, VariantHint, analyse};
    ///
    /// let fen = b"nrkbbqnr/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQNR w KQkq - 0 1";
    /// let analysis = analyse(fen, VariantHint::Chess960);
    /// let mut out = String::new();
    /// analysis.write_into(fen, Dialect::Shredder, None, &mut out).unwrap()?;
    /// assert_eq!(out, "nrkbbqnr/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQNR w HBhb - 0 1");
    /// # Ok::<(), pgnfen_core::Problem>(())
    /// ```
    pub fn write_into(
        &self,
        text: &[u8],
        dialect: Dialect,
        ep: Option<EpPolicy>,
        out: &mut String,
    ) -> Option<Result<(), Problem>> {
        let position = self.position.as_ref()?;
        let verbatim = self.verbatim;
        let field = |range: Option<std::ops::Range<usize>>| {
            range
                .filter(|_| verbatim.fits(text.len()))
                .and_then(|r| text.get(r))
                // ASCII, as the reader found it (`from_utf8` cost about 120
                // instructions a field, more than the rest of the copy).
                .filter(|bytes| bytes.is_ascii())
                // SAFETY: ASCII bytes are UTF-8.
                .map(|bytes| unsafe { std::str::from_utf8_unchecked(bytes) })
        };
        let as_read = write::AsRead {
            placement: field(verbatim.placement()),
            clocks: field(verbatim.clocks()),
        };
        let start = out.len();
        let written = write::write_as_read(position, dialect, ep, as_read, out)
            .map_err(castling_problem_in(text));
        debug_assert_eq!(
            written.clone().map(|()| out[start..].to_owned()),
            position.write_read_from(text, dialect, ep),
            "Analysis::write_into was given a record other than the one analysed"
        );
        Some(written)
    }
}

/// A valid position, ready to be written in any dialect.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The pieces.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// The `s`/`m` castling prefix, kept for X-FEN.
    pub prefix: Option<Prefix>,
    /// The castling rights, by rook file.
    pub castling: CastlingRights,
    /// The en passant square as read (policies apply when writing).
    pub ep: Option<Square>,
    /// The halfmove clock (moves since the last capture or pawn move).
    pub halfmove: u32,
    /// The fullmove number.
    pub fullmove: u32,
}

impl std::str::FromStr for Position {
    type Err = Problem;

    /// Reads a FEN, X-FEN or Shredder-FEN record (8×8 or 10×8) as
    /// [`analyse`] does without a Variant tag ([`VariantHint::StandardLike`]):
    /// the position, or the first error-severity problem, whose span lies in
    /// the text. Warnings are dropped; [`analyse`] gives them, the class and
    /// the Chess960 number.
    ///
    /// ```
    /// use pgnfen_core::fen::{Dialect, Position};
    ///
    /// let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    /// let position: Position = fen.parse()?;
    /// assert_eq!(position.write(Dialect::Xfen, None)?, fen.replace("HFhf", "KQkq"));
    ///
    /// let bad = "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".parse::<Position>();
    /// let problem = bad.unwrap_err();
    /// assert_eq!(problem.code, pgnfen_core::Code::FenSyntax);
    /// assert_eq!(problem.span, 18..19); // the "9"
    /// # Ok::<(), pgnfen_core::Problem>(())
    /// ```
    fn from_str(fen: &str) -> Result<Position, Problem> {
        let analysis = analyse(fen.as_bytes(), VariantHint::StandardLike);
        match analysis.position {
            Some(position) => Ok(position),
            // An analysis without a position always has an error (the `fen`
            // fuzz target holds it to that); the fallback keeps a parse of
            // any text from panicking all the same.
            None => Err(analysis
                .problems
                .into_iter()
                .find(Problem::is_error)
                .unwrap_or_else(|| {
                    Problem::new(Code::FenSyntax, 0..fen.len(), "not a readable FEN record")
                })),
        }
    }
}

impl Position {
    /// 8×8 or 10×8.
    pub fn board_size(&self) -> BoardSize {
        self.board.size()
    }

    /// The Chess960 start position number `n` (0–959) with all castling rights.
    pub fn chess960_start(n: u16) -> Option<Position> {
        let array = chess960::array(n)?;
        let mut board = Board::empty(BoardSize::Eight);
        for (file, role) in (0u8..).zip(array) {
            for (color, back, pawns) in [(Color::White, 0, 1), (Color::Black, 7, 6)] {
                board.set(Square::new(file, back), Some(Piece { color, role }));
                board.set(
                    Square::new(file, pawns),
                    Some(Piece {
                        color,
                        role: Role::Pawn,
                    }),
                );
            }
        }
        let mut castling = CastlingRights::default();
        let rooks: Vec<u8> = (0u8..)
            .zip(array)
            .filter(|(_, r)| *r == Role::Rook)
            .map(|(f, _)| f)
            .collect();
        for color in [Color::White, Color::Black] {
            castling.set(color, Side::Queen, rooks.first().copied());
            castling.set(color, Side::King, rooks.last().copied());
        }
        Some(Position {
            board,
            turn: Color::White,
            prefix: None,
            castling,
            ep: None,
            halfmove: 0,
            fullmove: 1,
        })
    }

    /// The Scharnagl number when this is a Chess960 start array.
    pub fn chess960_number(&self) -> Option<u16> {
        // The shape first: three comparisons that rule out almost every position.
        if !self.board.has_start_shape()
            || self.turn != Color::White
            || self.ep.is_some()
            || self.prefix.is_some()
            || self.castling.iter().count() != 4
        {
            return None;
        }
        // Pawns on ranks 2 and 7, nothing on ranks 3-6, the black back rank the
        // mirror of the white one: read off the bitboards at once.
        let rank = self.board.mirrored_back_rank_masks()?;
        let n = rank.number()?;
        // A number means two rooks: the outer files of the rook mask.
        let first = rank.rooks.trailing_zeros() as u8;
        let last = 7 - rank.rooks.leading_zeros() as u8;
        for color in [Color::White, Color::Black] {
            if self.castling.get(color, Side::Queen) != Some(first)
                || self.castling.get(color, Side::King) != Some(last)
            {
                return None;
            }
        }
        Some(n)
    }

    /// Equal to the standard initial position (placement, side, castling by
    /// meaning, en passant; clocks are not compared).
    pub fn is_standard_start(&self) -> bool {
        self.board.has_start_shape()
            && self.turn == Color::White
            && self.prefix.is_none()
            && self.ep.is_none()
            && self.castling == Position::standard_castling()
            && self.board == Board::STANDARD
    }

    fn standard_castling() -> CastlingRights {
        let mut c = CastlingRights::default();
        for color in [Color::White, Color::Black] {
            c.set(color, Side::King, Some(7));
            c.set(color, Side::Queen, Some(0));
        }
        c
    }

    /// Writes the position in `dialect`; `ep` overrides the dialect's en passant
    /// policy, which for X-FEN is [`EpPolicy::PseudoLegal`] (the square only
    /// when a pawn stands ready to capture on it: `e3` becomes `-` after
    /// `1. e4` from the start) and for FEN and Shredder-FEN
    /// [`EpPolicy::AsIs`]. Fails with a `lossy-castling` problem when the dialect cannot hold
    /// the castling rights (an inner rook in classic FEN, an `s`/`m` prefix in
    /// anything but X-FEN).
    pub fn write(&self, dialect: Dialect, ep: Option<EpPolicy>) -> Result<String, Problem> {
        write::write(self, dialect, ep)
    }

    /// [`Position::write`] for a position read from `text` (the FEN or EPD
    /// record): a `lossy-castling` problem then points at the castling field
    /// of `text` rather than at its start, since the position itself no longer
    /// knows where its rights were written.
    pub fn write_read_from(
        &self,
        text: &[u8],
        dialect: Dialect,
        ep: Option<EpPolicy>,
    ) -> Result<String, Problem> {
        self.write(dialect, ep).map_err(castling_problem_in(text))
    }
}

/// A writer's `lossy-castling` problem placed on the castling field of
/// `text`, the record the position was read from (the position no longer
/// knows where its rights were written).
fn castling_problem_in(text: &[u8]) -> impl Fn(Problem) -> Problem + '_ {
    move |mut problem| {
        if problem.code == Code::LossyCastling
            && let Some(field) = castling_field(text)
        {
            problem.span = field;
        }
        problem
    }
}

/// Where the castling field, the third of a record's space-separated fields,
/// lies in `text` (the parser's own rule; `None` when there is no third field).
fn castling_field(text: &[u8]) -> Option<std::ops::Range<usize>> {
    let mut fields = text
        .split(|&b| b == b' ')
        .scan(0, |at, field| {
            let start = *at;
            *at += field.len() + 1;
            Some(start..start + field.len())
        })
        .filter(|field| !field.is_empty());
    fields.nth(2)
}

/// Parses, checks and classifies one FEN record .
pub fn analyse(fen: &[u8], hint: VariantHint) -> Analysis {
    let mut problems = Vec::new();
    // Read through a reference: moving the parsed record (and its board) out
    // of the result, then into the position, copied it twice.
    let result = parse::parse(fen, &mut problems);
    let parsed = match &result {
        Ok(p) => p,
        Err(board) => {
            return Analysis {
                board: *board,
                class: Class::Malformed,
                chess960_position: None,
                needs_chess960_castling: false,
                problems,
                position: None,
                verbatim: parse::Verbatim::default(),
            };
        }
    };
    let board = &parsed.board;
    let castling = castling::resolve(board, fen, parsed.castling.clone(), &mut problems);
    let needs_chess960_castling = castling.needs_chess960(board);
    let ep_from = problems.len();
    let ep_ok = match parsed.ep {
        Some(sq) => check_ep(
            board,
            parsed.turn,
            sq,
            parsed.ep_span.clone(),
            &mut problems,
        ),
        None => true,
    };
    let ep_to = problems.len();
    let placed = match board.size() {
        BoardSize::Eight => {
            let chess960_mode = hint == VariantHint::Chess960 || needs_chess960_castling;
            judge_8x8(parsed, &castling, ep_ok, chess960_mode, &mut problems)
        }
        BoardSize::Ten => judge_10x8(board, parsed.turn, parsed.placement.clone(), &mut problems),
    };
    // Reported in the order the record is judged in: the men on the board
    // (kings, pawns), then the en passant square, then what follows from
    // both (checks, material). The square is judged first only because
    // the board's judge needs its verdict.
    problems[ep_from..ep_to + placed].rotate_left(ep_to - ep_from);
    let size = Some(board.size());
    if problems.iter().any(Problem::is_error) {
        return Analysis {
            board: size,
            class: Class::Malformed,
            chess960_position: None,
            needs_chess960_castling,
            problems,
            position: None,
            verbatim: parse::Verbatim::default(),
        };
    }
    let position = Position {
        board: parsed.board,
        turn: parsed.turn,
        prefix: parsed.prefix,
        castling,
        ep: parsed.ep,
        halfmove: parsed.halfmove,
        fullmove: parsed.fullmove,
    };
    let chess960_position = position.chess960_number();
    let class = match (board.size(), hint) {
        (BoardSize::Ten, _) | (BoardSize::Eight, VariantHint::Capablanca) => Class::Crc,
        (BoardSize::Eight, VariantHint::Chess960) => Class::Chess960,
        (BoardSize::Eight, VariantHint::StandardLike) => {
            if position.is_standard_start() {
                Class::Standard
            } else if needs_chess960_castling || chess960_position.is_some() {
                Class::Chess960
            } else {
                Class::Setup
            }
        }
    };
    Analysis {
        board: size,
        class,
        chess960_position,
        needs_chess960_castling,
        problems,
        position: Some(position),
        verbatim: parsed.verbatim,
    }
}

/// Decision 7: the square on the right rank, the pawn that moved two squares in
/// front of it, the square and the one behind it empty.
fn check_ep(
    board: &Board,
    turn: Color,
    sq: Square,
    span: std::ops::Range<usize>,
    problems: &mut Vec<Problem>,
) -> bool {
    let them = turn.other();
    let (rank, pushed_rank, from_rank) = match turn {
        Color::White => (5u8, 4u8, 6u8),
        Color::Black => (2, 3, 1),
    };
    if sq.rank != rank {
        problems.push(
            Problem::new(
                Code::EnPassant,
                span,
                format!(
                    "en passant square {sq} is on rank {}; with {} to move it must be on rank {}",
                    sq.rank + 1,
                    turn.name(),
                    rank + 1
                ),
            )
            .with_help("write '-' if no pawn just moved two squares"),
        );
        return false;
    }
    let pushed = Square::new(sq.file, pushed_rank);
    let from = Square::new(sq.file, from_rank);
    let pawn_ok = board.piece_at(pushed)
        == Some(Piece {
            color: them,
            role: Role::Pawn,
        });
    if !pawn_ok || board.piece_at(sq).is_some() || board.piece_at(from).is_some() {
        problems.push(
            Problem::new(
                Code::EnPassant,
                span,
                format!(
                    "en passant square {sq} with {} to move needs a {} pawn on {pushed} with {sq} and {from} empty",
                    turn.name(),
                    them.name()
                ),
            )
            .with_help("write '-' if no pawn just moved two squares"),
        );
        return false;
    }
    true
}

fn illegal(message: String) -> Problem {
    Problem::new(Code::IllegalPosition, 0..0, message)
}

/// A Chess960 start array (the standard one included) with no en passant
/// square, whose castling rights shakmaty accepts in `chess960_mode`: legal,
/// as shakmaty's `from_setup` would find it, without building its position
/// (a seventh of the work of a FEN). Every game of a Chess960 archive
/// starts from one. `false` says nothing: shakmaty then judges.
///
/// Such a position is legal by its shape: one king each, the material of a
/// full army, pawns only on the second and seventh ranks, and no check (the
/// pawn ranks stand between every piece and the other king). Its castling
/// rights are what shakmaty takes from the outermost rook on each side of
/// the king: on a start array that is the one rook on that side, and outside
/// Chess960 mode only for the king on e1 or e8 with that rook in a corner.
/// A property test holds this to shakmaty on every array.
fn start_array_is_legal(
    parsed: &parse::Parsed,
    castling: &CastlingRights,
    ep_ok: bool,
    chess960_mode: bool,
) -> bool {
    if parsed.ep.filter(|_| ep_ok).is_some() {
        return false;
    }
    let Some(rank) = parsed.board.mirrored_back_rank_masks() else {
        return false;
    };
    if rank.number().is_none() {
        return false;
    }
    let king = rank.kings.trailing_zeros() as u8;
    let queen_rook = rank.rooks.trailing_zeros() as u8;
    let king_rook = 7 - rank.rooks.leading_zeros() as u8;
    castling.iter().all(|(_, side, file)| {
        let (rook, corner) = match side {
            Side::Queen => (queen_rook, 0),
            Side::King => (king_rook, 7),
        };
        file == rook && (chess960_mode || (king == 4 && file == corner))
    })
}

/// shakmaty's strict `from_setup` of an 8×8 position (`None` for a board
/// shakmaty cannot hold).
fn shakmaty_verdict(
    parsed: &parse::Parsed,
    castling: &CastlingRights,
    ep_ok: bool,
    chess960_mode: bool,
) -> Option<Result<(), shakmaty::PositionError<shakmaty::Chess>>> {
    use shakmaty::{CastlingMode, Chess, FromSetup, Setup};
    let board = parsed.board.to_shakmaty()?;
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = parsed.turn.to_shakmaty();
    setup.castling_rights = castling.shakmaty_mask();
    setup.ep_square = parsed.ep.filter(|_| ep_ok).map(Square::to_shakmaty);
    let mode = if chess960_mode {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    Some(Chess::from_setup(setup, mode).map(|_| ()))
}

/// Legality of an 8×8 position, as shakmaty's strict `from_setup` judges it.
/// Returns how many of the problems it adds are about the men on the board
/// (empty, kings, pawns on a back rank): they come first.
fn judge_8x8(
    parsed: &parse::Parsed,
    castling: &CastlingRights,
    ep_ok: bool,
    chess960_mode: bool,
    problems: &mut Vec<Problem>,
) -> usize {
    use shakmaty::PositionErrorKinds as K;
    if start_array_is_legal(parsed, castling, ep_ok, chess960_mode) {
        return 0;
    }
    let Some(Err(err)) = shakmaty_verdict(parsed, castling, ep_ok, chess960_mode) else {
        return 0;
    };
    let mut kinds = err.kinds();
    if problems.iter().any(|p| p.code == Code::CastlingRights) {
        kinds.remove(K::INVALID_CASTLING_RIGHTS);
    }
    if problems.iter().any(|p| p.code == Code::EnPassant) {
        kinds.remove(K::INVALID_EP_SQUARE);
    }
    if kinds.intersects(K::MISSING_KING | K::TOO_MANY_KINGS) {
        // Which king would be in check? With no king or two, a side has no
        // king to speak of, and the count is the one fault to mend.
        kinds.remove(K::OPPOSITE_CHECK | K::IMPOSSIBLE_CHECK);
    }
    let placement = parsed.placement.clone();
    let before = problems.len();
    let push = |problems: &mut Vec<Problem>, kind: K, code: Code, msg: String| {
        if kinds.contains(kind) {
            let mut p = illegal(msg);
            p.code = code;
            if code == Code::IllegalPosition {
                p.span = placement.clone();
            }
            problems.push(p);
        }
    };
    let board = &parsed.board;
    let turn = parsed.turn;
    let kings = |wanted: fn(usize) -> bool| {
        [Color::White, Color::Black]
            .into_iter()
            .filter_map(|c| {
                let n = board.kings(c).count();
                wanted(n).then(|| format!("{} has {n} kings", c.name()))
            })
            .collect::<Vec<_>>()
            .join(" and ")
    };
    push(
        problems,
        K::EMPTY_BOARD,
        Code::IllegalPosition,
        "the board is empty".into(),
    );
    push(
        problems,
        K::MISSING_KING,
        Code::IllegalPosition,
        format!(
            "{}; each side needs exactly one king",
            kings(|n| n == 0).replace("has 0 kings", "has no king")
        ),
    );
    push(
        problems,
        K::TOO_MANY_KINGS,
        Code::IllegalPosition,
        format!("{}; each side needs exactly one king", kings(|n| n > 1)),
    );
    push(
        problems,
        K::PAWNS_ON_BACKRANK,
        Code::IllegalPosition,
        match board.pawns_on_back_ranks().next() {
            Some((sq, p)) => format!(
                "{} on {sq}: pawns cannot stand on the first or last rank",
                p.describe()
            ),
            None => "a pawn stands on the first or last rank".into(),
        },
    );
    let placed = problems.len() - before;
    push(
        problems,
        K::OPPOSITE_CHECK,
        Code::IllegalPosition,
        match board
            .kings(turn.other())
            .find(|&k| board.is_attacked(k, turn))
        {
            Some(k) => format!(
                "the {} king on {k} is in check with {} to move; the side not to move cannot be in check",
                turn.other().name(),
                turn.name()
            ),
            None => "the side not to move is in check".into(),
        },
    );
    push(
        problems,
        K::IMPOSSIBLE_CHECK,
        Code::IllegalPosition,
        format!(
            "the check on the {} king cannot have arisen from a legal move (too many or impossible checkers)",
            turn.name()
        ),
    );
    push(
        problems,
        K::TOO_MUCH_MATERIAL,
        Code::IllegalPosition,
        too_much_material(board),
    );
    push(
        problems,
        K::INVALID_CASTLING_RIGHTS,
        Code::CastlingRights,
        "invalid castling rights".into(),
    );
    push(
        problems,
        K::INVALID_EP_SQUARE,
        Code::EnPassant,
        "invalid en passant square".into(),
    );
    placed
}

/// The message of shakmaty's "too much material", naming the side and its
/// count by shakmaty's rule: a side's pawns and its pieces beyond the starting
/// set (a second queen, a third rook or knight, a second bishop on squares
/// of one colour) are at most 8, since each such piece is a promoted pawn.
fn too_much_material(board: &Board) -> String {
    let over = |color: Color| {
        let beyond = |role: Role, start: u32| board.count(color, role).saturating_sub(start);
        let bishops = |light: bool| {
            let on = board.pieces().filter(|(sq, p)| {
                p.color == color
                    && p.role == Role::Bishop
                    && ((sq.file + sq.rank) % 2 == 1) == light
            });
            (on.count() as u32).saturating_sub(1)
        };
        let promoted = beyond(Role::Queen, 1)
            + beyond(Role::Rook, 2)
            + beyond(Role::Knight, 2)
            + bishops(true)
            + bishops(false);
        let pawns = board.count(color, Role::Pawn);
        (pawns + promoted > 8).then(|| {
            format!(
                "{} has {pawns} pawns and {promoted} {} beyond the starting set, more than \
                 its 8 pawns could have become",
                color.name(),
                if promoted == 1 { "piece" } else { "pieces" }
            )
        })
    };
    let sides: Vec<String> = [Color::White, Color::Black]
        .into_iter()
        .filter_map(over)
        .collect();
    if sides.is_empty() {
        "a side has more pieces than promotions of its missing pawns allow".into()
    } else {
        sides.join("; ")
    }
}

/// The checks for 10×8 positions (kings, pawns, check); castling rights and
/// en passant are checked for both board sizes. Returns how many of the
/// problems it adds are about the men on the board (kings, pawns): they
/// come first.
fn judge_10x8(
    board: &Board,
    turn: Color,
    placement: std::ops::Range<usize>,
    problems: &mut Vec<Problem>,
) -> usize {
    let before = problems.len();
    let illegal = |message: String| Problem::new(Code::IllegalPosition, placement.clone(), message);
    let mut one_king_each = true;
    for color in [Color::White, Color::Black] {
        let n = board.kings(color).count();
        if n != 1 {
            one_king_each = false;
            let kings = match n {
                0 => "no king".to_string(),
                _ => format!("{n} kings"),
            };
            problems.push(illegal(format!(
                "{} has {kings}; each side needs exactly one king",
                color.name()
            )));
        }
    }
    if let Some((sq, p)) = board.pawns_on_back_ranks().next() {
        problems.push(illegal(format!(
            "{} on {sq}: pawns cannot stand on the first or last rank",
            p.describe()
        )));
    }
    let placed = problems.len() - before;
    let them = turn.other();
    // As on 8×8: a check is only judged when each side has its one king.
    // In the start shape every piece stands behind its full pawn rank, out
    // of reach of the other king (tested): nothing to look for.
    if one_king_each
        && !board.has_start_shape_any_width()
        && let Some(k) = board.kings(them).find(|&k| board.is_attacked(k, turn))
    {
        problems.push(illegal(format!(
            "the {} king on {k} is in check with {} to move",
            them.name(),
            turn.name()
        )));
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `parse` gives [`analyse`]'s position, also with warnings only (missing
    /// clocks), and its first error otherwise.
    #[test]
    fn a_position_parses_as_analyse_reads_it() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            "rnabqkbncr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBNCR w KQkq - 0 1",
            "8/8/8/8/8/8/8/K6k b - - 10 80",
        ] {
            let parsed: Position = fen.parse().unwrap();
            let analysis = analyse(fen.as_bytes(), VariantHint::StandardLike);
            assert_eq!(Some(parsed), analysis.position, "{fen}");
        }
        for (fen, code) in [
            ("", Code::FenSyntax),
            ("8/8/8/8/8/8/8/8 w - - 0 1", Code::IllegalPosition),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
                Code::FenSyntax,
            ),
        ] {
            let problem = fen.parse::<Position>().unwrap_err();
            assert_eq!(problem.code, code, "{fen:?}");
            assert!(problem.span.end <= fen.len(), "{fen:?}");
        }
    }

    /// A start array's FEN: Chess960 number `n` (with one back-rank square
    /// changed to `edit`'s role when given), castling rights `rights` (bits:
    /// white king side, white queen side, black king side, black queen side)
    /// written as the rooks' files, and the side to move.
    fn start_array_fen(n: u16, edit: Option<(usize, u8)>, rights: u8, black: bool) -> String {
        let mut back: Vec<u8> = chess960::array(n)
            .expect("valid number")
            .iter()
            .map(|r| r.upper())
            .collect();
        if let Some((file, letter)) = edit {
            back[file] = letter;
        }
        let rooks: Vec<usize> = (0..8).filter(|&f| back[f] == b'R').collect();
        let mut castling = String::new();
        for (bit, upper, outer) in [
            (1, true, rooks.last()),
            (2, true, rooks.first()),
            (4, false, rooks.last()),
            (8, false, rooks.first()),
        ] {
            if rights & bit != 0
                && let Some(&file) = outer
            {
                let letter = char::from(b'A' + file as u8);
                castling.push(if upper {
                    letter
                } else {
                    letter.to_ascii_lowercase()
                });
            }
        }
        if castling.is_empty() {
            castling.push('-');
        }
        let white = String::from_utf8(back.clone()).expect("ASCII");
        format!(
            "{}/pppppppp/8/8/8/8/PPPPPPPP/{white} {} {castling} - 0 1",
            white.to_ascii_lowercase(),
            if black { 'b' } else { 'w' }
        )
    }

    proptest! {
        /// Whenever shakmaty finds too much material, the message names the
        /// side by the same rule (never the words that name no side).
        #[test]
        fn too_much_material_always_names_a_side(
            squares in proptest::collection::vec(
                (0u8..64, proptest::sample::select(b"PNBRQpnbrq".to_vec())),
                0..40,
            ),
        ) {
            // A king each and the pieces drawn (the first on a square
            // stays), put in a FEN by the project's own placement writer.
            let mut board = Board::empty(BoardSize::Eight);
            board.set(Square::new(4, 0), Piece::from_fen(b'K', false));
            board.set(Square::new(4, 7), Piece::from_fen(b'k', false));
            for (sq, piece) in squares {
                let square = Square::new(sq % 8, sq / 8);
                if board.piece_at(square).is_none() {
                    board.set(square, Piece::from_fen(piece, false));
                }
            }
            let mut fen = String::new();
            write::write_placement(&board, &mut fen);
            fen.push_str(" w - - 0 1");
            for p in a(&fen).problems {
                prop_assert!(
                    !p.message.starts_with("a side has more pieces"),
                    "{}: {}",
                    fen,
                    p.message
                );
            }
        }

        /// What the start-array shortcut calls legal, shakmaty finds legal,
        /// on every array and edits of it (a second king, a missing rook, a
        /// third bishop), with any castling rights, in both modes; and the
        /// shortcut takes every unedited array whose rights are the rooks.
        #[test]
        fn start_arrays_judged_legal_are_legal_to_shakmaty(
            n in 0u16..960,
            edit in proptest::option::of((0usize..8, proptest::sample::select(b"KQRBNP".to_vec()))),
            rights in 0u8..16,
            black in any::<bool>(),
            chess960_mode in any::<bool>(),
        ) {
            let fen = start_array_fen(n, edit, rights, black);
            let mut problems = Vec::new();
            let Ok(parsed) = parse::parse(fen.as_bytes(), &mut problems) else {
                return Err(TestCaseError::fail(format!("{fen} does not parse")));
            };
            let castling = castling::resolve(&parsed.board, fen.as_bytes(), parsed.castling.clone(), &mut problems);
            let fast = start_array_is_legal(&parsed, &castling, true, chess960_mode);
            let shakmaty = shakmaty_verdict(&parsed, &castling, true, chess960_mode);
            if fast {
                prop_assert!(matches!(shakmaty, Some(Ok(()))), "{} in {} mode", fen, if chess960_mode { "Chess960" } else { "standard" });
            }
            if edit.is_none() && chess960_mode {
                prop_assert!(fast, "{}", fen);
            }
        }
    }

    /// Records to write, most in the writers' own form, some not: a 10×8
    /// start, an en passant square, an inner rook classic FEN cannot hold.
    const RECORDS: [&str; 5] = [
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3",
        "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
        "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 13 40",
        "4k3/8/8/8/8/8/8/4K3 b - - 0 77",
    ];

    /// `text` with its placement or clocks out of the writers' form (or not),
    /// as `how` says: a run of empty squares split in two digits, a leading
    /// zero, clocks missing, fullmove 0, two spaces, larger clocks.
    fn unwritten(text: &str, how: usize) -> String {
        let (placement, rest) = text.split_once(' ').expect("fields");
        let (head, clocks) = rest
            .rsplit_once(' ')
            .and_then(|(h, f)| {
                let (head, half) = h.rsplit_once(' ')?;
                Some((head, (half, f)))
            })
            .expect("clocks");
        let split = || {
            // The first run of two or more empty squares, as two digits.
            let at = placement.find(|c: char| ('2'..='9').contains(&c));
            match at {
                Some(i) => {
                    let n = placement.as_bytes()[i] - b'0';
                    format!("{}1{}{}", &placement[..i], n - 1, &placement[i + 1..])
                }
                None => placement.replace("10", "55"),
            }
        };
        match how % 8 {
            0 => text.to_owned(),
            1 => format!("{} {head} {} {}", split(), clocks.0, clocks.1),
            2 => format!("{placement} {head} 0{} {}", clocks.0, clocks.1),
            3 => format!("{placement} {head} {} 0{}", clocks.0, clocks.1),
            4 => format!("{placement} {head}"),
            5 => format!("{placement} {head} {} 0", clocks.0),
            6 => format!("{placement} {head} {}  {}", clocks.0, clocks.1),
            _ => format!("{placement} {head} 1234 56789"),
        }
    }

    proptest! {
        /// Copying fields from the record never changes what is written:
        /// [`Analysis::write_into`] appends exactly what
        /// [`Position::write_read_from`] gives (text or problem) for the
        /// record itself in or out of the writers' form, and for another
        /// record it was not made from, in every dialect and en passant
        /// policy; on failure the buffer is left as it was.
        #[test]
        fn writing_with_the_record_writes_the_position(
            n in 0u16..960,
            rights in 0u8..16,
            black in any::<bool>(),
            base in 0usize..RECORDS.len() + 1,
            how in 0usize..8,
            other in 0usize..RECORDS.len(),
        ) {
            let base = match RECORDS.get(base) {
                Some(record) => (*record).to_owned(),
                None => start_array_fen(n, None, rights, black),
            };
            let text = unwritten(&base, how);
            for hint in [VariantHint::StandardLike, VariantHint::Chess960, VariantHint::Capablanca] {
                let a = analyse(text.as_bytes(), hint);
                // Another record of the same length is a caller's mistake
                // (a debug build panics, tested below).
                let other = Some(RECORDS[other]).filter(|r| r.len() != text.len());
                for record in std::iter::once(text.as_str()).chain(other) {
                    for dialect in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
                        for ep in [None, Some(EpPolicy::AsIs), Some(EpPolicy::PseudoLegal), Some(EpPolicy::Legal)] {
                            let want = a.position.as_ref().map(|p| {
                                p.write_read_from(record.as_bytes(), dialect, ep)
                                    .map(|fen| format!("before|{fen}"))
                            });
                            let mut out = String::from("before|");
                            let got = a
                                .write_into(record.as_bytes(), dialect, ep, &mut out)
                                .map(|r| r.map(|()| out.clone()));
                            prop_assert_eq!(&got, &want, "{} written from {}", text, record);
                            if matches!(got, Some(Err(_))) {
                                prop_assert_eq!(out.as_str(), "before|");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a record other than the one analysed")]
    fn another_record_of_the_same_length_is_caught_in_a_debug_build() {
        let one = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
        let other = "4k3/8/8/8/8/8/8/3K4 w - - 0 1";
        let mut out = String::new();
        let _ = a(one).write_into(other.as_bytes(), Dialect::Fen, None, &mut out);
    }

    #[test]
    fn fields_in_the_writers_form_are_copied_and_no_others() {
        fn verbatim(text: &str) -> (Option<&str>, Option<&str>) {
            let a = analyse(text.as_bytes(), VariantHint::StandardLike);
            let field = |r: Option<std::ops::Range<usize>>| r.map(|r| &text[r]);
            (field(a.verbatim.placement()), field(a.verbatim.clocks()))
        }
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(
            verbatim(&format!("{start} w KQkq - 0 1")),
            (Some(start), Some("0 1"))
        );
        assert_eq!(
            verbatim("4k3/8/8/8/8/8/8/4K3 w - - 12 345"),
            (Some("4k3/8/8/8/8/8/8/4K3"), Some("12 345"))
        );
        // A split run is an error (nothing to write); leading zeros,
        // fullmove 0, missing clocks, two spaces: written anew.
        assert!(!a("4k3/8/8/8/8/8/8/4K21 w - - 0 1").is_valid());
        assert_eq!(verbatim("4k3/8/8/8/8/8/8/4K3 w - - 00 1").1, None);
        assert_eq!(verbatim("4k3/8/8/8/8/8/8/4K3 w - - 0 01").1, None);
        assert_eq!(verbatim("4k3/8/8/8/8/8/8/4K3 w - - 0 0").1, None);
        assert_eq!(verbatim("4k3/8/8/8/8/8/8/4K3 w - -").1, None);
        assert_eq!(verbatim("4k3/8/8/8/8/8/8/4K3 w - - 0  1").1, None);
        let crc = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR";
        assert_eq!(verbatim(&format!("{crc} w KQkq - 0 1")).0, Some(crc));
        assert_eq!(
            verbatim("rnabqkbcnr/pppppppppp/55/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1").0,
            None
        );
    }

    #[test]
    fn the_standard_start_takes_the_start_array_shortcut() {
        for mode in [false, true] {
            let fen = start_array_fen(518, None, 15, false);
            let mut problems = Vec::new();
            let parsed = parse::parse(fen.as_bytes(), &mut problems).expect("parses");
            let castling = castling::resolve(
                &parsed.board,
                fen.as_bytes(),
                parsed.castling.clone(),
                &mut problems,
            );
            assert!(
                start_array_is_legal(&parsed, &castling, true, mode),
                "{fen}"
            );
        }
    }

    fn a(fen: &str) -> Analysis {
        analyse(fen.as_bytes(), VariantHint::StandardLike)
    }

    fn codes(fen: &str) -> Vec<(Code, usize)> {
        a(fen)
            .problems
            .iter()
            .map(|p| (p.code, p.column()))
            .collect()
    }

    fn pos(fen: &str) -> Position {
        a(fen).position.expect("valid")
    }

    #[test]
    fn fields_set_off_the_board_are_refused_when_written() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let mut p = start.clone();
        p.ep = Some(board::Square::new(9, 9));
        let e = p.write(Dialect::Fen, None).unwrap_err();
        assert_eq!(e.code, Code::EnPassant);
        let mut p = start.clone();
        p.castling
            .set(board::Color::White, castling::Side::King, Some(12));
        let e = p.write(Dialect::Shredder, None).unwrap_err();
        assert_eq!(e.code, Code::CastlingRights);
        assert!(start.write(Dialect::Xfen, None).is_ok());
    }

    fn w(p: &Position, d: Dialect) -> Option<String> {
        p.write(d, None).ok()
    }

    /// The dialect table of docs/dialects.md: input, xfen, shredder (and classic FEN).
    const TABLE: [(&str, &str, &str, Option<&str>); 3] = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b HAha e3 0 1",
            Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
        ),
        (
            "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11",
            "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11",
            "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - 4 11",
            None,
        ),
    ];

    #[test]
    fn spec_examples_in_every_direction() {
        for (input, xfen, shredder, fen) in TABLE {
            let p = pos(input);
            assert_eq!(w(&p, Dialect::Xfen).as_deref(), Some(xfen));
            assert_eq!(w(&p, Dialect::Shredder).as_deref(), Some(shredder));
            assert_eq!(w(&p, Dialect::Fen).as_deref(), fen);
            // Dialects that keep the en passant square give back the same position.
            for source in [Some(shredder), fen].into_iter().flatten() {
                let q = pos(source);
                assert_eq!(q, p, "{source}");
                assert_eq!(w(&q, Dialect::Xfen).as_deref(), Some(xfen));
                assert_eq!(w(&q, Dialect::Shredder).as_deref(), Some(shredder));
                assert_eq!(w(&q, Dialect::Fen).as_deref(), fen);
            }
            // X-FEN drops an en passant square no pawn can take on.
            let q = pos(xfen);
            assert_eq!(
                q,
                Position {
                    ep: None,
                    ..p.clone()
                }
            );
            assert_eq!(w(&q, Dialect::Xfen).as_deref(), Some(xfen));
            assert_eq!(
                w(&q, Dialect::Shredder).as_deref(),
                Some(shredder.replace(" e3 ", " - ").as_str())
            );
        }
        let lossy = pos(TABLE[2].0).write(Dialect::Fen, None).unwrap_err();
        assert_eq!(lossy.code, Code::LossyCastling);
        assert!(lossy.help.as_deref().unwrap_or("").contains("'G'"));
    }

    #[test]
    fn ep_policies() {
        // White pawn e5 beside the black pawn that moved d7-d5; legal capture.
        let fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
        let p = pos(fen);
        for policy in [EpPolicy::AsIs, EpPolicy::PseudoLegal, EpPolicy::Legal] {
            assert_eq!(
                p.write(Dialect::Xfen, Some(policy)).ok().as_deref(),
                Some(fen)
            );
        }
        // Pseudo-legal but illegal: the capturer is pinned against its king.
        let fen = "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 2";
        let p = pos(fen);
        assert!(
            p.write(Dialect::Xfen, None)
                .is_ok_and(|s| s.contains(" d6 "))
        );
        assert!(
            p.write(Dialect::Fen, Some(EpPolicy::Legal))
                .is_ok_and(|s| s.contains(" - 0 2"))
        );
        // The same on 10 files.
        let fen = "5k4/10/10/K3pP3r/10/10/10/10 w - e6 0 2";
        let p = pos(fen);
        assert!(
            p.write(Dialect::Xfen, None)
                .is_ok_and(|s| s.contains(" e6 "))
        );
        assert!(
            p.write(Dialect::Xfen, Some(EpPolicy::Legal))
                .is_ok_and(|s| s.contains(" - 0 2"))
        );
        let fen = "5k4/10/10/4pP4/10/10/10/5K4 w - e6 0 2";
        assert!(
            pos(fen)
                .write(Dialect::Xfen, Some(EpPolicy::Legal))
                .is_ok_and(|s| s.contains(" e6 "))
        );
    }

    /// Problems come in the order the record is judged in: castling rights,
    /// the men on the board, the en passant square, then checks and
    /// material (as the corpus's expectations list them).
    #[test]
    fn problems_come_in_the_order_of_judgement() {
        use Code::*;
        let order = |fen: &str| codes(fen).into_iter().map(|(c, _)| c).collect::<Vec<_>>();
        // Two white kings (one on the en passant square): kings before the square.
        assert_eq!(
            order("r1bqkbnr/pp1ppppp/n1K5/2p5/8/P4N2/1PPPPPPP/RNBQKB1R w KQkq c6 0 3"),
            [CastlingRights, CastlingRights, IllegalPosition, EnPassant]
        );
        // A pawn on the last rank: before the square too.
        assert_eq!(
            order("P3k3/8/8/8/8/8/8/4K3 w - e6 0 1"),
            [IllegalPosition, EnPassant]
        );
        // The side not to move in check, and too much material: after it.
        assert_eq!(
            order("r1bqkbnr/1ppppQpp/2n5/p4p2/8/1P6/P1PPPPPP/RNBQKBNR w KQkq f6 0 4"),
            [EnPassant, IllegalPosition, IllegalPosition]
        );
        // 10×8 alike: two kings before the square, the check after it.
        assert_eq!(
            order("5k4/10/10/10/10/10/10/K4K4 w - e6 0 1"),
            [IllegalPosition, EnPassant]
        );
        assert_eq!(
            order("4k5/10/10/10/10/10/10/4RK4 w - e6 0 1"),
            [EnPassant, IllegalPosition]
        );
    }

    #[test]
    fn position_faults_have_code_and_column() {
        use Code::*;
        // No white king: the placement (column 1).
        assert_eq!(
            codes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1"),
            [(IllegalPosition, 1)]
        );
        // Pawn on the last rank.
        assert_eq!(
            codes("P3k3/8/8/8/8/8/8/4K3 b - - 0 1"),
            [(IllegalPosition, 1)]
        );
        // The side not to move in check.
        assert_eq!(
            codes("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"),
            [(IllegalPosition, 1)]
        );
        // Castling right without its rook: the letter's column.
        assert_eq!(
            codes("4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
            [(CastlingRights, 23)]
        );
        // En passant square without the pawn that moved: the field's column.
        assert_eq!(codes("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"), [(EnPassant, 25)]);
        assert_eq!(codes("4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1"), [(EnPassant, 27)]);
        // 10×8: two white kings, a pawn on rank 1, a check by an archbishop.
        assert_eq!(
            codes("5k4/10/10/10/10/10/10/K4K4 w - - 0 1"),
            [(IllegalPosition, 1)]
        );
        assert_eq!(
            codes("5k4/10/10/10/10/10/10/P4K4 w - - 0 1"),
            [(IllegalPosition, 1)]
        );
        assert_eq!(
            codes("5k4/10/6A3/10/10/10/10/5K4 w - - 0 1"),
            [(IllegalPosition, 1)]
        );
        assert!(codes("5k4/10/6A3/10/10/10/10/5K4 b - - 0 1").is_empty());
        assert_eq!(
            codes("5k4/10/10/10/10/10/10/5K4 w J - 0 1"),
            [(CastlingRights, 29)]
        );
    }

    #[test]
    fn classes() {
        let c = |fen: &str, hint| {
            let x = analyse(fen.as_bytes(), hint);
            (x.class, x.chess960_position)
        };
        use VariantHint::*;
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 5 9";
        assert_eq!(c(start, StandardLike), (Class::Standard, Some(518)));
        assert_eq!(c(start, Chess960), (Class::Chess960, Some(518)));
        assert_eq!(c(TABLE[1].0, StandardLike), (Class::Setup, None));
        assert_eq!(c(TABLE[2].0, StandardLike), (Class::Chess960, None));
        assert!(a(TABLE[2].0).needs_chess960_castling);
        let arr = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
        assert_eq!(c(arr, StandardLike), (Class::Chess960, Some(0)));
        let capa = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
        assert_eq!(c(capa, StandardLike), (Class::Crc, None));
        assert_eq!(
            c("8/8/8/8/8/8/8/8 w - - 0 1", StandardLike),
            (Class::Malformed, None)
        );
        // A start array without all four rights is no start array.
        let partial = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w - - 0 1";
        assert_eq!(c(partial, StandardLike), (Class::Setup, None));
    }

    #[test]
    fn lossy_castling_points_at_the_castling_field_of_its_text() {
        let fen = "1k1r1rnn/pppppppp/8/8/8/8/PPPPPPPP/1K1R1RNN w Dd - 0 1";
        let p = pos(fen);
        let column = fen.find("Dd").unwrap();
        let problem = p
            .write_read_from(fen.as_bytes(), Dialect::Fen, None)
            .unwrap_err();
        assert_eq!(problem.code, Code::LossyCastling);
        assert_eq!(problem.span, column..column + 2);
        // Extra spaces (a warning, not an error) do not move it off the field.
        let spaced = fen.replacen(" w ", "  w  ", 1);
        let column = spaced.find("Dd").unwrap();
        let problem = p
            .write_read_from(spaced.as_bytes(), Dialect::Fen, None)
            .unwrap_err();
        assert_eq!(problem.span, column..column + 2);
        // Without the text, the start of the record.
        assert_eq!(p.write(Dialect::Fen, None).unwrap_err().span, 0..0);
        // Other dialects write it.
        assert!(
            p.write_read_from(fen.as_bytes(), Dialect::Shredder, None)
                .is_ok()
        );
        assert_eq!(castling_field(b"8/8 w"), None);
    }

    #[test]
    fn prefixes_only_in_xfen() {
        let fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w sKQkq - 0 1";
        let p = pos(fen);
        assert_eq!(w(&p, Dialect::Xfen).as_deref(), Some(fen));
        assert_eq!(
            p.write(Dialect::Shredder, None).map_err(|e| e.code),
            Err(Code::LossyCastling)
        );
        assert_eq!(
            p.write(Dialect::Fen, None).map_err(|e| e.code),
            Err(Code::LossyCastling)
        );
        let p = pos("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1");
        assert_eq!(
            w(&p, Dialect::Shredder).as_deref(),
            Some("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w JAja - 0 1")
        );
    }

    #[test]
    fn no_panic_on_hostile_input() {
        let huge_castling = format!("4k3/8/8/8/8/8/8/4K3 w {} - 0 1", "K".repeat(10_000));
        let many_ranks = format!("{} w - - 0 1", vec!["8"; 100].join("/"));
        let junk: Vec<u8> = (0..1_000_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b" ".to_vec(),
            b"/".to_vec(),
            b"\0\0\0".to_vec(),
            "é♞ w - - 0 1".as_bytes().to_vec(),
            huge_castling.into_bytes(),
            many_ranks.into_bytes(),
            "1".repeat(100_000).into_bytes(),
            junk,
        ];
        for input in inputs {
            for hint in [
                VariantHint::StandardLike,
                VariantHint::Chess960,
                VariantHint::Capablanca,
            ] {
                let x = analyse(&input, hint);
                if let Some(p) = &x.position {
                    for d in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
                        let _ = p.write(d, Some(EpPolicy::Legal));
                    }
                }
            }
        }
    }

    #[test]
    fn a_wrong_number_of_kings_is_the_one_fault_about_kings_and_check() {
        let messages = |fen: &str| -> Vec<String> {
            a(fen)
                .problems
                .iter()
                .filter(|p| p.code == Code::IllegalPosition)
                .map(|p| p.message.clone())
                .collect()
        };
        // 8x8: two white kings, and a black king attacked with white to move.
        assert_eq!(
            messages("rbn2Kb1/ppppk1p1/3n3r/2N1P2p/PP1pQp2/q2P1P1P/2P1K1P1/RB2N1R1 w - - 3 16"),
            ["white has 2 kings; each side needs exactly one king"]
        );
        // 10x8: two black kings, one of them attacked with white to move.
        assert_eq!(
            messages("3b1rb1c1/2k3p2p/p1n1Qp4/1pnp1NCPp1/1P2pP1P2/NRk1P5/3PKBP2P/R4B3A w - - 4 37"),
            ["black has 2 kings; each side needs exactly one king"]
        );
        // Too much material names the side and its count, by shakmaty's rule
        // (bishops counted by the colour of their squares).
        assert_eq!(
            messages("4k3/pppppppp/8/8/8/8/PPPPPPPP/QQQQK3 w - - 0 1"),
            [
                "white has 8 pawns and 3 pieces beyond the starting set, more than its 8 pawns could have become"
            ]
        );
        assert_eq!(
            messages("b1b1k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"),
            [
                "black has 8 pawns and 1 piece beyond the starting set, more than its 8 pawns could have become"
            ]
        );
        assert!(messages("b1b1k3/ppppppp1/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").is_empty());
        // No king: said as on 8x8, on both boards.
        assert_eq!(
            messages("4k3/8/8/8/8/8/8/R7 w - - 0 1"),
            ["white has no king; each side needs exactly one king"]
        );
        assert_eq!(
            messages("4k5/10/10/10/10/10/10/R9 w - - 0 1"),
            ["white has no king; each side needs exactly one king"]
        );
        // With one king each, the check is still judged.
        assert_eq!(
            messages("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"),
            [
                "the black king on e8 is in check with white to move; the side not to move cannot be in check"
            ]
        );
        assert_eq!(
            messages("4k5/10/10/10/10/10/10/4R4K w - - 0 1"),
            ["the black king on e8 is in check with white to move"]
        );
    }
}
