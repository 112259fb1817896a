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
    /// Which fields are already as the writers write them ([`Verbatim`]).
    pub verbatim: Verbatim,
}

/// The fields of a record that are written exactly as the writers write
/// them: a placement that one of the fast readers took (they take only the
/// shortest form: single digits, `10` only for ten empty squares), and both
/// clocks as plain numbers without leading zeros, one space apart. Nearly
/// every FEN of an archive is so; a writer copies these fields rather than
/// writing them again (`convert`: the placement and the clocks were more than
/// half of the time spent writing a FEN). Four bytes, since every analysis
/// (and every memoised one) holds it: records of 256 bytes or more have
/// none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verbatim {
    /// The record's length (a record of another length is not the one
    /// these fields lie in).
    len: u8,
    /// The end of the placement field, which starts the record; 0: none.
    placement_end: u8,
    /// Where the two clocks lie; `clocks_end` 0: none.
    clocks_start: u8,
    clocks_end: u8,
}

impl Verbatim {
    /// The placement field, when written as the writers write it.
    pub fn placement(&self) -> Option<Range<usize>> {
        (self.placement_end > 0).then(|| 0..usize::from(self.placement_end))
    }

    /// The two clocks and the space between them, when so written.
    pub fn clocks(&self) -> Option<Range<usize>> {
        (self.clocks_end > 0).then(|| usize::from(self.clocks_start)..usize::from(self.clocks_end))
    }

    /// Whether `len` is the length of the record these fields lie in.
    pub fn fits(&self, len: usize) -> bool {
        usize::from(self.len) == len
    }

    fn new(len: usize) -> Verbatim {
        Verbatim {
            len: u8::try_from(len).unwrap_or(0),
            ..Verbatim::default()
        }
    }

    fn set_placement(&mut self, range: Range<usize>) {
        if self.len > 0 && range.start == 0 {
            self.placement_end = range.end as u8;
        }
    }

    fn set_clocks(&mut self, range: Range<usize>) {
        if self.len > 0 {
            self.clocks_start = range.start as u8;
            self.clocks_end = range.end as u8;
        }
    }
}

fn syntax(span: Range<usize>, message: impl Into<String>) -> Problem {
    Problem::new(Code::FenSyntax, span, message)
}

/// A field quoted in a message: bounded, as every quoted value is
/// ([`crate::classify::shown_value`]: 200 bytes, then `…`), so that a
/// 10,000-character castling field does not make a 10,000-character message.
fn show(bytes: &[u8]) -> String {
    crate::classify::shown_value(bytes)
}

/// Parses `fen`. On a syntax fault the problem is pushed and the board size is
/// returned when the placement itself was readable.
pub fn parse(fen: &[u8], problems: &mut Vec<Problem>) -> Result<Parsed, Option<BoardSize>> {
    // A record of at most 96 bytes (nearly every FEN) is read a vector at
    // a time: where its spaces are, and whether any byte is not printable
    // ASCII. A longer one: one pass over every byte (no early exit, so it
    // vectorises) and a search from each space to the next.
    let short = short_record(fen);
    let bad = match short {
        Some((_, bad)) => bad,
        None => fen
            .iter()
            .fold(false, |bad, &b| bad | !(0x20..0x7f).contains(&b)),
    };
    if bad {
        // The position of a bad byte only when there is one.
        let pos = fen.iter().position(|&b| !(0x20..0x7f).contains(&b));
        problems.push(bad_byte(fen, pos.unwrap_or(0)));
        return Err(None);
    }

    // Fields, separated by single spaces.
    let mut fields: [Range<usize>; 6] = Default::default();
    let mut count = 0usize;
    let mut spaces = 0usize;
    let mut extra: Option<Range<usize>> = None;
    // The fields lie between the spaces and the ends.
    let mut start = 0;
    let mut field_ends_at = |end: usize| {
        if end > start {
            if let Some(slot) = fields.get_mut(count) {
                *slot = start..end;
            } else if extra.is_none() {
                extra = Some(start..end);
            }
            count += 1;
        }
        spaces += usize::from(end < fen.len());
        start = end + 1;
    };
    match short {
        Some((mut mask, _)) => {
            while mask != 0 {
                field_ends_at(mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
        }
        None => memchr::memchr_iter(b' ', fen).for_each(&mut field_ends_at),
    }
    field_ends_at(fen.len());
    // Regular spacing: one space between each two fields and no other.
    if spaces != count.saturating_sub(1)
        && let Some(p) = spacing(fen)
    {
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

    let field = &fen[fields[0].clone()];
    let fast = start_array(field)
        .or_else(|| placement8(field))
        .or_else(|| placement10(field));
    let mut verbatim = Verbatim::new(fen.len());
    if fast.is_some() {
        verbatim.set_placement(fields[0].clone());
    }
    let board = fast
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
        let plain_h = plain_clock(&fen[fields[4].clone()]);
        let plain_f = plain_clock(&fen[fields[5].clone()]);
        if plain_h.is_some()
            && plain_f.is_some_and(|f| f > 0)
            && fields[5].start == fields[4].end + 1
        {
            verbatim.set_clocks(fields[4].start..fields[5].end);
        }
        let h = plain_h
            .or_else(|| clock_general(fen, fields[4].clone(), "halfmove clock", problems))
            .ok_or(size)?;
        let f = plain_f
            .or_else(|| clock_general(fen, fields[5].clone(), "fullmove number", problems))
            .ok_or(size)?;
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
        verbatim,
    })
}

/// For a record of at most [`SHORT`] bytes: a mask of its spaces (bit `i`
/// for byte `i`), and whether a byte of it lies outside printable ASCII
/// (`0x20..0x7f`). `None` for a longer record.
fn short_record(fen: &[u8]) -> Option<(u128, bool)> {
    if fen.len() > SHORT {
        return None;
    }
    // Padded with a printable byte that is no space.
    let mut bytes = [b'x'; SHORT];
    bytes[..fen.len()].copy_from_slice(fen);
    #[cfg(target_arch = "x86_64")]
    {
        Some(short_record_sse2(&bytes))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Some(short_record_scalar(&bytes))
    }
}

/// [`short_record`] a byte at a time, which the SSE2 one must agree with (tested).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn short_record_scalar(bytes: &[u8; SHORT]) -> (u128, bool) {
    let spaces = bytes
        .iter()
        .enumerate()
        .fold(0u128, |m, (i, &b)| m | u128::from(b == b' ') << i);
    (spaces, bytes.iter().any(|b| !(0x20..0x7f).contains(b)))
}

/// [`short_record`] with SSE2: 6 vectors of 16 bytes.
#[cfg(target_arch = "x86_64")]
fn short_record_sse2(bytes: &[u8; SHORT]) -> (u128, bool) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of x86-64; the six loads read 16 bytes each of a
    // 96-byte array, at offsets 0, 16, …, 80.
    unsafe {
        let v: [__m128i; SHORT / 16] =
            std::array::from_fn(|i| _mm_loadu_si128(bytes.as_ptr().add(16 * i).cast()));
        let space = _mm_set1_epi8(b' ' as i8);
        let low = _mm_set1_epi8(0x20);
        let del = _mm_set1_epi8(0x7f);
        let mut spaces = 0u128;
        let mut bad = 0i32;
        for (i, &x) in v.iter().enumerate() {
            spaces |= u128::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, space)) as u16) << (16 * i);
            // Signed: bytes from 0x80 up are negative, so below 0x20 too.
            let outside = _mm_or_si128(_mm_cmplt_epi8(x, low), _mm_cmpeq_epi8(x, del));
            bad |= _mm_movemask_epi8(outside);
        }
        (spaces, bad != 0)
    }
}

/// The longest record [`short_record`] reads (a FEN of a full 10×8 board
/// with long clocks is about 80 bytes).
const SHORT: usize = 96;

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

/// The message of spaces repeated between two fields.
pub(crate) const REPEATED_SPACES: &str = "fields are separated by more than one space";

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
            return Some(nc(i..i + n, REPEATED_SPACES));
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

/// What each byte of a placement is, for the fast readers [`placement8`] and
/// [`placement10`]: the squares it covers (4 bits from `ADVANCE`), what it is
/// (`PIECE`, `DIGIT`, `ZERO`, `SLASH`) and for a piece its board (`colour << 3
/// | role`, the low 4 bits); 0 for any byte the placement cannot hold.
const fn placement_table(letters: &[u8], max_digit: u8) -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut role = 0;
    while role < letters.len() {
        let piece = PIECE | 1 << ADVANCE | role as u16;
        t[letters[role] as usize] = piece;
        t[letters[role].to_ascii_lowercase() as usize] = piece | 1 << 3;
        role += 1;
    }
    let mut n = 1;
    while n <= max_digit {
        t[(b'0' + n) as usize] = DIGIT | (n as u16) << ADVANCE;
        n += 1;
    }
    t[b'/' as usize] = SLASH;
    t
}
const ADVANCE: u32 = 4;
const PIECE: u16 = 1 << 8;
const DIGIT: u16 = 1 << 9;
const SLASH: u16 = 1 << 10;
/// The `0` of `10` (ten empty squares on 10 files): nine more squares after its `1`.
const ZERO: u16 = 1 << 11;

const PLACEMENT8: [u16; 256] = placement_table(b"PNBRQK", 8);
const PLACEMENT10: [u16; 256] = {
    let mut t = placement_table(b"PNBRQKAC", 9);
    t[b'0' as usize] = ZERO | 9 << ADVANCE;
    t
};

/// The placement of a start array: a back rank of pieces on each side of
/// full pawn ranks and empty middle ranks, as every Chess960 game (and each
/// Capablanca-family start) begins, 8 or 10 files wide. Only the two back
/// ranks are read byte by byte; the rest is one comparison. `None` for any
/// other placement, which the other readers then read: this only skips
/// work, it never decides (tested against them).
fn start_array(field: &[u8]) -> Option<Board> {
    const MIDDLE8: &[u8] = b"/pppppppp/8/8/8/8/PPPPPPPP/";
    const MIDDLE10: &[u8] = b"/pppppppppp/10/10/10/10/PPPPPPPPPP/";
    // Each back-rank byte a piece letter of the width's set.
    let pieces = |rank: &[u8], table: &[u16; 256]| {
        rank.iter()
            .fold(PIECE, |all, &b| all & table[usize::from(b)])
            != 0
    };
    match field.len() {
        43 => {
            let (black, rest) = field.split_at(8);
            let (middle, white) = rest.split_at(MIDDLE8.len());
            if middle != MIDDLE8 || !pieces(black, &PLACEMENT8) || !pieces(white, &PLACEMENT8) {
                return None;
            }
            // FEN order, as `placement8` fills it.
            let mut squares = [0u8; 64];
            squares[..8].copy_from_slice(black);
            squares[8..16].fill(b'p');
            squares[48..56].fill(b'P');
            squares[56..].copy_from_slice(white);
            let (by_color, by_role) = boards8(&squares);
            Some(Board::from_8x8(by_color, by_role))
        }
        55 => {
            let (black, rest) = field.split_at(10);
            let (middle, white) = rest.split_at(MIDDLE10.len());
            if middle != MIDDLE10 || !pieces(black, &PLACEMENT10) || !pieces(white, &PLACEMENT10) {
                return None;
            }
            // Board order, as `placement10` fills it.
            let mut squares = [0u8; 80];
            squares[..10].copy_from_slice(white);
            squares[10..20].fill(b'P');
            squares[60..70].fill(b'p');
            squares[70..].copy_from_slice(black);
            let (by_color, by_role) = boards10(&squares);
            Some(Board::from_10x8(by_color, by_role))
        }
        _ => None,
    }
}

/// The common case of [`placement`]: 8 ranks of 8 squares, piece letters
/// `PNBRQKpnbrqk` and single digits 1–8, read straight into 64-bit boards.
/// `None` for anything else (10 files, a fault of any kind), which the general
/// reader then reads and reports: this only skips work, it never decides.
///
/// No branch depends on the bytes (a placement mixes letters, digits and
/// slashes in no order a branch predictor could learn): every byte is stored
/// at the square it starts, advances the square count and notes a fault. The
/// boards are then read off those 64 bytes at once ([`boards8`]), instead of
/// a read-modify-write of a board per piece, whose chains (a rank of pawns
/// hits the same board eight times) cost more than the rest of the loop.
fn placement8(field: &[u8]) -> Option<Board> {
    // The byte that starts each square, in FEN order (a8 = 0, h8 = 7, a7 = 8,
    // …, h1 = 63): a piece letter, the digit of a run (the run's other
    // squares stay 0), a slash (overwritten by the next rank's first byte).
    let mut squares = [0u8; 64];
    // Squares read so far. A rank that runs past its eighth square needs no
    // test of its own: the count only grows, so the slash that ends it (or,
    // for the last rank, the total) cannot match.
    let mut n = 0u32;
    // Where the current rank ends.
    let mut rank_end = 8u32;
    let mut after_digit = 0u32;
    let mut bad = 0u32;
    // In blocks of 8 bytes, so that a 10-file placement (whose first rank
    // is too long) is given up early, by a branch that is predictable.
    for block in field.chunks(8) {
        for &b in block {
            let e = u32::from(PLACEMENT8[usize::from(b)]);
            let digit = e >> 9 & 1;
            let slash = e >> 10 & 1;
            bad |= u32::from(e == 0);
            // A slash ends a full rank; two digits in a row are not canonical.
            bad |= slash & u32::from(n != rank_end);
            bad |= digit & after_digit;
            rank_end += slash << 3;
            after_digit = digit;
            squares[(n & 63) as usize] = b;
            n += e >> ADVANCE & 15;
        }
        if bad != 0 {
            return None;
        }
    }
    if n != 64 || rank_end != 64 {
        return None;
    }
    let (by_color, by_role) = boards8(&squares);
    Some(Board::from_8x8(by_color, by_role))
}

/// The boards of the squares [`placement8`] filled (FEN order; piece letters,
/// digits, `/` and 0 only): one per colour and one per role, pawn to king.
/// A piece is a byte with bit 0x40 (letters; digits, `/` and 0 have none),
/// White's are the upper-case ones; FEN order is the board's ranks reversed,
/// one byte of a board per rank, so a byte swap turns one into the other.
fn boards8(squares: &[u8; 64]) -> ([u64; 2], [u64; 6]) {
    #[cfg(target_arch = "x86_64")]
    {
        boards8_sse2(squares)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        boards8_scalar(squares)
    }
}

/// [`boards8`] a square at a time: the plain version, which the SSE2 one
/// must agree with (tested).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn boards8_scalar(squares: &[u8; 64]) -> ([u64; 2], [u64; 6]) {
    let mut by_color = [0u64; 2];
    let mut by_role = [0u64; 6];
    for (n, &b) in squares.iter().enumerate() {
        let e = PLACEMENT8[usize::from(b)];
        if e & PIECE != 0 {
            let bit = 1u64 << (n ^ 56);
            by_color[usize::from(e >> 3 & 1)] |= bit;
            by_role[usize::from(e & 7)] |= bit;
        }
    }
    (by_color, by_role)
}

/// [`boards8`] with SSE2 (every x86-64 has it): [`letter_masks`] of the 64
/// squares, each board's byte order swapped from FEN order to the board's.
#[cfg(target_arch = "x86_64")]
fn boards8_sse2(squares: &[u8; 64]) -> ([u64; 2], [u64; 6]) {
    let (white, by_role) = letter_masks::<4, 6>(squares, *b"pnbrqk");
    // 64 squares: the masks fit in their low 64 bits.
    let (white, by_role) = (white as u64, by_role.map(|m| m as u64));
    let occupied = by_role.iter().fold(0, |a, b| a | b);
    (
        [
            (white & occupied).swap_bytes(),
            (occupied & !white).swap_bytes(),
        ],
        by_role.map(u64::swap_bytes),
    )
}

/// The squares (`V` vectors of 16 bytes) holding each of the lower-case
/// `letters` in either case, and those holding an upper-case letter: bit `i`
/// for byte `i`. A comparison and a byte mask per letter and vector (SSE2 is
/// part of x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn letter_masks<const V: usize, const R: usize>(
    squares: &[u8],
    letters: [u8; R],
) -> (u128, [u128; R]) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert!(squares.len() >= 16 * V);
    // SAFETY: SSE2 is part of x86-64; the V loads read 16 bytes each, at
    // offsets 0, 16, …, 16 * (V - 1), inside `squares` (asserted).
    unsafe {
        let v: [__m128i; V] =
            std::array::from_fn(|i| _mm_loadu_si128(squares.as_ptr().add(16 * i).cast()));
        // The bytes where `f` of their vector has the top bit set.
        let mask = |f: &dyn Fn(__m128i) -> __m128i| {
            v.iter().enumerate().fold(0u128, |m, (i, &x)| {
                m | u128::from(_mm_movemask_epi8(f(x)) as u16) << (16 * i)
            })
        };
        let lower = _mm_set1_epi8(0x20);
        let by_letter = letters.map(|letter| {
            let want = _mm_set1_epi8(letter as i8);
            mask(&|x| _mm_cmpeq_epi8(_mm_or_si128(x, lower), want))
        });
        let case = _mm_set1_epi8(0x60);
        let upper = _mm_set1_epi8(0x40);
        let white = mask(&|x| _mm_cmpeq_epi8(_mm_and_si128(x, case), upper));
        (white, by_letter)
    }
}

/// [`placement8`] for 10×8 boards (the Capablanca family): 8 ranks of 10
/// squares, `PNBRQKAC` either case, single digits 1–9 and `10`; `None` for
/// anything else, which the general reader then reads and reports.
///
/// As in [`placement8`], each byte is stored at the square it starts and the
/// boards are read off the squares at once ([`boards10`]); here the square
/// is the board's own index (`rank * 10 + file`), since the ranks of 10
/// files cannot be reordered by a byte swap. A 128-bit board per piece,
/// updated byte by byte, took a variable 128-bit shift per byte: about a
/// third more instructions than this loop and its SSE2 reading together.
fn placement10(field: &[u8]) -> Option<Board> {
    // Board order; a slash lands on the next rank's first square and is
    // overwritten by its first byte. Indices of a faulty placement wrap
    // into the spare squares (or anywhere: the result is dropped).
    let mut squares = [0u8; 128];
    // Squares read so far, in FEN order (a8 = 0, j8 = 9, a7 = 10, …). As in
    // [`placement8`], a rank that runs long needs no test of its own: the
    // count only grows, so the slash that ends it (or, for the last rank,
    // the total) cannot match.
    let mut n = 0u32;
    let mut rank_end = 10u32;
    // Board index minus FEN index: `rank * 10 + file` against `(7 - rank)
    // * 10 + file`, 70 on the eighth rank and 20 less on each rank below.
    let mut to_board = 70u32;
    let mut after_one = 0u32;
    let mut after_digit = 0u32;
    let mut bad = 0u32;
    for &b in field {
        let e = u32::from(PLACEMENT10[usize::from(b)]);
        let digit = e >> 9 & 1;
        let slash = e >> 10 & 1;
        let zero = e >> 11 & 1;
        bad |= u32::from(e == 0);
        bad |= slash & u32::from(n != rank_end);
        bad |= digit & after_digit;
        // A `0` only ends the `10` of ten empty squares.
        bad |= zero & (after_one ^ 1);
        rank_end += slash * 10;
        to_board = to_board.wrapping_sub(slash * 20);
        after_one = u32::from(e == u32::from(DIGIT) | 1 << ADVANCE);
        after_digit = digit | zero;
        squares[(n.wrapping_add(to_board) & 127) as usize] = b;
        n += e >> ADVANCE & 15;
    }
    if bad != 0 || n != 80 || rank_end != 80 {
        return None;
    }
    let squares: &[u8; 80] = squares[..80].try_into().expect("80 squares");
    let (by_color, by_role) = boards10(squares);
    Some(Board::from_10x8(by_color, by_role))
}

/// The boards of the squares [`placement10`] filled (board order; piece
/// letters of `PNBRQKAC` either case, digits, `/` and 0 only): one per
/// colour and one per role, in [`Board`]'s role order.
fn boards10(squares: &[u8; 80]) -> ([u128; 2], [u128; 8]) {
    #[cfg(target_arch = "x86_64")]
    {
        boards10_sse2(squares)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        boards10_scalar(squares)
    }
}

/// [`boards10`] a square at a time: the plain version, which the SSE2 one
/// must agree with (tested).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn boards10_scalar(squares: &[u8; 80]) -> ([u128; 2], [u128; 8]) {
    let mut by_color = [0u128; 2];
    let mut by_role = [0u128; 8];
    for (n, &b) in squares.iter().enumerate() {
        let e = PLACEMENT10[usize::from(b)];
        if e & PIECE != 0 {
            let bit = 1u128 << n;
            by_color[usize::from(e >> 3 & 1)] |= bit;
            by_role[usize::from(e & 7)] |= bit;
        }
    }
    (by_color, by_role)
}

/// [`boards10`] with SSE2: [`letter_masks`] of the 80 squares.
#[cfg(target_arch = "x86_64")]
fn boards10_sse2(squares: &[u8; 80]) -> ([u128; 2], [u128; 8]) {
    let (white, by_role) = letter_masks::<5, 8>(squares, *b"pnbrqkac");
    let occupied = by_role.iter().fold(0, |a, b| a | b);
    ([white & occupied, occupied & !white], by_role)
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

/// A clock written the usual way: 1 to 9 digits, without leading zeros
/// (a lone `0` included). `None` for anything else, which [`clock`] then
/// reads and judges: this only skips work, it never decides.
#[inline]
fn plain_clock(field: &[u8]) -> Option<u32> {
    if field.is_empty() || field.len() > 9 || (field[0] == b'0' && field.len() > 1) {
        return None;
    }
    let mut value = 0u32;
    for &b in field {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        // At most 9 digits: below 10^9, no overflow.
        value = value * 10 + u32::from(digit);
    }
    Some(value)
}

/// Any clock field: its value, or the problem with it (also an EPD's
/// `hmvc` and `fmvn` operands).
pub(crate) fn clock_general(
    fen: &[u8],
    range: Range<usize>,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<u32> {
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
    use proptest::prelude::*;

    /// The fast reader agrees with the general one: a board exactly when the
    /// general reader reads an 8×8 board, and the same board.
    fn same_as_general(field: &str) {
        let general = placement(field.as_bytes(), 0..field.len()).ok();
        let of_size = |size| general.filter(|b| b.size() == size);
        if let Some(board) = start_array(field.as_bytes()) {
            assert_eq!(Some(board), general, "{field:?}");
        }
        assert_eq!(
            placement8(field.as_bytes()),
            of_size(BoardSize::Eight),
            "{field:?}"
        );
        assert_eq!(
            placement10(field.as_bytes()),
            of_size(BoardSize::Ten),
            "{field:?}"
        );
    }

    #[test]
    fn placement8_on_faults_of_each_kind() {
        for field in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
            "8/8/8/8/8/8/8/8",
            "8/8/8/8/8/8/8/8/",
            "/8/8/8/8/8/8/8/8",
            "8/8/8/8/8/8/8/8/p",
            "8/8/8/8/8/8/8",
            "8/8/8//8/8/8/8",
            "8/8/8/8/8/8/8/7",
            "8/8/8/8/8/8/8/9",
            "8/8/8/8/8/8/8/44",
            "8/8/8/8/8/8/8/4p4",
            "8/8/8/8/8/8/8/pppppppp1",
            "8/8/8/8/8/8/8/1ppppppp",
            "8/8/8/8/8/8/8/ppppppp",
            "8/8/8/8/8/8/8/7A",
            "8/8/8/8/8/8/8/08",
            "8/8/8/8/8/8/8/7x",
            "rnbqkbnrc/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "",
            "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR",
            "rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR",
            "10/10/10/10/10/10/10/10",
            "10/10/10/10/10/10/10/100",
            "10/10/10/10/10/10/10/0",
            "10/10/10/10/10/10/10/01",
            "10/10/10/10/10/10/10/110",
            "10/10/10/10/10/10/10/101",
            "10/10/10/10/10/10/10/91",
            "10/10/10/10/10/10/10/9a",
            "10/10/10/10/10/10/10/9",
            "10/10/10/10/10/10/10/a9",
            "10/10/10/10/10/10/10/55",
            "10/10/10/10/10/10/10/10/",
            "10/10/10/10/10/10/10/10/k",
            "10/10/10/10/10/10/10",
            "8/10/10/10/10/10/10/10",
            "10/8/10/10/10/10/10/10",
        ] {
            same_as_general(field);
        }
    }

    proptest! {
        #[test]
        fn placement8_agrees_with_the_general_reader(
            ranks in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec!["p", "N", "b", "R", "q", "K", "k", "1", "2", "3", "7", "8", "9", "10", "0", "A", "c", "/", "x"]),
                    0..10,
                ),
                0..10,
            ),
        ) {
            let field = ranks.iter().map(|r| r.concat()).collect::<Vec<_>>().join("/");
            same_as_general(&field);
        }

        /// The SSE2 reading of the squares agrees with the plain one, on
        /// every byte [`placement8`] can leave in a square.
        #[test]
        fn boards8_sse2_agrees_with_the_scalar_one(
            squares in proptest::collection::vec(
                proptest::sample::select(b"PNBRQKpnbrqk12345678/\0".to_vec()),
                64,
            ),
        ) {
            let squares: [u8; 64] = squares.try_into().expect("64 squares");
            #[cfg(target_arch = "x86_64")]
            prop_assert_eq!(boards8_sse2(&squares), boards8_scalar(&squares));
            prop_assert_eq!(boards8(&squares), boards8_scalar(&squares));
        }

        /// The same for 10 files, on every byte [`placement10`] can leave
        /// in a square.
        #[test]
        fn boards10_sse2_agrees_with_the_scalar_one(
            squares in proptest::collection::vec(
                proptest::sample::select(b"PNBRQKACpnbrqkac1234567890/\0".to_vec()),
                80,
            ),
        ) {
            let squares: [u8; 80] = squares.try_into().expect("80 squares");
            #[cfg(target_arch = "x86_64")]
            prop_assert_eq!(boards10_sse2(&squares), boards10_scalar(&squares));
            prop_assert_eq!(boards10(&squares), boards10_scalar(&squares));
        }

        /// The fast clock reader agrees with the general one: whenever it
        /// reads a value, the general reader reads the same value and has
        /// nothing to say about it.
        #[test]
        fn plain_clock_agrees_with_the_general_reader(
            field in proptest::collection::vec(
                proptest::sample::select(b"0123456789-+ x".to_vec()),
                0..12,
            ),
        ) {
            let mut problems = Vec::new();
            let general = clock_general(&field, 0..field.len(), "clock", &mut problems);
            if let Some(value) = plain_clock(&field) {
                prop_assert_eq!(Some(value), general);
                prop_assert!(problems.is_empty());
            }
        }

        /// The SSE2 reading of a short record agrees with the plain one, and
        /// both with the definition: the spaces, and any byte outside
        /// printable ASCII.
        #[test]
        fn short_records_read_alike(
            bytes in proptest::collection::vec(
                proptest::sample::select(b"rnbqkRNBQK12345678/ -wb0\t\x7f\x80\xff\x1f~".to_vec()),
                0..=SHORT,
            ),
        ) {
            let mut padded = [b'x'; SHORT];
            padded[..bytes.len()].copy_from_slice(&bytes);
            #[cfg(target_arch = "x86_64")]
            prop_assert_eq!(short_record_sse2(&padded), short_record_scalar(&padded));
            let (spaces, bad) = short_record_scalar(&padded);
            let want_spaces = bytes
                .iter()
                .enumerate()
                .fold(0u128, |m, (i, &b)| m | u128::from(b == b' ') << i);
            prop_assert_eq!(spaces, want_spaces);
            prop_assert_eq!(bad, bytes.iter().any(|b| !(0x20..0x7f).contains(b)));
        }

        /// Start arrays of any back ranks (valid letters of either width,
        /// and bytes no placement holds), on both widths: what the
        /// start-array reader reads, the others read alike, and it reads
        /// every start array whose back ranks hold only pieces.
        #[test]
        fn start_array_agrees_with_the_other_readers(
            ten in any::<bool>(),
            black in proptest::collection::vec(
                proptest::sample::select(b"pnbrqkacPNBRQKAC1/x".to_vec()),
                10,
            ),
            white in proptest::collection::vec(
                proptest::sample::select(b"PNBRQKACpnbrqkac1/x".to_vec()),
                10,
            ),
            valid in any::<bool>(),
        ) {
            let width = if ten { 10 } else { 8 };
            let letters: &[u8] = if ten { b"PNBRQKACpnbrqkac" } else { b"PNBRQKpnbrqk" };
            // Half the cases only letters of the width, so that most are valid.
            let rank = |r: &[u8]| -> String {
                r[..width]
                    .iter()
                    .map(|&b| char::from(if valid { letters[usize::from(b) % letters.len()] } else { b }))
                    .collect()
            };
            let (pawns, empty) = if ten { ("pppppppppp", "10") } else { ("pppppppp", "8") };
            let field = format!(
                "{}/{pawns}/{empty}/{empty}/{empty}/{empty}/{}/{}",
                rank(&black),
                pawns.to_uppercase(),
                rank(&white)
            );
            let others = placement8(field.as_bytes()).or_else(|| placement10(field.as_bytes()));
            let start = start_array(field.as_bytes());
            if start.is_some() {
                prop_assert_eq!(start, others, "{}", field);
            }
            // Back ranks of pieces only: always a start array.
            if valid {
                prop_assert!(start.is_some(), "{}", field);
            }
            same_as_general(&field);
        }

        /// Placements that are valid or one byte away from valid, on both widths.
        #[test]
        fn placement_readers_agree_near_valid_placements(
            ten in any::<bool>(),
            cells in proptest::collection::vec(0usize..24, 80),
            edit in proptest::option::of((any::<proptest::sample::Index>(), proptest::sample::select(b"pK1890/ aC".to_vec()))),
        ) {
            let width = if ten { 10 } else { 8 };
            // Cells 0..12 hold a piece (PNBRQKAC on 10 files), the rest are empty.
            let letters: &[u8] = if ten { b"PNBRQKACpnbrqkac" } else { b"PNBRQKpnbrqk" };
            let mut field = Vec::new();
            for rank in cells.chunks(10).take(8) {
                if !field.is_empty() {
                    field.push(b'/');
                }
                let mut empty = 0;
                for &c in &rank[..width] {
                    if c < letters.len() {
                        if empty > 0 {
                            field.extend_from_slice(empty.to_string().as_bytes());
                            empty = 0;
                        }
                        field.push(letters[c]);
                    } else {
                        empty += 1;
                    }
                }
                if empty > 0 {
                    field.extend_from_slice(empty.to_string().as_bytes());
                }
            }
            if let Some((at, byte)) = edit {
                let i = at.index(field.len());
                field[i] = byte;
            }
            same_as_general(std::str::from_utf8(&field).unwrap());
        }
    }

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
