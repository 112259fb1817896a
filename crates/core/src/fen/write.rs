//! Writing a position in the three dialects (docs/dialects.md) with the three en passant
//! policies.

use super::board::{Board, Color, Piece, Role, Square};
use super::castling::{CastlingRights, Side};
use super::{BoardSize, Dialect, EpPolicy, Position};
use crate::problem::{Code, Problem};

/// How to write one rank of `W` squares, for each occupancy (bit `file`; `N`
/// = 2^`W`): up to `W` bytes, each a run digit (`10` for ten empty squares)
/// or `0x80 | file` for the piece on that file, and how many of them there are.
const fn rank_patterns<const W: usize, const N: usize>() -> [([u8; W], u8); N] {
    let mut table = [([0u8; W], 0u8); N];
    let mut occupancy = 0;
    while occupancy < N {
        let (mut bytes, mut len, mut empty, mut file) = ([0u8; W], 0, 0u8, 0);
        while file <= W {
            let piece = file < W && occupancy >> file & 1 == 1;
            if (piece || file == W) && empty > 0 {
                if empty == 10 {
                    bytes[len] = b'1';
                    bytes[len + 1] = b'0';
                    len += 2;
                } else {
                    bytes[len] = b'0' + empty;
                    len += 1;
                }
                empty = 0;
            }
            if piece {
                bytes[len] = 0x80 | file as u8;
                len += 1;
            } else if file < W {
                empty += 1;
            }
            file += 1;
        }
        table[occupancy] = (bytes, len as u8);
        occupancy += 1;
    }
    table
}

const RANK8: [([u8; 8], u8); 256] = rank_patterns();
const RANK10: [([u8; 10], u8); 1024] = rank_patterns();

/// Appends the placement field of `board`.
pub fn write_placement(board: &Board, out: &mut String) {
    if !write_start_array(board, out) {
        write_placement_general(board, out);
    }
}

/// [`write_placement`] of a placement of the start shape (every Chess960
/// game and every Capablanca-family game starts from one): the back ranks'
/// letters around the fixed middle, without reading the other squares.
/// `false` (nothing written) for any other placement.
fn write_start_array(board: &Board, out: &mut String) -> bool {
    let Some((white, black)) = board.start_back_ranks() else {
        return false;
    };
    let (width, middle) = match board.size() {
        BoardSize::Eight => (8, "/pppppppp/8/8/8/8/PPPPPPPP/"),
        BoardSize::Ten => (10, "/pppppppppp/10/10/10/10/PPPPPPPPPP/"),
    };
    // Piece letters: ASCII, so this never fails.
    fn letters(rank: &[u8]) -> &str {
        std::str::from_utf8(rank).unwrap_or_default()
    }
    out.push_str(letters(&black[..width]));
    out.push_str(middle);
    out.push_str(letters(&white[..width]));
    true
}

/// [`write_placement`] of any placement.
fn write_placement_general(board: &Board, out: &mut String) {
    // 80 squares and 7 slashes at most, plus the bytes written ahead.
    let mut buf = [0u8; 96];
    let len = match board.size() {
        BoardSize::Eight => write_ranks(&RANK8, board, &mut buf),
        BoardSize::Ten => write_ranks(&RANK10, board, &mut buf),
    };
    // Piece letters, digits and slashes: ASCII, so this never fails.
    out.push_str(std::str::from_utf8(&buf[..len]).unwrap_or_default());
}

/// Writes the ranks of `board` (`W` files) into `buf`, each from the pattern
/// of its occupancy, `W` bytes at a time (of which the pattern's length
/// count): no branch per square, where empty squares and pieces alternate in
/// no order a branch predictor could learn. Returns the length written.
fn write_ranks<const W: usize>(
    patterns: &[([u8; W], u8)],
    board: &Board,
    buf: &mut [u8; 96],
) -> usize {
    // Letters by square from the bitboards, a piece at a time.
    let letters = board.letters();
    let occupied = board.occupied();
    let mut len = 0;
    for rank in (0..8usize).rev() {
        let occupancy = (occupied >> (rank * W)) as usize & (patterns.len() - 1);
        let (bytes, n) = &patterns[occupancy];
        for (to, &b) in buf[len..len + W].iter_mut().zip(bytes) {
            *to = if b & 0x80 != 0 {
                letters[rank * W + usize::from(b & 15)]
            } else {
                b
            };
        }
        len += usize::from(*n);
        buf[len] = b'/';
        len += usize::from(rank > 0);
    }
    len
}

/// Appends `n` in decimal (the clocks; `write!` costs more than the rest of a FEN).
fn push_number(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

fn letter(color: Color, upper: u8) -> char {
    match color {
        Color::White => char::from(upper),
        Color::Black => char::from(upper.to_ascii_lowercase()),
    }
}

fn lossy(message: String) -> Problem {
    Problem::new(Code::LossyCastling, 0..0, message)
}

/// Appends the castling field of `pos` in `dialect`.
/// An error for an en passant square or a castling rook's file that is not
/// on the board: a position read from a FEN never has one, but the fields
/// are public, and such a field would be written as text that does not read
/// back (or, past `z`, not at all).
fn off_the_board(pos: &Position) -> Result<(), Problem> {
    let files = pos.board.files();
    if let Some(sq) = pos.ep
        && (sq.file >= files || sq.rank >= 8)
    {
        return Err(Problem::new(
            Code::EnPassant,
            0..0,
            format!(
                "the en passant square (file {}, rank {}, from 0) is not on the board",
                sq.file, sq.rank
            ),
        ));
    }
    if let Some((_, _, file)) = pos.castling.iter().find(|&(_, _, file)| file >= files) {
        return Err(Problem::new(
            Code::CastlingRights,
            0..0,
            format!("a castling rook's file ({file}, from 0) is not on the board"),
        ));
    }
    Ok(())
}

fn write_castling(pos: &Position, dialect: Dialect, out: &mut String) -> Result<(), Problem> {
    if let Some(prefix) = pos.prefix {
        if dialect != Dialect::Xfen {
            return Err(lossy(format!(
                "the castling prefix '{}' can only be written in X-FEN, not in {}",
                prefix.char(),
                match dialect {
                    Dialect::Fen => "classic FEN",
                    Dialect::Shredder => "Shredder-FEN",
                    Dialect::Xfen => "X-FEN",
                }
            ))
            .with_help("convert with --to xfen"));
        }
        out.push(prefix.char());
    }
    if pos.castling.is_empty() {
        out.push('-');
        return Ok(());
    }
    for (color, side, file) in pos.castling.iter() {
        // Asked only where the letter depends on it (Shredder-FEN names
        // every rook by its file): a search of the back rank per right.
        let outer = || CastlingRights::is_outermost(&pos.board, color, side, file);
        let file_char = letter(color, b'A' + file);
        let side_char = letter(color, if side == Side::King { b'K' } else { b'Q' });
        let ch = match dialect {
            Dialect::Shredder => file_char,
            Dialect::Xfen => {
                if outer() {
                    side_char
                } else {
                    file_char
                }
            }
            Dialect::Fen => {
                if !outer() {
                    let sq = Square::new(file, color.back_rank());
                    return Err(lossy(format!(
                        "classic FEN cannot express the {} castling right with the inner rook on {sq}",
                        color.name()
                    ))
                    .with_help(format!(
                        "X-FEN and Shredder-FEN name this rook by its file, '{file_char}' (--to xfen or --to shredder)"
                    )));
                }
                side_char
            }
        };
        out.push(ch);
    }
    Ok(())
}

/// The square of the pawn that just moved two squares, for an ep square.
fn pushed_pawn(pos: &Position, ep: Square) -> Square {
    match pos.turn {
        Color::White => Square::new(ep.file, ep.rank.saturating_sub(1)),
        Color::Black => Square::new(ep.file, ep.rank + 1),
    }
}

/// Pawns of the side to move that stand beside the pawn that just moved.
fn capturers(pos: &Position, ep: Square) -> impl Iterator<Item = Square> + '_ {
    let pushed = pushed_pawn(pos, ep);
    let pawn = Piece {
        color: pos.turn,
        role: Role::Pawn,
    };
    [-1i8, 1]
        .into_iter()
        .filter_map(move |d| {
            let f = i16::from(pushed.file) + i16::from(d);
            (0..i16::from(pos.board.files()))
                .contains(&f)
                .then(|| Square::new(f as u8, pushed.rank))
        })
        .filter(move |&sq| pos.board.piece_at(sq) == Some(pawn))
}

fn ep_is_legal(pos: &Position, ep: Square) -> bool {
    match pos.board.size() {
        BoardSize::Eight => legal_ep_8x8(pos).is_some_and(|sq| sq == ep),
        BoardSize::Ten => {
            let pushed = pushed_pawn(pos, ep);
            capturers(pos, ep).any(|from| {
                let mut b = pos.board;
                let pawn = b.piece_at(from);
                b.set(from, None);
                b.set(pushed, None);
                b.set(ep, pawn);
                b.kings(pos.turn)
                    .all(|k| !b.is_attacked(k, pos.turn.other()))
            })
        }
    }
}

fn legal_ep_8x8(pos: &Position) -> Option<Square> {
    use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position as _, Setup};
    let mut setup = Setup::empty();
    setup.board = pos.board.to_shakmaty()?;
    setup.turn = pos.turn.to_shakmaty();
    setup.castling_rights = pos.castling.shakmaty_mask();
    setup.ep_square = pos.ep.map(Square::to_shakmaty);
    let chess = Chess::from_setup(setup, CastlingMode::Chess960).ok()?;
    let sq = chess.ep_square(EnPassantMode::Legal)?;
    Some(Square::new(sq.file() as u8, sq.rank() as u8))
}

/// Writes `pos` in `dialect` with `ep` (default: pseudo-legal for X-FEN, as-is
/// otherwise).
pub fn write(pos: &Position, dialect: Dialect, ep: Option<EpPolicy>) -> Result<String, Problem> {
    let mut out = String::with_capacity(96);
    write_into(pos, dialect, ep, &mut out)?;
    Ok(out)
}

/// [`write()`], appended to `out`; on failure `out` is left as it was.
pub fn write_into(
    pos: &Position,
    dialect: Dialect,
    ep: Option<EpPolicy>,
    out: &mut String,
) -> Result<(), Problem> {
    write_as_read(pos, dialect, ep, AsRead::default(), out)
}

/// Fields of the record `pos` was read from that are already as [`write()`]
/// writes them, to copy rather than write again
/// ([`super::Analysis::write_into`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AsRead<'a> {
    /// The placement field.
    pub placement: Option<&'a str>,
    /// The halfmove clock and the fullmove number, a space between them.
    pub clocks: Option<&'a str>,
}

/// [`write_into`], copying the fields of `as_read`.
pub(crate) fn write_as_read(
    pos: &Position,
    dialect: Dialect,
    ep: Option<EpPolicy>,
    as_read: AsRead<'_>,
    out: &mut String,
) -> Result<(), Problem> {
    let start = out.len();
    // Every field in turn; what was written is taken back on a failure.
    let fields = |out: &mut String| -> Result<(), Problem> {
        off_the_board(pos)?;
        match as_read.placement {
            Some(placement) => out.push_str(placement),
            None => write_placement(&pos.board, out),
        }
        out.push(' ');
        out.push(pos.turn.char());
        out.push(' ');
        write_castling(pos, dialect, out)?;
        out.push(' ');
        let policy = ep.unwrap_or(match dialect {
            Dialect::Xfen => EpPolicy::PseudoLegal,
            Dialect::Fen | Dialect::Shredder => EpPolicy::AsIs,
        });
        let ep = pos.ep.filter(|&sq| match policy {
            EpPolicy::AsIs => true,
            EpPolicy::PseudoLegal => capturers(pos, sq).next().is_some(),
            EpPolicy::Legal => ep_is_legal(pos, sq),
        });
        match ep {
            Some(sq) => {
                out.push(char::from(b'a' + sq.file));
                out.push(char::from(b'1' + sq.rank));
            }
            None => out.push('-'),
        }
        out.push(' ');
        match as_read.clocks {
            Some(clocks) => out.push_str(clocks),
            None => {
                push_number(out, pos.halfmove);
                out.push(' ');
                push_number(out, pos.fullmove);
            }
        }
        Ok(())
    };
    fields(out).inspect_err(|_| out.truncate(start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A start array's placement is written as the general writer writes
        /// it, which is the placement it was read from, on both widths; a
        /// placement one square away from the start shape is left to the
        /// general writer.
        #[test]
        fn start_arrays_are_written_as_the_general_writer_writes_them(
            ten in any::<bool>(),
            back in proptest::collection::vec(0usize..8, 20),
            moved in proptest::option::of(0usize..10),
        ) {
            let width = if ten { 10 } else { 8 };
            let roles: &[u8] = if ten { b"NBRQKACN" } else { b"NBRQKNBR" };
            let rank = |r: &[usize]| -> String {
                r[..width].iter().map(|&i| char::from(roles[i])).collect()
            };
            let (pawns, empty) = if ten { ("pppppppppp", "10") } else { ("pppppppp", "8") };
            let mut white_pawns = pawns.to_uppercase();
            let mut third = empty.to_string();
            // A pawn pushed one square: no longer the start shape.
            if let Some(file) = moved.filter(|&f| f < width) {
                white_pawns.replace_range(file..=file, "1");
                let left = file;
                let right = width - 1 - file;
                third = format!(
                    "{}P{}",
                    if left > 0 { left.to_string() } else { String::new() },
                    if right > 0 { right.to_string() } else { String::new() }
                );
            }
            let field = format!(
                "{}/{pawns}/{empty}/{empty}/{empty}/{third}/{white_pawns}/{}",
                rank(&back[..10]).to_lowercase(),
                rank(&back[10..]),
            );
            let fen = format!("{field} w - - 0 1");
            let mut problems = Vec::new();
            let parsed = super::super::parse::parse(fen.as_bytes(), &mut problems)
                .map_err(|_| TestCaseError::fail(format!("{fen} does not parse")))?;
            let mut fast = String::new();
            let took = write_start_array(&parsed.board, &mut fast);
            let mut general = String::new();
            write_placement_general(&parsed.board, &mut general);
            prop_assert_eq!(took, moved.filter(|&f| f < width).is_none(), "{}", field);
            if took {
                prop_assert_eq!(&fast, &general);
                prop_assert_eq!(&fast, &field);
            }
        }
    }
}
