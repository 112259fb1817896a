//! The strict FEN tokenizer and parser. Every fault becomes a
//! [`Problem`] whose span points at the offending bytes. Parsing stops at the
//! first syntax fault; warnings (spacing, missing clocks, leading zeros,
//! fullmove 0) are collected on the way.

use std::ops::Range;

use super::BoardSize;
use super::board::{Board, Color, Piece, Square};
use crate::problem::{Code, Problem};

/// The `s` (symmetric) or `m` (modern) castling prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prefix {
    /// `s`: the same rights for both sides.
    Symmetric,
    /// `m`: modern castling notation.
    Modern,
}

impl Prefix {
    /// The prefix as written.
    pub fn char(self) -> char {
        match self {
            Prefix::Symmetric => 's',
            Prefix::Modern => 'm',
        }
    }
}

/// A syntactically valid FEN record, not yet judged.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The placement field.
    pub placement: Range<usize>,
    /// The pieces as placed.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// A castling prefix, if any.
    pub prefix: Option<Prefix>,
    /// The castling letters (after any prefix); empty for `-`.
    pub castling: Range<usize>,
    /// The en passant square, if one is given.
    pub ep: Option<Square>,
    /// Where the en passant field lies in the record.
    pub ep_span: Range<usize>,
    /// The halfmove clock (0 when absent).
    pub halfmove: u32,
    /// The fullmove number (1 when absent).
    pub fullmove: u32,
}

fn syntax(span: Range<usize>, message: impl Into<String>) -> Problem {
    Problem::new(Code::FenSyntax, span, message)
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Parses `fen`. On a syntax fault the problem is pushed and the board size is
/// returned when the placement itself was readable.
pub fn parse(fen: &[u8], problems: &mut Vec<Problem>) -> Result<Parsed, Option<BoardSize>> {
    if let Some(pos) = fen.iter().position(|&b| !(0x20..0x7f).contains(&b)) {
        problems.push(bad_byte(fen, pos));
        return Err(None);
    }

    // Fields, separated by single spaces.
    let mut fields: [Range<usize>; 6] = Default::default();
    let mut count = 0usize;
    let mut field_bytes = 0usize;
    let mut extra: Option<Range<usize>> = None;
    let mut i = 0;
    while i < fen.len() {
        if fen[i] == b' ' {
            i += 1;
            continue;
        }
        let start = i;
        while i < fen.len() && fen[i] != b' ' {
            i += 1;
        }
        field_bytes += i - start;
        if let Some(slot) = fields.get_mut(count) {
            *slot = start..i;
        } else if extra.is_none() {
            extra = Some(start..i);
        }
        count += 1;
    }
    // Regular spacing: the fields and one space between each two fill the string.
    let irregular = field_bytes + count.saturating_sub(1) != fen.len();
    if irregular && let Some(p) = spacing(fen) {
        problems.push(p);
    }
    let end = fen.len();
    match count {
        4 | 6 => {}
        0 => {
            problems.push(syntax(
                0..end,
                "empty FEN; expected 6 fields (placement, side to move, castling, en passant, halfmove clock, fullmove number)",
            ));
            return Err(None);
        }
        5 => {
            problems.push(
                syntax(
                    end..end,
                    "the fullmove number is missing after the halfmove clock; expected 6 fields (or 4 without both clocks)",
                )
                .with_help("append the fullmove number, e.g. ' 1'"),
            );
            return Err(None);
        }
        n if n > 6 => {
            let span = extra.unwrap_or(end..end);
            let extra_text = show(&fen[span.start..span.end]);
            problems.push(
                syntax(
                    span.start..end,
                    format!("found {n} fields, expected 6; '{extra_text}' is one too many"),
                )
                .with_help("remove the text after the fullmove number"),
            );
            return Err(None);
        }
        n => {
            problems.push(syntax(
                end..end,
                format!(
                    "found {n} field{}, expected 6 (placement, side to move, castling, en passant, halfmove clock, fullmove number)",
                    if n == 1 { "" } else { "s" }
                ),
            ));
            return Err(None);
        }
    }

    let board = placement8(&fen[fields[0].clone()])
        .map_or_else(|| placement(fen, fields[0].clone()), Ok)
        .map_err(|p| {
            problems.push(p);
            None
        })?;
    let size = Some(board.size());
    let fail = |problems: &mut Vec<Problem>, p: Problem| {
        problems.push(p);
        size
    };

    let side = &fen[fields[1].clone()];
    let turn = match side {
        b"w" => Color::White,
        b"b" => Color::Black,
        _ => {
            return Err(fail(
                problems,
                syntax(
                    fields[1].clone(),
                    format!(
                        "'{}' is not a side to move; expected 'w' or 'b'",
                        show(side)
                    ),
                )
                .with_help(match side {
                    b"W" => "write 'w' (lower case) for white to move",
                    b"B" => "write 'b' (lower case) for black to move",
                    _ => "write 'w' for white to move or 'b' for black to move",
                }),
            ));
        }
    };

    let (prefix, castling) =
        castling_field(fen, fields[2].clone(), board.files()).map_err(|p| fail(problems, p))?;

    let ep = en_passant(fen, fields[3].clone(), board.files()).map_err(|p| fail(problems, p))?;

    let (halfmove, fullmove) = if count == 6 {
        let h = clock(fen, fields[4].clone(), "halfmove clock", problems).ok_or(size)?;
        let f = clock(fen, fields[5].clone(), "fullmove number", problems).ok_or(size)?;
        let f = if f == 0 {
            problems.push(
                Problem::new(
                    Code::Noncanonical,
                    fields[5].clone(),
                    "fullmove number 0; the fullmove number starts at 1",
                )
                .with_help("write 1"),
            );
            1
        } else {
            f
        };
        (h, f)
    } else {
        problems.push(
            Problem::new(
                Code::MissingClocks,
                end..end,
                "the halfmove clock and fullmove number are missing; read as '0 1'",
            )
            .with_help("append ' 0 1'"),
        );
        (0, 1)
    };

    Ok(Parsed {
        placement: fields[0].clone(),
        board,
        turn,
        prefix,
        castling,
        ep,
        ep_span: fields[3].clone(),
        halfmove,
        fullmove,
    })
}

fn bad_byte(fen: &[u8], pos: usize) -> Problem {
    let b = fen[pos];
    if b == b'\t' {
        return syntax(
            pos..pos + 1,
            "a tab is not a field separator; fields are separated by one space",
        )
        .with_help("replace the tab with a space");
    }
    if b >= 0x80 {
        return match std::str::from_utf8(&fen[pos..]) {
            Ok(s) => {
                let ch = s.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
                syntax(
                    pos..pos + ch.len_utf8(),
                    format!("'{ch}' is not allowed in a FEN; only printable ASCII is"),
                )
            }
            Err(e) => {
                let bad = e.error_len().unwrap_or(1);
                let start = pos + e.valid_up_to();
                syntax(
                    start..start + bad,
                    "the FEN is not valid UTF-8; only printable ASCII is allowed",
                )
            }
        };
    }
    syntax(
        pos..pos + 1,
        format!("byte 0x{b:02x} is not a printable character; only printable ASCII is allowed"),
    )
}

/// The first spacing fault: leading, trailing or repeated spaces.
fn spacing(fen: &[u8]) -> Option<Problem> {
    let nc = |span: Range<usize>, msg: &str| {
        Problem::new(Code::Noncanonical, span, msg)
            .with_help("separate the fields by exactly one space")
    };
    if fen.first() == Some(&b' ') {
        let n = fen.iter().take_while(|&&b| b == b' ').count();
        return Some(nc(0..n, "leading space before the placement"));
    }
    if let Some(i) = fen.windows(2).position(|w| w == b"  ") {
        let n = fen[i..].iter().take_while(|&&b| b == b' ').count();
        if i + n < fen.len() {
            return Some(nc(i..i + n, "fields are separated by more than one space"));
        }
    }
    if fen.last() == Some(&b' ') {
        let n = fen.iter().rev().take_while(|&&b| b == b' ').count();
        return Some(nc(
            fen.len() - n..fen.len(),
            "trailing space after the last field",
        ));
    }
    None
}

/// Reads the placement field.
/// Piece letters of 8×8 boards: `0x80 | colour << 3 | role`, 0 for any other byte.
const PIECE_CODES: [u8; 256] = {
    let mut t = [0u8; 256];
    let letters = *b"PNBRQK";
    let mut role = 0;
    while role < letters.len() {
        t[letters[role] as usize] = 0x80 | role as u8;
        t[letters[role].to_ascii_lowercase() as usize] = 0x80 | 1 << 3 | role as u8;
        role += 1;
    }
    t
};

/// The common case of [`placement`]: 8 ranks of 8 squares, piece letters
/// `PNBRQKpnbrqk` and single digits 1–8, read straight into 64-bit boards.
/// `None` for anything else (10 files, a fault of any kind), which the general
/// reader then reads and reports: this only skips work, it never decides.
fn placement8(field: &[u8]) -> Option<Board> {
    let mut by_color = [0u64; 2];
    let mut by_role = [0u64; 6];
    let mut rank = 7u32;
    let mut file = 0u32;
    let mut after_digit = false;
    for &b in field {
        match b {
            b'/' => {
                if file != 8 || rank == 0 {
                    return None;
                }
                rank -= 1;
                file = 0;
                after_digit = false;
            }
            b'1'..=b'8' => {
                file += u32::from(b - b'0');
                if after_digit || file > 8 {
                    return None;
                }
                after_digit = true;
            }
            _ => {
                let code = PIECE_CODES[usize::from(b)];
                if code == 0 || file >= 8 {
                    return None;
                }
                let bit = 1u64 << (rank * 8 + file);
                by_color[usize::from(code >> 3 & 1)] |= bit;
                by_role[usize::from(code & 7)] |= bit;
                file += 1;
                after_digit = false;
            }
        }
    }
    (rank == 0 && file == 8).then(|| Board::from_8x8(by_color, by_role))
}

fn placement(fen: &[u8], range: Range<usize>) -> Result<Board, Problem> {
    // The width is fixed by the first rank; a quick look at it sizes the board
    // (a first rank of another width is reported below).
    let mut first = 0usize;
    let mut j = range.start;
    while j < range.end && fen[j] != b'/' {
        first += match fen[j] {
            b'1' if fen.get(j + 1) == Some(&b'0') && j + 1 < range.end => {
                j += 1;
                10
            }
            b @ b'1'..=b'9' => usize::from(b - b'0'),
            _ => 1,
        };
        j += 1;
    }
    let mut board = Board::empty(if first == 8 {
        BoardSize::Eight
    } else {
        BoardSize::Ten
    });
    let mut width: Option<u8> = None;
    let mut first_wide_piece: Option<usize> = None;
    let mut rank_index = 0usize; // 0 = the 8th rank
    let mut i = range.start;
    loop {
        // One rank.
        let rank_start = i;
        let mut squares = 0usize;
        while i < range.end && fen[i] != b'/' {
            let b = fen[i];
            match b {
                b'1'..=b'9' => {
                    let next = fen.get(i + 1).copied().filter(|_| i + 1 < range.end);
                    if b == b'1' && next == Some(b'0') {
                        squares += 10;
                        i += 2;
                        continue;
                    }
                    if let Some(n @ b'0'..=b'9') = next {
                        return Err(syntax(
                            i..i + 2,
                            format!(
                                "two digits in a row ('{}{}'); a run of empty squares is one digit (or 10 on 10 files)",
                                char::from(b),
                                char::from(n)
                            ),
                        ));
                    }
                    squares += usize::from(b - b'0');
                }
                b'0' => {
                    return Err(syntax(
                        i..i + 1,
                        "'0' is not a number of empty squares; expected 1–9 (or 10 on 10 files)",
                    ));
                }
                _ => {
                    let wide = width != Some(8);
                    let Some(piece) = Piece::from_fen(b, wide) else {
                        let expected = if width == Some(8) {
                            "PNBRQK"
                        } else {
                            "PNBRQK (AC on 10 files)"
                        };
                        let mut p = syntax(
                            i..i + 1,
                            format!(
                                "'{}' is not a piece; expected one of {expected} or a digit",
                                char::from(b)
                            ),
                        );
                        if matches!(b, b'A' | b'C' | b'a' | b'c') {
                            p = p.with_help("the archbishop (A) and chancellor (C) exist only on 10-file boards");
                        } else {
                            p = p.with_help("write white pieces in upper case (PNBRQK), black ones in lower case (pnbrqk), and a digit for a run of empty squares");
                        }
                        return Err(p);
                    };
                    if matches!(b.to_ascii_uppercase(), b'A' | b'C') && first_wide_piece.is_none() {
                        first_wide_piece = Some(i);
                    }
                    let files = usize::from(board.files());
                    if squares < files && rank_index < 8 {
                        board.put_new(((7 - rank_index) * files + squares) as u32, piece);
                    }
                    squares += 1;
                }
            }
            i += 1;
        }
        let rank_no = 8 - rank_index as isize;
        if rank_index >= 8 {
            return Err(syntax(
                rank_start.saturating_sub(1)..range.end,
                "the placement has more than 8 ranks; expected 8 ranks separated by '/'",
            ));
        }
        match width {
            None => {
                if squares == 8 || squares == 10 {
                    width = Some(squares as u8);
                    if squares == 8
                        && let Some(pos) = first_wide_piece
                    {
                        return Err(syntax(
                            pos..pos + 1,
                            format!(
                                "'{}' is not a piece on 8 files; expected one of PNBRQK or a digit",
                                char::from(fen[pos])
                            ),
                        )
                        .with_help(
                            "the archbishop (A) and chancellor (C) exist only on 10-file boards",
                        ));
                    }
                } else {
                    return Err(syntax(
                        rank_start..i,
                        format!("rank {rank_no} has {squares} squares, expected 8 or 10"),
                    ));
                }
            }
            Some(w) => {
                if squares != usize::from(w) {
                    return Err(syntax(
                        rank_start..i,
                        format!("rank {rank_no} has {squares} squares, expected {w}"),
                    ));
                }
            }
        }
        rank_index += 1;
        if i >= range.end {
            break;
        }
        i += 1; // the '/'
    }
    if rank_index != 8 {
        return Err(syntax(
            range.end..range.end,
            format!("the placement has {rank_index} ranks, expected 8 ranks separated by '/'"),
        ));
    }
    Ok(board)
}

fn castling_field(
    fen: &[u8],
    range: Range<usize>,
    files: u8,
) -> Result<(Option<Prefix>, Range<usize>), Problem> {
    let field = &fen[range.clone()];
    if field == b"-" {
        return Ok((None, range.end..range.end));
    }
    // Built only for a fault: most FENs have castling letters, and this message
    // would otherwise be formatted (and allocated) for each of them.
    let expected = || {
        let last = char::from(b'A' + files - 1);
        format!(
            "expected '-' or castling letters: K, Q, k, q or a rook's file A–{last} (a–{} for black), optionally after an 's' or 'm' prefix",
            last.to_ascii_lowercase()
        )
    };
    let (prefix, start) = match field.first() {
        Some(b's') => (Some(Prefix::Symmetric), range.start + 1),
        Some(b'm') => (Some(Prefix::Modern), range.start + 1),
        _ => (None, range.start),
    };
    if start == range.end {
        return Err(syntax(
            range.clone(),
            format!(
                "the castling prefix '{}' needs castling letters after it",
                show(field)
            ),
        ));
    }
    for (i, &b) in fen.iter().enumerate().take(range.end).skip(start) {
        let ok = matches!(b, b'K' | b'Q' | b'k' | b'q')
            || (b'A'..b'A' + files).contains(&b)
            || (b'a'..b'a' + files).contains(&b);
        if !ok {
            return Err(syntax(
                i..i + 1,
                format!(
                    "'{}' is not a castling letter; {}",
                    char::from(b),
                    expected()
                ),
            ));
        }
    }
    Ok((prefix, start..range.end))
}

fn en_passant(fen: &[u8], range: Range<usize>, files: u8) -> Result<Option<Square>, Problem> {
    let field = &fen[range.clone()];
    if field == b"-" {
        return Ok(None);
    }
    if let [f, r] = *field
        && (b'a'..b'a' + files).contains(&f)
        && (b'1'..=b'8').contains(&r)
    {
        return Ok(Some(Square::new(f - b'a', r - b'1')));
    }
    let last = char::from(b'a' + files - 1);
    Err(syntax(
        range,
        format!(
            "'{}' is not an en passant square; expected '-' or a square a1–{last}8",
            show(field)
        ),
    )
    .with_help(if field.iter().any(u8::is_ascii_uppercase) {
        "write the square in lower case, e.g. 'e3'"
    } else {
        "write '-' if no pawn just moved two squares"
    }))
}

fn clock(fen: &[u8], range: Range<usize>, what: &str, problems: &mut Vec<Problem>) -> Option<u32> {
    let field = &fen[range.clone()];
    if !field.iter().all(u8::is_ascii_digit) {
        problems.push(syntax(
            range,
            format!("'{}' is not a {what}; expected a whole number", show(field)),
        ));
        return None;
    }
    let digits = field.iter().skip_while(|&&b| b == b'0').count();
    let mut value: u32 = 0;
    for &b in field {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u32::from(b - b'0')))
        {
            Some(v) => value = v,
            None => {
                problems.push(syntax(
                    range,
                    format!("{what} '{}' is too large", show(field)),
                ));
                return None;
            }
        }
    }
    if field.len() > 1 && field[0] == b'0' {
        let canonical = if digits == 0 {
            "0".to_owned()
        } else {
            value.to_string()
        };
        problems.push(
            Problem::new(
                Code::Noncanonical,
                range,
                format!("{what} '{}' has leading zeros", show(field)),
            )
            .with_help(format!("write '{canonical}'")),
        );
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(fen: &str) -> (Code, usize) {
        let mut problems = Vec::new();
        let r = parse(fen.as_bytes(), &mut problems);
        assert!(r.is_err(), "{fen} parsed");
        let p = problems
            .iter()
            .find(|p| p.code == Code::FenSyntax)
            .expect("a syntax problem");
        (p.code, p.column())
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn faults_point_at_their_column() {
        use Code::FenSyntax as S;
        assert_eq!(fault(""), (S, 1));
        assert_eq!(fault(&format!("{START} w KQkq - 0")), (S, 55));
        assert_eq!(fault(&format!("{START} w KQkq - 0 1 x")), (S, 58));
        assert_eq!(fault(&format!("{START} w")), (S, 46));
        assert_eq!(
            fault("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 14)
        );
        assert_eq!(
            fault("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 10)
        );
        assert_eq!(
            fault("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 19)
        );
        assert_eq!(
            fault("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 19)
        );
        assert_eq!(
            fault("rnbqkbnr/pppppppp/0/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 19)
        );
        assert_eq!(
            fault("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1"),
            (S, 35)
        );
        assert_eq!(
            fault("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w - - 0 1"),
            (S, 44)
        );
        assert_eq!(
            fault("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w - - 0 1"),
            (S, 36)
        );
        assert_eq!(
            fault("rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 4)
        );
        assert_eq!(
            fault("rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            (S, 1)
        );
        assert_eq!(fault(&format!("{START} W KQkq - 0 1")), (S, 45));
        assert_eq!(fault(&format!("{START} w KQkqZ - 0 1")), (S, 51));
        assert_eq!(fault(&format!("{START} w KQ- - 0 1")), (S, 49));
        assert_eq!(fault(&format!("{START} w s - 0 1")), (S, 47));
        assert_eq!(fault(&format!("{START} w KI - 0 1")), (S, 48));
        assert_eq!(fault(&format!("{START} w KQkq e9 0 1")), (S, 52));
        assert_eq!(fault(&format!("{START} w KQkq E3 0 1")), (S, 52));
        assert_eq!(fault(&format!("{START} w KQkq - -1 1")), (S, 54));
        assert_eq!(fault(&format!("{START} w KQkq - 0 one")), (S, 56));
        assert_eq!(fault(&format!("{START} w KQkq - 99999999999 1")), (S, 54));
        assert_eq!(fault(&format!("{START}\tw KQkq - 0 1")), (S, 44));
        assert_eq!(fault(&format!("{START} w KQkq - 0 1\0")), (S, 57));
        assert_eq!(fault(&format!("{START} w KQkq - 0 ¹")), (S, 56));
        let mut bytes = format!("{START} w KQkq - 0 1").into_bytes();
        bytes[3] = 0xff;
        let mut problems = Vec::new();
        assert!(parse(&bytes, &mut problems).is_err());
        assert_eq!(problems[0].column(), 4);
    }

    #[test]
    fn ten_files() {
        let mut problems = Vec::new();
        let p = parse(
            b"rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
            &mut problems,
        )
        .expect("parses");
        assert_eq!(p.board.size(), BoardSize::Ten);
        assert!(problems.is_empty());
        assert_eq!(
            fault("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq k3 0 1"),
            (Code::FenSyntax, 64)
        );
    }

    #[test]
    fn warnings() {
        let codes = |fen: &str| {
            let mut problems = Vec::new();
            assert!(parse(fen.as_bytes(), &mut problems).is_ok(), "{fen}");
            problems
                .iter()
                .map(|p| (p.code, p.column()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            codes(&format!("{START} w KQkq -")),
            [(Code::MissingClocks, 53)]
        );
        assert_eq!(
            codes(&format!("{START} w KQkq - 0 0")),
            [(Code::Noncanonical, 56)]
        );
        assert_eq!(
            codes(&format!("{START} w KQkq - 00 1")),
            [(Code::Noncanonical, 54)]
        );
        assert_eq!(
            codes(&format!(" {START} w KQkq - 0 1")),
            [(Code::Noncanonical, 1)]
        );
        assert_eq!(
            codes(&format!("{START}  w KQkq - 0 1")),
            [(Code::Noncanonical, 44)]
        );
        assert_eq!(
            codes(&format!("{START} w KQkq - 0 1 ")),
            [(Code::Noncanonical, 57)]
        );
    }
}
