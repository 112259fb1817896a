//! Replaying a game's mainline from its start position (`--moves first|all`):
//! does the FEN tag fit the moves?
//!
//! The movetext is read here by a small lexer that follows `pgn-reader`'s
//! grammar (comments `{...}` and `;`, `%` escape lines, variations, NAGs,
//! annotation suffixes, move numbers, results) but keeps the byte span of every
//! token: the report needs the line and column of the offending move and the
//! token as written, which `pgn_reader::Visitor` does not give, and a token that
//! is not SAN at all must be reported rather than skipped. Each move is then
//! parsed by `shakmaty`'s SAN reader (the one `pgn-reader` uses) and played with
//! `shakmaty` in the rules of the game's class or variant.
//!
//! Everything is bounded: no recursion (variations are skipped with a depth
//! counter), no copy of the movetext, and the token kept for a report is cut
//! to 64 bytes.
//!
//! ```
//! use pgnfen::moves::{self, MoveText, MovesMode, Replay, Start};
//!
//! let text = |bytes| MoveText { bytes, line: 1, complete: true };
//! let fits = moves::replay(&Start::STANDARD, &text(b"1. e4 e5 2. Nf3 Nc6 *"), MovesMode::All);
//! assert_eq!(fits, Replay::Passed);
//! // A game whose moves do not fit its start: the first move that cannot be played.
//! let wrong = moves::replay(&Start::STANDARD, &text(b"1. e4 e5 2. Ke3 *"), MovesMode::All);
//! let illegal = wrong.illegal().expect("an illegal move");
//! assert_eq!((illegal.ply, illegal.token.as_str()), (3, "Ke3"));
//! ```

use std::ops::Range;

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::{CastlingMode, CastlingSide, EnPassantMode, Move, Position, Role};

use crate::class::Class;
use crate::classify::{TagInput, Verdict};
use crate::pgn::scan::TagName;
use crate::pgn::tags::decode_value;
use crate::pipeline::{Header, Job};

pub(crate) mod job;
pub(crate) use job::{Moved, WithMoves};

/// How much of the mainline is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MovesMode {
    /// Only the first mainline move (cheap: is the first move legal from the FEN?).
    First,
    /// Every mainline move in turn.
    All,
}

impl MovesMode {
    /// Both modes, in the order `--help` lists them.
    pub const ALL: [MovesMode; 2] = [MovesMode::First, MovesMode::All];

    /// `first` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            MovesMode::First => "first",
            MovesMode::All => "all",
        }
    }

    /// What the mode replays, in a few words (`--help`).
    pub fn description(self) -> &'static str {
        match self {
            MovesMode::First => "only the first mainline move",
            MovesMode::All => "every mainline move in turn",
        }
    }
}

impl std::fmt::Display for MovesMode {
    /// Its name, as [`MovesMode::as_str`] writes it and `parse` reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for MovesMode {
    type Err = crate::ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "first" => Ok(MovesMode::First),
            "all" => Ok(MovesMode::All),
            _ => Err(crate::ParseNameError::new(
                "moves mode",
                s,
                Some("first or all"),
            )),
        }
    }
}

/// Bytes of a token kept for a report (a 1 MB token is shown cut, with `…`).
pub(crate) const TOKEN_SHOWN: usize = 64;
/// Bytes of the movetext line kept for a report's snippet, either side of the move.
const LINE_SHOWN: usize = 120;
/// Plies played from the standard start position for the hint.
const HINT_PLIES: usize = 10;

/// The rules a game is replayed in, and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The variant (`Chess` for classes standard, setup and chess960).
    pub variant: Variant,
    /// Chess960 castling (class `chess960`).
    pub chess960: bool,
    /// The FEN tag's decoded value; `None`: the variant's own start position.
    pub fen: Option<Box<[u8]>>,
    /// Whether the "standard start position" hint applies (classes setup and chess960).
    pub hint: bool,
}

/// What the replay of one game found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Replay {
    /// The game is not replayed: class crc or malformed, another variant, or
    /// a start position that `shakmaty` cannot read in the game's rules.
    #[default]
    NotChecked,
    /// Replay to do once the movetext is read.
    Pending(Start),
    /// Every move judged was legal.
    Passed,
    /// The first move that could not be played.
    Illegal(Box<IllegalMove>),
    /// The game's class is replayed, but the moves that were judged (all
    /// legal) stop short of its end: its movetext passed what the replay
    /// holds in memory (8 MiB for a game finished by the merging thread,
    /// and for an input without a tag line). Counted with the
    /// games not checked; `check` says how many there were.
    Unfinished,
}

impl Replay {
    /// Whether the game was replayed (passed or illegal).
    pub fn checked(&self) -> bool {
        matches!(self, Replay::Passed | Replay::Illegal(_))
    }

    /// Whether the game should have been replayed but was not to its end
    /// ([`Replay::Unfinished`], or still [`Replay::Pending`]: its movetext
    /// never reached the replay).
    pub fn unfinished(&self) -> bool {
        matches!(self, Replay::Unfinished | Replay::Pending(_))
    }

    /// The illegal move, if one was found.
    pub fn illegal(&self) -> Option<&IllegalMove> {
        match self {
            Replay::Illegal(m) => Some(m),
            _ => None,
        }
    }
}

/// A mainline move that cannot be played (the problem `illegal-move`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// 1 for the first mainline move of the game.
    pub ply: u32,
    /// The token as written, suffix included (cut to 64 bytes).
    pub token: String,
    /// Line of the token, counted as the game's header lines are (the line
    /// in the input for a run over whole inputs; in a partition's run, from
    /// the partition's start: [`Diagnostic::line`](crate::check::Diagnostic::line)
    /// is always the line in the input).
    pub line: u64,
    /// 1-based column of the token, in characters.
    pub column: usize,
    /// The token's line (a window of a long one), for a snippet.
    pub line_text: String,
    /// The token inside `line_text` (byte range).
    pub span: Range<usize>,
    /// The position the move was played in (X-FEN).
    pub position: String,
    /// Why it cannot be played.
    pub reason: &'static str,
    /// The moves fit the standard start position instead (the FEN is probably wrong).
    pub standard_start: bool,
    /// The game started from its FEN tag (not from its variant's own start
    /// position): the help then names the tag as a suspect.
    pub from_fen: bool,
    /// The move in SAN, when the token names a legal move in long algebraic
    /// notation (`e2-e4`, `Ng1f3`): what to write instead.
    pub in_san: Option<String>,
}

impl IllegalMove {
    /// The report's message: names the move and its ply.
    pub fn message(&self) -> String {
        let mut m = format!(
            "illegal move \"{}\" at ply {}: {}",
            self.token, self.ply, self.reason
        );
        if self.standard_start {
            m.push_str(
                "; the first moves are legal from the standard start position, so the FEN tag is probably not the game's start",
            );
        }
        m
    }

    /// How to mend it, in words.
    pub fn help(&self) -> String {
        if let Some(san) = &self.in_san {
            format!("write the move in SAN, as PGN has it: {san}")
        } else if self.reason.starts_with("not a move in SAN") {
            // No position makes it a move: the tags are not to blame.
            "correct the move: PGN writes moves in SAN (Nf3, exd5, O-O, e8=Q)".to_string()
        } else if self.standard_start {
            "remove the SetUp and FEN tags if the game starts from the standard position, or correct the FEN".to_string()
        } else if self.from_fen {
            "correct the FEN (or Variant) tag so that it gives the position the game started from, or the move".to_string()
        } else {
            // No FEN tag: no tag to suspect but the Variant, if any.
            "correct the move: without a FEN tag the game starts from the standard position (or its Variant's own)".to_string()
        }
    }

    /// The position, as a note.
    pub fn note(&self) -> String {
        format!("position before the move: {}", self.position)
    }
}

/// The start of a game whose header has this verdict, or `None` when the
/// game is not replayed (docs/moves.md: classes standard, setup, chess960,
/// and `other` games of the seven lichess variants).
pub(crate) fn start_of(header: &Header<'_>, verdict: &Verdict) -> Option<Start> {
    if verdict.class == Class::Standard && verdict.fen.is_none() {
        // The usual game: no tag to look at.
        return Some(Start::STANDARD);
    }
    let tags: Vec<TagInput<'_>> = header.inputs();
    start_from_tags(&tags, verdict)
}

/// [`start_of`] over the classifier's inputs.
pub(crate) fn start_from_tags(tags: &[TagInput<'_>], verdict: &Verdict) -> Option<Start> {
    let fen = || -> Option<Box<[u8]>> {
        tags.iter()
            .find(|t| t.name == TagName::Fen)
            .map(|t| decode_value(t.raw).into_owned().into_boxed_slice())
    };
    match verdict.class {
        Class::Standard | Class::Setup | Class::Chess960 => {
            let chess960 = verdict.class == Class::Chess960;
            // The FEN that gives the start is the one the classifier read.
            let fen = match &verdict.fen {
                Some((i, _)) => tags
                    .get(*i)
                    .map(|t| decode_value(t.raw).into_owned().into_boxed_slice()),
                None => None,
            };
            if fen.is_none() && verdict.class != Class::Standard {
                return None;
            }
            Some(Start {
                variant: Variant::Chess,
                chess960,
                fen,
                hint: verdict.class != Class::Standard,
            })
        }
        Class::Other => {
            let name = tags.iter().find(|t| t.name == TagName::Variant)?;
            let variant = lichess_variant(&decode_value(name.raw))?;
            Some(Start {
                variant,
                chess960: false,
                fen: fen(),
                hint: false,
            })
        }
        Class::Crc | Class::Malformed => None,
    }
}

/// The variant of a Variant tag value, compared as the classifier compares
/// names (case, spaces, hyphens, underscores and tabs ignored), if it is one
/// of the seven that are replayed.
pub(crate) fn lichess_variant(value: &[u8]) -> Option<Variant> {
    let key: Vec<u8> = value
        .iter()
        .filter(|b| !matches!(b, b' ' | b'-' | b'_' | b'\t'))
        .map(u8::to_ascii_lowercase)
        .collect();
    Some(match key.as_slice() {
        b"crazyhouse" => Variant::Crazyhouse,
        b"atomic" => Variant::Atomic,
        b"antichess" => Variant::Antichess,
        b"kingofthehill" => Variant::KingOfTheHill,
        b"threecheck" => Variant::ThreeCheck,
        b"racingkings" => Variant::RacingKings,
        b"horde" => Variant::Horde,
        _ => return None,
    })
}

impl Start {
    /// The standard start position, in the rules of chess.
    pub const STANDARD: Start = Start {
        variant: Variant::Chess,
        chess960: false,
        fen: None,
        hint: false,
    };

    /// The start position in the game's rules, or `None` when `shakmaty`
    /// cannot read it (the game is then not checked).
    pub fn position(&self) -> Option<VariantPosition> {
        let Some(fen) = &self.fen else {
            return Some(VariantPosition::new(self.variant));
        };
        let setup = Fen::from_ascii(fen).ok()?.into_setup();
        let modes: &[CastlingMode] = if self.chess960 {
            &[CastlingMode::Chess960]
        } else if self.variant == Variant::Chess {
            &[CastlingMode::Standard]
        } else {
            // A variant FEN may come from a 960 start (lichess has none, but
            // other servers do): standard castling first, Chess960 otherwise.
            &[CastlingMode::Standard, CastlingMode::Chess960]
        };
        // Antichess and Racing Kings have no castling, yet a FEN of theirs
        // may carry the standard array's `KQkq` (as python-chess reads
        // them): the rights are dropped, not the game's check.
        let castleless = matches!(self.variant, Variant::Antichess | Variant::RacingKings);
        modes.iter().find_map(|&mode| {
            match VariantPosition::from_setup(self.variant, setup.clone(), mode) {
                Ok(pos) => Some(pos),
                Err(e) if castleless => e.ignore_invalid_castling_rights().ok(),
                Err(_) => None,
            }
        })
    }
}

/// `bytes`, the movetext that starts at byte `from` of its input, without the
/// input's byte order mark when they start the input: that mark takes no
/// column, as before a first tag line; any other U+FEFF is a character of
/// its line.
pub(crate) fn without_input_bom(bytes: &[u8], from: u64) -> &[u8] {
    match bytes.strip_prefix(&crate::pgn::scan::BOM) {
        Some(rest) if from == 0 => rest,
        _ => bytes,
    }
}

/// The movetext of a game (or its beginning) handed to a replay.
#[derive(Clone, Copy, Debug)]
pub struct MoveText<'a> {
    /// The movetext bytes, from the first line after the header (without
    /// the input's byte order mark, for an input without tag lines: every
    /// character here takes a column, as it does in its line of the file).
    pub bytes: &'a [u8],
    /// Line of `bytes[0]`, in the base of the game's header lines.
    pub line: u64,
    /// False when the bytes stop short of the game's end (a game larger than
    /// the replay budget): a token that reaches the end is then not judged.
    pub complete: bool,
}

/// Replays `text` from `start`: [`Replay::Passed`], [`Replay::Illegal`],
/// [`Replay::Unfinished`] when a cut movetext (`complete` false) ends before
/// an illegal move was found, or [`Replay::NotChecked`] when the start
/// position cannot be read.
pub fn replay(start: &Start, text: &MoveText<'_>, mode: MovesMode) -> Replay {
    // Chess is played on its own type, not through the variant enum: a move
    // list returned through the enum is copied once more per move (2 KiB).
    match start.position() {
        None => Replay::NotChecked,
        Some(VariantPosition::Chess(pos)) => replay_from(pos, start, text, mode),
        Some(pos) => replay_from(pos, start, text, mode),
    }
}

/// How a position finds the move a SAN names: plain chess has a fast path,
/// the variants go through `shakmaty`'s candidate lists.
trait FindMove: Position + Sized {
    fn find(&self, san: San) -> Result<Move, &'static str> {
        find_move(self, san)
    }
}

impl FindMove for shakmaty::Chess {
    fn find(&self, san: San) -> Result<Move, &'static str> {
        // The fast path answers when exactly one legal move fits; anything
        // else (none, several, castling, a drop) is judged by the plain path,
        // which words the error.
        match fast::unique_move(self, &san) {
            Some(m) => Ok(m),
            None => find_move(self, san),
        }
    }
}

impl FindMove for VariantPosition {
    fn find(&self, san: San) -> Result<Move, &'static str> {
        // shakmaty's Antichess and Horde still give moves once a side has no
        // piece left (its other variants give none once their goal is
        // reached): no move is legal after the game's end, in any variant.
        if self.is_variant_end() {
            return Err("the game is already over by the variant's rules");
        }
        find_move(self, san)
    }
}

fn replay_from<P: FindMove + Clone>(
    mut pos: P,
    start: &Start,
    text: &MoveText<'_>,
    mode: MovesMode,
) -> Replay {
    let limit = match mode {
        MovesMode::First => 1,
        MovesMode::All => usize::MAX,
    };
    let mut lexer = Lexer::new(text.bytes, text.complete);
    let mut ply = 0u32;
    // The limit is tested before the next token is read: `first` reads one.
    while (ply as usize) < limit
        && let Some(token) = lexer.next_move()
    {
        let word = &text.bytes[token.clone()];
        let mut in_san = None;
        let verdict = match parse_san(word) {
            Lenient::Null => break,
            Lenient::NotSan => match long_algebraic(&pos, word) {
                Some(m) => {
                    in_san = Some(San::from_move(&pos, m).to_string());
                    Err("long algebraic notation, not SAN")
                }
                None => Err("not a move in SAN"),
            },
            Lenient::San(san) => pos.find(san).map_err(|reason| {
                // A word of two squares that names no move as SAN (`g1f3`
                // read as a pawn on g1) may be UCI's notation of a legal one
                // (`g1f3`, `e1g1`): reported as such, with its SAN.
                match long_algebraic(&pos, word) {
                    Some(m) => {
                        in_san = Some(San::from_move(&pos, m).to_string());
                        "long algebraic notation, not SAN"
                    }
                    None => reason,
                }
            }),
        };
        ply = ply.saturating_add(1);
        match verdict {
            // The last move judged need not be played.
            Ok(m) if (ply as usize) < limit => pos.play_unchecked(m),
            Ok(_) => {}
            Err(reason) => {
                let standard_start = start.hint && ply == 1 && fits_standard_start(text);
                // X-FEN's en passant square: kept when a pawn could take
                // there, legal or not (a pinned capturer), as `fen` writes it.
                let position = Fen::from_position(&pos, EnPassantMode::PseudoLegal).to_string();
                let mut illegal = illegal_at(text, token, ply, position, reason, standard_start);
                illegal.in_san = in_san;
                illegal.from_fen = start.fen.is_some();
                return Replay::Illegal(Box::new(illegal));
            }
        }
    }
    if lexer.cut {
        // Moves past the cut were not judged: the game was not fully checked.
        return Replay::Unfinished;
    }
    Replay::Passed
}

/// The number of mainline move tokens of a movetext (up to its result
/// token), as the replay reads them: a reported ply is never larger.
#[cfg(feature = "internals")]
pub(crate) fn mainline_len(bytes: &[u8]) -> usize {
    let mut lexer = Lexer::new(bytes, true);
    let mut n = 0;
    while lexer.next_move().is_some() {
        n += 1;
    }
    n
}

/// Whether the first [`HINT_PLIES`] mainline moves (all, if fewer; at least
/// one) are legal from the standard start position.
fn fits_standard_start(text: &MoveText<'_>) -> bool {
    let mut pos = shakmaty::Chess::default();
    let mut lexer = Lexer::new(text.bytes, text.complete);
    let mut played = 0;
    while played < HINT_PLIES {
        let Some(token) = lexer.next_move() else {
            break;
        };
        let m = match parse_san(&text.bytes[token]) {
            Lenient::Null => break,
            Lenient::NotSan => return false,
            Lenient::San(san) => match find_move(&pos, san) {
                Ok(m) => m,
                Err(_) => return false,
            },
        };
        pos.play_unchecked(m);
        played += 1;
    }
    played > 0
}

/// Places the token `token` of `text`: line, column, a snippet of its line.
fn illegal_at(
    text: &MoveText<'_>,
    token: Range<usize>,
    ply: u32,
    position: String,
    reason: &'static str,
    standard_start: bool,
) -> IllegalMove {
    let bytes = text.bytes;
    // The token as written, with the annotation suffix that follows it.
    let suffix = bytes[token.end..]
        .iter()
        .take_while(|b| matches!(b, b'!' | b'?'))
        .count();
    let shown = token.start..token.end + suffix;
    let mut lines = 0u64;
    let mut line_start = 0usize;
    let mut i = 0usize;
    for at in memchr::memchr2_iter(b'\n', b'\r', &bytes[..token.start]) {
        if at < i {
            continue;
        }
        // `\r\n` is one line end.
        i = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            at + 2
        } else {
            at + 1
        };
        lines += 1;
        line_start = i;
    }
    let line_end = memchr::memchr2(b'\n', b'\r', &bytes[token.start..])
        .map_or(bytes.len(), |n| token.start + n);
    // Every character of the line counts, a U+FEFF among them: only an
    // input's own byte order mark takes no column, and the pipeline hands
    // over no movetext with it ([`MoveText::bytes`]).
    let column = 1 + crate::pgn::tags::shown_chars(&bytes[line_start..token.start]);
    // Cuts at character starts (never before the line or the token), so that
    // the span lies on character boundaries of the lossy text.
    let shown_start = line_start;
    let from = boundary(
        bytes,
        token.start.saturating_sub(LINE_SHOWN).max(shown_start),
    )
    .max(shown_start);
    let to_raw = boundary(bytes, shown.end.min(token.start + TOKEN_SHOWN)).max(token.start);
    let to = boundary(bytes, (to_raw + LINE_SHOWN).min(line_end)).max(to_raw.min(line_end));
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let line_text = lossy(&bytes[from..to]);
    let span_start = lossy(&bytes[from..token.start]).len();
    let span_end = span_start + lossy(&bytes[token.start..to_raw.min(to)]).len();
    IllegalMove {
        ply,
        token: shown_token(&bytes[shown]),
        line: text.line.saturating_add(lines),
        column,
        line_text,
        span: span_start..span_end.max(span_start),
        position,
        reason,
        standard_start,
        from_fen: false,
        in_san: None,
    }
}

/// The legal move that `word` names in long algebraic notation, if it does:
/// an optional piece letter, the from and to squares with `-`, `x` or
/// nothing between them, an optional promotion (`=Q`, `q`) and check mark
/// (`e2-e4`, `Ng1-f3`, `e7xd8=Q+`, `e2e4` as UCI writes it). Only for the
/// message of a word that is not SAN: PGN's movetext is SAN.
fn long_algebraic<P: Position>(pos: &P, word: &[u8]) -> Option<Move> {
    let word = match word.iter().rposition(|b| !matches!(b, b'+' | b'#')) {
        Some(last) => &word[..=last],
        None => return None,
    };
    let (role, rest) = match word.first().and_then(|&b| Role::from_char(char::from(b))) {
        Some(role) if word[0].is_ascii_uppercase() => (Some(role), &word[1..]),
        _ => (None, word),
    };
    let square = |b: &[u8]| shakmaty::Square::from_ascii(b).ok();
    let from = square(rest.get(..2)?)?;
    let rest = &rest[2..];
    let rest = match rest.first() {
        Some(b'-' | b'x' | b':') => &rest[1..],
        _ => rest,
    };
    let to = square(rest.get(..2)?)?;
    let promotion = match &rest[2..] {
        [] => None,
        [b'=', p] | [p] => Some(Role::from_char(char::from(p.to_ascii_lowercase()))?),
        _ => return None,
    };
    let m = shakmaty::uci::UciMove::Normal {
        from,
        to,
        promotion,
    }
    .to_move(pos)
    .ok()?;
    match role {
        Some(role) if role != m.role() => None,
        _ => Some(m),
    }
}

/// The token for a message: lossy UTF-8, control characters escaped, cut to
/// [`TOKEN_SHOWN`] bytes.
fn shown_token(token: &[u8]) -> String {
    let cut = boundary(token, token.len().min(TOKEN_SHOWN));
    // The one rule of every report (`\0`, `\u{1b}`): crate::escape.
    let mut s = crate::escape::controls(&String::from_utf8_lossy(&token[..cut])).into_owned();
    if cut < token.len() {
        s.push('…');
    }
    s
}

/// `at` moved back to the start of a UTF-8 character.
fn boundary(bytes: &[u8], mut at: usize) -> usize {
    at = at.min(bytes.len());
    while at > 0 && at < bytes.len() && (bytes[at] & 0xC0) == 0x80 {
        at -= 1;
    }
    at
}

/// A mainline token read leniently.
#[derive(Debug, PartialEq, Eq)]
enum Lenient {
    San(San),
    /// `--` or `Z0` (or `0000`, `@@@@`, as UCI and python-chess write it):
    /// the replay ends there.
    Null,
    NotSan,
}

/// Castling written with zeros and any of [`DASHES`] (`0–0`, `0—0—0`), as
/// `pgn-reader` reads it.
fn zero_castling(word: &[u8]) -> Option<CastlingSide> {
    let mut rest = word.strip_prefix(b"0")?;
    let mut zeros = 1;
    while !rest.is_empty() {
        rest = DASHES
            .iter()
            .find_map(|dash| rest.strip_prefix(*dash))?
            .strip_prefix(b"0")?;
        zeros += 1;
    }
    match zeros {
        2 => Some(CastlingSide::KingSide),
        3 => Some(CastlingSide::QueenSide),
        _ => None,
    }
}

/// Reads a move token as chess programs read it: `0-0`/`0-0-0` for castling,
/// a promotion with or without `=`, any `+`/`#` ignored (the position decides).
fn parse_san(word: &[u8]) -> Lenient {
    let mut end = word.len();
    while end > 0 && matches!(word[end - 1], b'+' | b'#') {
        end -= 1;
    }
    let word = &word[..end];
    match word {
        b"--" | b"Z0" | b"0000" | b"@@@@" => return Lenient::Null,
        // More dashes (`---`): a null move too, as python-chess reads it.
        _ if word.len() > 2 && word.iter().all(|&b| b == b'-') => return Lenient::Null,
        b"O-O" | b"0-0" => return Lenient::San(San::Castle(CastlingSide::KingSide)),
        b"O-O-O" | b"0-0-0" => return Lenient::San(San::Castle(CastlingSide::QueenSide)),
        _ => {}
    }
    if let Some(side) = zero_castling(word) {
        return Lenient::San(San::Castle(side));
    }
    if word.is_empty() || word.len() > 12 {
        return Lenient::NotSan;
    }
    // `e8Q`, `exd8N`: a promotion piece right after the rank, without `=`;
    // `e8q`, `dxe8=q`: the piece in lower case (as python-chess reads it
    // too), but not after a square written in full: `e7e8q` is UCI, which is
    // reported as long algebraic notation.
    let full_square = word.len() > 3 && word[1].is_ascii_digit();
    let promotion = |p: u8| {
        matches!(p, b'Q' | b'R' | b'B' | b'N' | b'K')
            || !full_square && matches!(p, b'q' | b'r' | b'b' | b'n' | b'k')
    };
    let mut buf = [0u8; 16];
    let word = match word {
        [.., r, p] if matches!(r, b'1' | b'8') && promotion(*p) => {
            let n = word.len();
            buf[..n - 1].copy_from_slice(&word[..n - 1]);
            buf[n - 1] = b'=';
            buf[n] = p.to_ascii_uppercase();
            &buf[..n + 1]
        }
        [.., r, b'=', p] if matches!(r, b'1' | b'8') && p.is_ascii_lowercase() && promotion(*p) => {
            let n = word.len();
            buf[..n].copy_from_slice(word);
            buf[n - 1] = p.to_ascii_uppercase();
            &buf[..n]
        }
        // `p@d5`: a dropped piece in lower case, as the promotion piece
        // above (python-chess reads it too); `@` after it leaves no doubt
        // that `b` is a bishop, not the b-file.
        [p, b'@', ..] if matches!(p, b'p' | b'n' | b'b' | b'r' | b'q' | b'k') => {
            let n = word.len();
            buf[..n].copy_from_slice(word);
            buf[0] = p.to_ascii_uppercase();
            &buf[..n]
        }
        _ => word,
    };
    match San::from_ascii(word) {
        Ok(San::Null) => Lenient::Null,
        Ok(san) => Lenient::San(san),
        Err(_) => Lenient::NotSan,
    }
}

/// The legal move `san` names in `pos`: a capture mark `x` that is missing
/// or names no capture is ignored on a piece move; a pawn capture must name
/// its file (`exd5` or `ed5`).
fn find_move<P: Position>(pos: &P, san: San) -> Result<Move, &'static str> {
    match san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            let pawn_capture =
                role == Role::Pawn && (capture || file.is_some_and(|f| f != to.file()));
            if role == Role::Pawn && capture && file.is_none() {
                return Err("not a move in SAN (a pawn capture names its file)");
            }
            let mut found = None;
            // Iterated by reference: moving the list out would copy it.
            let candidates = pos.san_candidates(role, to);
            for &m in &candidates {
                let (from, promo, is_capture) = match m {
                    Move::Normal {
                        from,
                        capture: c,
                        promotion: p,
                        ..
                    } => (from, p, c.is_some()),
                    Move::EnPassant { from, .. } => (from, None, true),
                    _ => continue,
                };
                let fits = file.is_none_or(|f| f == from.file())
                    && rank.is_none_or(|r| r == from.rank())
                    && promo == promotion
                    && (role != Role::Pawn || is_capture == pawn_capture);
                if fits {
                    if found.is_some() {
                        return Err("ambiguous: more than one legal move fits");
                    }
                    found = Some(m);
                }
            }
            found.ok_or("no legal move fits it in this position")
        }
        San::Castle(side) => pos
            .castling_moves(side)
            .first()
            .copied()
            .ok_or("castling is not legal in this position"),
        San::Put { role, to } => pos
            .san_candidates(role, to)
            .iter()
            .find(|m| matches!(m, Move::Put { .. }))
            .copied()
            .ok_or("the drop is not legal in this position"),
        San::Null => Err("a null move"),
    }
}

/// The legal move a SAN names in plain chess, found without a move list.
///
/// `shakmaty`'s `san_candidates` builds a list of up to 256 moves and returns
/// it by value (2 KiB copied per move played: a fifth of a replay). Here the
/// squares a piece could come from are computed from the attack tables, and
/// each candidate is tried against the king: after the move, does an enemy
/// piece attack our king (with the occupancy the move leaves)? Only a unique
/// legal candidate is returned; the plain path decides every other case, so
/// this path can only be faster, never different (checked against it by a
/// property test).
mod fast {
    use shakmaty::attacks;
    use shakmaty::san::San;
    use shakmaty::{Bitboard, Chess, Move, Position, Role, Square};

    /// The one legal move of `pos` that `san` names under the lenient rules
    /// of [`super::find_move`], or `None` when there is none, more than one,
    /// or the SAN is not a plain piece or pawn move.
    pub(super) fn unique_move(pos: &Chess, san: &San) -> Option<Move> {
        let San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } = *san
        else {
            return None;
        };
        let board = pos.board();
        let turn = pos.turn();
        let occupied = board.occupied();
        let us = board.by_color(turn);
        if us.contains(to) {
            return None;
        }
        let king = board.king_of(turn)?;
        let ours = us & board.by_role(role);
        let target = board.role_at(to);
        let mut found = None;
        let mut try_move = |m: Move, from: Square, removed: Bitboard| -> bool {
            // Occupancy after the move; the captured piece no longer attacks.
            let after =
                (occupied & !Bitboard::from_square(from) & !removed) | Bitboard::from_square(to);
            let king_sq = if from == king { to } else { king };
            let attackers =
                board.attacks_to(king_sq, !turn, after) & !removed & !Bitboard::from_square(to);
            if attackers.any() {
                return true;
            }
            if found.is_some() {
                return false; // two legal moves fit: ambiguous
            }
            found = Some(m);
            true
        };
        let filter = |from: Square| {
            file.is_none_or(|f| f == from.file()) && rank.is_none_or(|r| r == from.rank())
        };
        let to_bb = Bitboard::from_square(to);
        if role == Role::Pawn {
            let backrank = to.rank() == turn.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
            if backrank != promotion.is_some() {
                return None;
            }
            if promotion.is_some_and(|p| matches!(p, Role::Pawn | Role::King)) {
                return None;
            }
            let pawn_capture = capture || file.is_some_and(|f| f != to.file());
            if capture && file.is_none() {
                return None;
            }
            if pawn_capture {
                let froms = attacks::pawn_attacks(!turn, to) & ours;
                if target.is_some() {
                    for from in froms {
                        if filter(from) {
                            let m = Move::Normal {
                                role,
                                from,
                                capture: target,
                                to,
                                promotion,
                            };
                            if !try_move(m, from, to_bb) {
                                return None;
                            }
                        }
                    }
                } else if pos.maybe_ep_square() == Some(to) && promotion.is_none() {
                    // The captured pawn stands beside the capturing one.
                    let behind = to.offset(turn.fold_wb(-8, 8))?;
                    for from in froms {
                        if filter(from) {
                            let m = Move::EnPassant { from, to };
                            if !try_move(m, from, Bitboard::from_square(behind)) {
                                return None;
                            }
                        }
                    }
                } else {
                    return None;
                }
            } else {
                if target.is_some() {
                    return None;
                }
                let back = turn.fold_wb(-8, 8);
                let one = to.offset(back)?;
                let from = if ours.contains(one) {
                    one
                } else if !occupied.contains(one)
                    && to.rank() == turn.fold_wb(shakmaty::Rank::Fourth, shakmaty::Rank::Fifth)
                {
                    let two = one.offset(back)?;
                    if !ours.contains(two) {
                        return None;
                    }
                    two
                } else {
                    return None;
                };
                if !filter(from) {
                    return None;
                }
                let m = Move::Normal {
                    role,
                    from,
                    capture: None,
                    to,
                    promotion,
                };
                if !try_move(m, from, Bitboard::EMPTY) {
                    return None;
                }
            }
        } else {
            if promotion.is_some() {
                return None;
            }
            let froms = match role {
                Role::Knight => attacks::knight_attacks(to),
                Role::Bishop => attacks::bishop_attacks(to, occupied),
                Role::Rook => attacks::rook_attacks(to, occupied),
                Role::Queen => attacks::queen_attacks(to, occupied),
                Role::King => attacks::king_attacks(to),
                Role::Pawn => unreachable!("handled above"),
            } & ours;
            let removed = if target.is_some() {
                to_bb
            } else {
                Bitboard::EMPTY
            };
            for from in froms {
                if filter(from) {
                    let m = Move::Normal {
                        role,
                        from,
                        capture: target,
                        to,
                        promotion: None,
                    };
                    if !try_move(m, from, removed) {
                        return None;
                    }
                }
            }
        }
        found
    }
}

/// The mainline move tokens of a movetext, with their byte spans.
struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
    /// At the start of a line (where `%` starts an escape line).
    line_start: bool,
    /// The bytes may stop inside a token (see [`MoveText::complete`]).
    complete: bool,
    done: bool,
    /// The movetext stopped short (not complete) before the main line ended:
    /// the moves after the cut were not judged.
    cut: bool,
}

/// Bytes that end a token (as `pgn-reader` has them, `.` included), as a
/// table: the lexer looks it up once per byte of a token.
static TOKEN_END: [bool; 256] = {
    let mut t = [false; 256];
    let ends = b" \t\n\r{}()!?$;.*";
    let mut i = 0;
    while i < ends.len() {
        t[ends[i] as usize] = true;
        i += 1;
    }
    t
};

/// What the lexer makes of a word between token ends (results are
/// recognised before).
#[derive(Debug, PartialEq, Eq)]
enum Word {
    /// Not a move: a move number (`12`, `12…`), or noise that is no attempt
    /// at a move (a stray `\`, a lone `-`, NUL bytes, punctuation).
    Skip,
    /// A move to judge, from this byte of the word on (after a move number
    /// glued to it: `12e4`, `1…Nc6`).
    Move(usize),
}

/// The Unicode ellipsis (`1…e5`), written like `...` after a move number.
const ELLIPSIS: &[u8] = "…".as_bytes();

fn classify_word(word: &[u8]) -> Word {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut from = digits;
    while word[from..].starts_with(ELLIPSIS) {
        from += ELLIPSIS.len();
    }
    let rest = &word[from..];
    if digits > 0 {
        return match rest.first() {
            // `0000`: the null move as UCI (and python-chess) write it.
            // (`00` and `000` are skipped, as pgn-reader and python-chess
            // skip them: `1.00` outside a comment is an evaluation more
            // often than castling.)
            None if word == b"0000" => Word::Move(0),
            // A move number (`12`, `12…`; the dots of `12.` end the word).
            None => Word::Skip,
            // A move glued to its number.
            Some(b) if b.is_ascii_alphabetic() => Word::Move(from),
            // `1/2`: a draw written short, no attempt at a move.
            _ if word == b"1/2" => Word::Skip,
            // Castling with zeros, and every other word that starts with a
            // digit (`0-00`, `2-1`): judged whole.
            _ => Word::Move(0),
        };
    }
    let Some(&first) = rest.first() else {
        return Word::Skip;
    };
    // A move behind stray punctuation, ASCII or not (`&Ke2`, `<Ke2>`,
    // `]Ke7`, `«Ke2»`), is an attempt too, judged whole: skipped, it would
    // hide an illegal move and give every later move to the wrong side.
    let attempt = rest.iter().any(u8::is_ascii_alphabetic)
        || if first.is_ascii() {
            first == b'@' || rest.starts_with(b"--")
        } else {
            // A letter of another script (`Кf3`, `Ｎf6`) or a chess figurine
            // (`♘f3`, U+2654 to U+265F): an attempt at a move, though not SAN.
            first_char(rest)
                .is_some_and(|c| c.is_alphabetic() || ('\u{2654}'..='\u{265F}').contains(&c))
        };
    if attempt {
        Word::Move(from)
    } else {
        Word::Skip
    }
}

/// The dashes `pgn-reader` reads in a result and in castling with zeros:
/// `-`, and the en and em dashes that word processors put in its place
/// (`1–0`, `0–0`).
const DASHES: [&[u8]; 3] = [b"-", "\u{2013}".as_bytes(), "\u{2014}".as_bytes()];

/// The results, as the two sides of their dash: `1-0`, `0-1`, `1/2-1/2`, `½-½`.
const RESULTS: [(&[u8], &[u8]); 4] = [
    (b"1", b"0"),
    (b"0", b"1"),
    (b"1/2", b"1/2"),
    ("\u{bd}".as_bytes(), "\u{bd}".as_bytes()),
];

/// The length of the result `word` starts with, with any of [`DASHES`].
fn leading_result(word: &[u8]) -> Option<usize> {
    RESULTS.iter().find_map(|(white, black)| {
        let rest = word.strip_prefix(*white)?;
        DASHES.iter().find_map(|dash| {
            let rest = rest.strip_prefix(*dash)?;
            rest.starts_with(black)
                .then(|| word.len() - rest.len() + black.len())
        })
    })
}

/// The length of the result that ends `word`, with any of [`DASHES`].
fn trailing_result(word: &[u8]) -> Option<usize> {
    RESULTS.iter().find_map(|(white, black)| {
        let rest = word.strip_suffix(*black)?;
        DASHES.iter().find_map(|dash| {
            let before = rest.strip_suffix(*dash)?.strip_suffix(*white)?;
            Some(word.len() - before.len())
        })
    })
}

/// The length of a result that ends `word` after what can end a move (a
/// rank, a promotion piece, a check mark, the last `O` or `0` of castling),
/// as python-chess reads `Qxf7#1-0` or `e8Q1-0`. (Not after `b`, a file as
/// much as a bishop: `Nb1-0` is judged whole.)
fn glued_result(word: &[u8]) -> Option<usize> {
    trailing_result(word).and_then(|n| {
        let before = &word[..word.len() - n];
        matches!(
            before.last()?,
            b'1'..=b'8'
                | b'Q'
                | b'R'
                | b'B'
                | b'N'
                | b'q'
                | b'r'
                | b'n'
                | b'+'
                | b'#'
                | b'O'
                | b'0'
        )
        .then_some(n)
    })
}

/// The length of the blank that `bytes` start with, when it is a Unicode
/// one (U+0080 and above): a no-break space (`1.\u{a0}e4`, as text copied
/// from a web page has it), another space of Unicode's, or a zero-width one.
/// It separates words as an ASCII blank does; glued to a move, it would make
/// the move a word of stray characters.
fn unicode_blank(bytes: &[u8]) -> Option<usize> {
    if bytes.first().is_none_or(u8::is_ascii) {
        return None;
    }
    first_char(bytes)
        .filter(|&c| c.is_whitespace() || matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}'))
        .map(char::len_utf8)
}

/// Whether the result that `word` starts with (`n` bytes) ends the main
/// line: alone, or glued to what cannot continue a move (`1/2-1/2[Event`, as
/// pgn-reader reads it). Glued to a letter (`1-0Ke3`, `*Nf3`) it is a word to
/// judge, as the game goes on after it.
fn ends_main_line(word: &[u8], n: usize) -> bool {
    word.get(n)
        .is_none_or(|&b| !(b.is_ascii_alphabetic() || b == b'@'))
}

/// The first character of `bytes`, if they start with valid UTF-8.
fn first_char(bytes: &[u8]) -> Option<char> {
    let head = &bytes[..bytes.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(t) => t,
        // The window may cut a later character: what precedes it is valid.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    valid.chars().next()
}

impl<'a> Lexer<'a> {
    fn new(bytes: &'a [u8], complete: bool) -> Self {
        Lexer {
            bytes,
            // A U+FEFF glued to the first word (an input's byte order mark
            // that a caller left in, or one that a line after the header
            // starts with) would make that word no move and hand every later
            // move to the wrong side; it is a blank, as between words.
            at: if bytes.starts_with(&crate::pgn::scan::BOM) {
                crate::pgn::scan::BOM.len()
            } else {
                0
            },
            line_start: true,
            complete,
            done: false,
            cut: false,
        }
    }

    /// Skips past the next `needle` (or to the end).
    fn skip_past(&mut self, needle: u8) {
        self.at = memchr::memchr(needle, &self.bytes[self.at..])
            .map_or(self.bytes.len(), |n| self.at + n + 1);
    }

    /// Skips to the end of the line (the line end itself is not skipped).
    fn skip_line(&mut self) {
        self.at = memchr::memchr2(b'\n', b'\r', &self.bytes[self.at..])
            .map_or(self.bytes.len(), |n| self.at + n);
    }

    /// Skips a variation whose `(` was just read: nested ones, comments,
    /// `;` comments and `%` escape lines inside it (a parenthesis there
    /// opens or closes nothing); without recursion.
    fn skip_variation(&mut self) {
        let mut depth = 1u64;
        while self.at < self.bytes.len() {
            let b = self.bytes[self.at];
            if b == b'%' && matches!(self.bytes[self.at - 1], b'\n' | b'\r') {
                self.skip_line();
                continue;
            }
            self.at += 1;
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                b'{' => self.skip_past(b'}'),
                b';' => self.skip_line(),
                _ => {}
            }
        }
    }

    /// The span of the next mainline move token, or `None` at the result
    /// token or the end of the movetext.
    fn next_move(&mut self) -> Option<Range<usize>> {
        if self.done {
            return None;
        }
        let bytes = self.bytes;
        while self.at < bytes.len() {
            let b = bytes[self.at];
            if self.line_start && b == b'%' {
                self.skip_line();
                continue;
            }
            self.line_start = false;
            match b {
                b'\n' | b'\r' => {
                    self.at += 1;
                    self.line_start = true;
                }
                b' ' | b'\t' | b'.' | b'!' | b'?' | b')' | b'}' => self.at += 1,
                b'{' => {
                    self.at += 1;
                    self.skip_past(b'}');
                }
                b';' => self.skip_line(),
                b'(' => {
                    self.at += 1;
                    self.skip_variation();
                }
                // A NAG: `$` and its digits; what is glued after them
                // (`$1Ke3`) is a word of its own.
                b'$' if bytes.get(self.at + 1).is_some_and(u8::is_ascii_digit) => {
                    self.at += 1;
                    while self.at < bytes.len() && bytes[self.at].is_ascii_digit() {
                        self.at += 1;
                    }
                }
                b'*' if ends_main_line(&bytes[self.at..], 1) => {
                    self.done = true;
                    return None;
                }
                _ => {
                    if let Some(n) = unicode_blank(&bytes[self.at..]) {
                        self.at += n;
                        continue;
                    }
                    let start = self.at;
                    let mut end = start + 1;
                    while end < bytes.len()
                        && !TOKEN_END[bytes[end] as usize]
                        && unicode_blank(&bytes[end..]).is_none()
                    {
                        end += 1;
                    }
                    self.at = end;
                    if end == bytes.len() && !self.complete {
                        // Cut by the replay budget: not judged.
                        self.done = true;
                        self.cut = true;
                        return None;
                    }
                    let word = &bytes[start..end];
                    // A result ends the main line, also glued to what follows
                    // (`1/2-1/2[Event`, as pgn-reader reads it). Only a token
                    // that starts with 0, 1 or `½` can be one.
                    if matches!(b, b'0' | b'1' | 0xc2)
                        && leading_result(word).is_some_and(|n| ends_main_line(word, n))
                    {
                        self.done = true;
                        return None;
                    }
                    // A result glued to the move before it (`Qxf7#1-0`):
                    // the move, then the main line ends.
                    let (word, end) = match glued_result(word) {
                        Some(n) => {
                            self.done = true;
                            (&word[..word.len() - n], end - n)
                        }
                        None => (word, end),
                    };
                    match classify_word(word) {
                        // (After a glued result: the main line ends.)
                        Word::Skip if self.done => return None,
                        Word::Skip => continue,
                        Word::Move(from) => {
                            // `e.p.` after an en passant capture: a remark,
                            // also glued to it (`exf6e.p.`).
                            if bytes[end..].starts_with(b".p.") {
                                let text = &word[from..];
                                if text == b"e" {
                                    self.at = end + 3;
                                    continue;
                                }
                                if let [.., rank, b'e'] = text
                                    && (b'1'..=b'8').contains(rank)
                                {
                                    self.at = end + 3;
                                    return Some(start + from..end - 1);
                                }
                            }
                            return Some(start + from..end);
                        }
                    }
                }
            }
        }
        if !self.complete {
            self.cut = true;
        }
        self.done = true;
        None
    }
}

#[cfg(test)]
mod tests;
