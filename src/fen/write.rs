//! Writing a position in the three dialects (README, "The dialects") with the three en passant
//! policies.

use super::board::{Board, Color, Piece, Role, Square};
use super::castling::{CastlingRights, Side};
use super::{BoardSize, Dialect, EpPolicy, Position};
use crate::problem::{Code, Problem};

/// Appends the placement field of `board`.
pub fn write_placement(board: &Board, out: &mut String) {
    // Letters by square from the bitboards (a piece at a time), rather than a
    // bitboard search per square: the placement is most of what convert writes.
    let letters = board.letters();
    let files = usize::from(board.files());
    for rank in (0..8usize).rev() {
        let mut empty = 0u8;
        for &letter in &letters[rank * files..(rank + 1) * files] {
            if letter == 0 {
                empty += 1;
            } else {
                push_run(out, empty);
                empty = 0;
                out.push(char::from(letter));
            }
        }
        push_run(out, empty);
        if rank > 0 {
            out.push('/');
        }
    }
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

/// A run of empty squares (1–10).
fn push_run(out: &mut String, empty: u8) {
    match empty {
        0 => {}
        10 => out.push_str("10"),
        n => out.push(char::from(b'0' + n)),
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
fn write_castling(pos: &Position, dialect: Dialect, out: &mut String) -> Result<(), Problem> {
    if let Some(prefix) = pos.prefix {
        if dialect != Dialect::Xfen {
            return Err(lossy(format!(
                "the castling prefix '{}' can only be written in X-FEN, not in {}",
                prefix.char(),
                dialect.as_str()
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
        let outer = CastlingRights::is_outermost(&pos.board, color, side, file);
        let file_char = letter(color, b'A' + file);
        let side_char = letter(color, if side == Side::King { b'K' } else { b'Q' });
        let ch = match dialect {
            Dialect::Shredder => file_char,
            Dialect::Xfen => {
                if outer {
                    side_char
                } else {
                    file_char
                }
            }
            Dialect::Fen => {
                if !outer {
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
    write_placement(&pos.board, &mut out);
    out.push(' ');
    out.push(pos.turn.char());
    out.push(' ');
    write_castling(pos, dialect, &mut out)?;
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
    push_number(&mut out, pos.halfmove);
    out.push(' ');
    push_number(&mut out, pos.fullmove);
    Ok(out)
}
