//! Castling rights: reading the letters of the castling field against the board
//! (docs/decisions.md) and the rights themselves.
//!
//! `K`/`Q` mean the outermost rook on that side of the king; a file letter names
//! the rook on that file. A right is kept as the file of its rook.

use std::ops::Range;

use super::BoardSize;
use super::board::{Board, Color, Role, Square};
use crate::problem::{Code, Problem};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// The side of the board a castling right goes to.
pub enum Side {
    /// Towards the h-file (or j-file on 10×8): O-O.
    King,
    /// Towards the a-file: O-O-O.
    Queen,
}

impl Side {
    fn index(self) -> usize {
        self as usize
    }

    fn name(self) -> &'static str {
        match self {
            Side::King => "king's side",
            Side::Queen => "queen's side",
        }
    }
}

/// The castling rights of a position: for each colour and side, the file of the
/// castling rook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingRights {
    rooks: [[Option<u8>; 2]; 2],
}

impl CastlingRights {
    /// The file of the rook of `color`'s right on `side`, if that right exists.
    pub fn get(&self, color: Color, side: Side) -> Option<u8> {
        self.rooks[color.index()][side.index()]
    }

    /// Sets or (with `None`) removes the right of `color` on `side` with the rook on `file`.
    pub fn set(&mut self, color: Color, side: Side, file: Option<u8>) {
        self.rooks[color.index()][side.index()] = file;
    }

    /// Whether no right is left (written `-`).
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// Every right in canonical order: white before black, king side first.
    pub fn iter(&self) -> impl Iterator<Item = (Color, Side, u8)> + '_ {
        [Color::White, Color::Black]
            .into_iter()
            .flat_map(move |color| {
                [Side::King, Side::Queen]
                    .into_iter()
                    .filter_map(move |side| self.get(color, side).map(|f| (color, side, f)))
            })
    }

    /// Some right needs Chess960 castling: the king off its orthodox file (e;
    /// f on 10 files) or the rook off the corner files.
    pub fn needs_chess960(&self, board: &Board) -> bool {
        let files = board.files();
        let king_file = match board.size() {
            BoardSize::Eight => 4,
            BoardSize::Ten => 5,
        };
        self.iter().any(|(color, _, rook)| {
            let king_ok = board.king_of(color).is_some_and(|k| k.file == king_file);
            !king_ok || (rook != 0 && rook != files - 1)
        })
    }

    /// The castling rooks as a shakmaty bitboard (8×8).
    ///
    /// # Panics
    ///
    /// When a right's rook file is beyond `h` (the rights of a 10×8
    /// position, which shakmaty cannot hold; those of an analysed 8×8
    /// position never are), as [`Square::to_shakmaty`] does.
    pub fn shakmaty_mask(&self) -> shakmaty::Bitboard {
        let mut mask = shakmaty::Bitboard::EMPTY;
        for (color, _, file) in self.iter() {
            mask.add(Square::new(file, color.back_rank()).to_shakmaty());
        }
        mask
    }

    /// Is the right's rook the outermost rook of its colour on that side of the
    /// king (so that `K`/`Q` name it)?
    pub fn is_outermost(board: &Board, color: Color, side: Side, rook: u8) -> bool {
        let Some(king) = board.king_of(color) else {
            return false;
        };
        outermost(board, color, side, king.file) == Some(rook)
    }
}

/// The outermost rook of `color` on its back rank on `side` of a king on `king_file`.
fn outermost(board: &Board, color: Color, side: Side, king_file: u8) -> Option<u8> {
    let mut rooks = board.back_rank_rooks(color);
    match side {
        Side::King => rooks.filter(|&f| f > king_file).last(),
        Side::Queen => rooks.find(|&f| f < king_file),
    }
}

fn rooks_list(board: &Board, color: Color) -> String {
    let rank = color.back_rank();
    let list: Vec<String> = board
        .back_rank_rooks(color)
        .map(|f| Square::new(f, rank).to_string())
        .collect();
    match list.len() {
        0 => format!("there is no {} rook on rank {}", color.name(), rank + 1),
        1 => format!("the back rank has a rook on {}", list[0]),
        _ => format!("the back rank has rooks on {}", list.join(", ")),
    }
}

fn file_letter(color: Color, file: u8) -> char {
    let c = char::from(b'A' + file);
    match color {
        Color::White => c,
        Color::Black => c.to_ascii_lowercase(),
    }
}

/// Reads one castling letter: the side and the rook's file.
fn resolve_one(
    board: &Board,
    king: Option<Square>,
    color: Color,
    letter: u8,
    span: Range<usize>,
) -> Result<(Side, u8), Problem> {
    let ch = char::from(letter);
    let err = |msg: String| Problem::new(Code::CastlingRights, span.clone(), msg);
    let back = color.back_rank();
    let mut kings = board.kings(color);
    let king = match king.map_or_else(|| (kings.next(), kings.next()), |k| (Some(k), None)) {
        (Some(k), None) => k,
        (None, _) => {
            return Err(err(format!(
                "castling right '{ch}' needs a {} king; there is none",
                color.name()
            )));
        }
        (Some(_), Some(_)) => {
            return Err(err(format!(
                "castling right '{ch}' needs exactly one {} king; there are {}",
                color.name(),
                2 + kings.count()
            )));
        }
    };
    if king.rank != back {
        return Err(err(format!(
            "castling right '{ch}' needs the {} king on rank {}; it is on {king}",
            color.name(),
            back + 1
        )));
    }
    let side_of = |f: u8| {
        if f > king.file {
            Side::King
        } else {
            Side::Queen
        }
    };
    match letter.to_ascii_uppercase() {
        b'K' | b'Q' => {
            let side = if letter.eq_ignore_ascii_case(&b'K') {
                Side::King
            } else {
                Side::Queen
            };
            outermost(board, color, side, king.file)
                .map(|f| (side, f))
                .ok_or_else(|| {
                    err(format!(
                        "castling right '{ch}' needs a {} rook on the {} of the king on {king}; {}",
                        color.name(),
                        side.name(),
                        rooks_list(board, color)
                    ))
                })
        }
        upper => {
            let file = upper - b'A';
            let sq = Square::new(file, back);
            let piece = board.piece_at(sq);
            let is_rook =
                piece.is_some_and(|p| p.color == color && p.role == super::board::Role::Rook);
            if is_rook {
                return Ok((side_of(file), file));
            }
            let what = match piece {
                None => format!("{sq} is empty"),
                Some(p) => format!("{sq} holds {}", p.describe()),
            };
            let mut p = err(format!(
                "castling right '{ch}' needs a {} rook on {sq}; {what}",
                color.name()
            ));
            if file != king.file
                && let Some(other) = outermost(board, color, side_of(file), king.file)
            {
                p = p.with_help(format!(
                    "the {} rook on that side is on {}: write '{}'",
                    color.name(),
                    Square::new(other, back),
                    file_letter(color, other)
                ));
            }
            Err(p)
        }
    }
}

/// [`resolve`] for letters that give no problem at all, the common case:
/// each right read off bit masks of the back ranks, with none of the
/// general reader's messages prepared. `None` whenever any letter would give
/// a problem (a fault, a repeat, an order), or for anything unusual: the
/// general reader then reads the letters again and reports. It only skips
/// work; it never decides (a property test holds it to the general reader).
fn resolve_fast(board: &Board, fen: &[u8], letters: Range<usize>) -> Option<CastlingRights> {
    let mut rights = CastlingRights::default();
    let files = board.files();
    // Per colour: the king's file and the back rank's rooks (bit `file`),
    // once the colour's first letter needs them.
    let mut back: [Option<(u8, u32)>; 2] = [None; 2];
    let mut seen_char = 0u64;
    let mut seen_black = false;
    let mut seen_key = [[false; 2]; 2];
    let mut seen_key_letter = [[false; 2]; 2];
    for &b in fen.get(letters)? {
        // Letters are A–Z and a–z (castling_field checked them): bit `b - 'A'`.
        let bit = 1u64 << (b.checked_sub(b'A')? & 63);
        if seen_char & bit != 0 {
            return None;
        }
        seen_char |= bit;
        let color = if b.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match color {
            Color::Black => seen_black = true,
            Color::White if seen_black => return None,
            Color::White => {}
        }
        let c = color.index();
        let (king, rooks) = match back[c] {
            Some(kr) => kr,
            None => {
                let kings = board.on_back_rank(color, Role::King);
                if board.count(color, Role::King) != 1 || kings == 0 {
                    return None;
                }
                let kr = (
                    kings.trailing_zeros() as u8,
                    board.on_back_rank(color, Role::Rook),
                );
                back[c] = Some(kr);
                kr
            }
        };
        let upper = b.to_ascii_uppercase();
        let is_file = !matches!(upper, b'K' | b'Q');
        let below_king = (1u32 << king) - 1;
        let (side, file) = match upper {
            b'K' => {
                // The outermost: the highest file above the king.
                let above = rooks & !below_king;
                (Side::King, above.checked_ilog2()? as u8)
            }
            b'Q' => {
                // The outermost: the lowest file below the king.
                let below = rooks & below_king;
                if below == 0 {
                    return None;
                }
                (Side::Queen, below.trailing_zeros() as u8)
            }
            _ => {
                let file = upper - b'A';
                if file >= files || rooks >> file & 1 == 0 {
                    return None;
                }
                let side = if file > king { Side::King } else { Side::Queen };
                (side, file)
            }
        };
        if side == Side::King && seen_key[c][1] && (!is_file || seen_key_letter[c][1]) {
            return None;
        }
        seen_key[c][side.index()] = true;
        if !is_file {
            seen_key_letter[c][side.index()] = true;
        }
        if rights.get(color, side).is_some() {
            return None;
        }
        rights.set(color, side, Some(file));
    }
    Some(rights)
}

/// Reads the castling letters `fen[letters]` against `board`. Faulty rights are
/// reported (`castling-rights`) and dropped; repeats and a non-canonical order
/// are reported as `noncanonical`.
pub fn resolve(
    board: &Board,
    fen: &[u8],
    letters: Range<usize>,
    problems: &mut Vec<Problem>,
) -> CastlingRights {
    if let Some(rights) = resolve_fast(board, fen, letters.clone()) {
        return rights;
    }
    resolve_general(board, fen, letters, problems)
}

/// [`resolve`] letter by letter, with every problem.
fn resolve_general(
    board: &Board,
    fen: &[u8],
    letters: Range<usize>,
    problems: &mut Vec<Problem>,
) -> CastlingRights {
    let mut rights = CastlingRights::default();
    let mut seen_char = [false; 128];
    let mut repeat_reported = false;
    let mut order_reported = false;
    let mut seen_black = false;
    // Per colour×side key: a right seen, and one seen through K/Q.
    let mut seen_key = [[false; 2]; 2];
    let mut seen_key_letter = [[false; 2]; 2];
    let mut kings: [Option<Option<Square>>; 2] = [None; 2];
    for i in letters {
        let b = fen.get(i).copied().unwrap_or(b'-');
        let span = i..i + 1;
        let ch = char::from(b);
        if let Some(seen) = seen_char.get_mut(usize::from(b)) {
            if *seen {
                if !repeat_reported {
                    repeat_reported = true;
                    problems.push(
                        Problem::new(
                            Code::Noncanonical,
                            span,
                            format!("castling letter '{ch}' is repeated"),
                        )
                        .with_help("write each castling right once"),
                    );
                }
                continue;
            }
            *seen = true;
        }
        let color = if b.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let mut misordered = false;
        match color {
            Color::Black => seen_black = true,
            Color::White => misordered |= seen_black,
        }
        let is_file = !matches!(b, b'K' | b'Q' | b'k' | b'q');
        let king = *kings[color.index()].get_or_insert_with(|| board.king_of(color));
        match resolve_one(board, king, color, b, span.clone()) {
            Ok((side, file)) => {
                let c = color.index();
                if side == Side::King && seen_key[c][1] && (!is_file || seen_key_letter[c][1]) {
                    misordered = true;
                }
                seen_key[c][side.index()] = true;
                if !is_file {
                    seen_key_letter[c][side.index()] = true;
                }
                match rights.get(color, side) {
                    None => rights.set(color, side, Some(file)),
                    Some(f) if f == file => {
                        if !repeat_reported {
                            repeat_reported = true;
                            problems.push(
                                Problem::new(
                                    Code::Noncanonical,
                                    span.clone(),
                                    format!(
                                        "castling letter '{ch}' names the rook on {} a second time",
                                        Square::new(file, color.back_rank())
                                    ),
                                )
                                .with_help("write each castling right once"),
                            );
                        }
                    }
                    Some(f) => problems.push(Problem::new(
                        Code::CastlingRights,
                        span.clone(),
                        format!(
                            "castling right '{ch}' is a second right on the {} of the {} king (rooks on {} and {})",
                            side.name(),
                            color.name(),
                            Square::new(f, color.back_rank()),
                            Square::new(file, color.back_rank())
                        ),
                    )
                    .with_help(format!("remove '{ch}' from the castling field"))),
                }
            }
            Err(mut p) => {
                if p.help.is_none() {
                    p = p.with_help(format!("remove '{ch}' from the castling field"));
                }
                problems.push(p);
            }
        }
        if misordered && !order_reported {
            order_reported = true;
            problems.push(
                Problem::new(
                    Code::Noncanonical,
                    span,
                    format!("castling letter '{ch}' is out of order; white's rights come before black's, the king side before the queen side"),
                )
                .with_help("write the rights as in 'KQkq'"),
            );
        }
    }
    rights
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse;

    fn read(fen: &str) -> (CastlingRights, Vec<(Code, usize)>) {
        let mut problems = Vec::new();
        let p = parse::parse(fen.as_bytes(), &mut problems).expect("parses");
        let r = resolve(&p.board, fen.as_bytes(), p.castling, &mut problems);
        (r, problems.iter().map(|p| (p.code, p.column())).collect())
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w";

    #[test]
    fn kq_and_files_mean_the_same() {
        let (a, pa) = read(&format!("{START} KQkq - 0 1"));
        let (b, pb) = read(&format!("{START} HAha - 0 1"));
        assert_eq!(a, b);
        assert!(pa.is_empty() && pb.is_empty());
        assert_eq!(a.get(Color::White, Side::King), Some(7));
        assert_eq!(a.get(Color::Black, Side::Queen), Some(0));
        let (c, pc) = read(&format!("{START} AHah - 0 1"));
        assert_eq!(a, c);
        assert!(pc.is_empty());
    }

    #[test]
    fn order_and_repeats_are_noncanonical() {
        assert_eq!(
            read(&format!("{START} QKkq - 0 1")).1,
            [(Code::Noncanonical, 48)]
        );
        assert_eq!(
            read(&format!("{START} kqKQ - 0 1")).1,
            [(Code::Noncanonical, 49)]
        );
        assert_eq!(
            read(&format!("{START} KKQkq - 0 1")).1,
            [(Code::Noncanonical, 48)]
        );
        assert_eq!(
            read(&format!("{START} KHQkq - 0 1")).1,
            [(Code::Noncanonical, 48)]
        );
    }

    #[test]
    fn rights_without_rook_or_king() {
        let (_, p) = read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1");
        assert_eq!(p, [(Code::CastlingRights, 47)]);
        let (_, p) = read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w Kkq - 0 1");
        assert_eq!(p, [(Code::CastlingRights, 47)]);
        let (_, p) = read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNR w BAkq - 0 1");
        assert_eq!(p, [(Code::CastlingRights, 48)]);
        let (_, p) = read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNR w ABkq - 0 1");
        assert_eq!(p, [(Code::CastlingRights, 48)]);
    }

    proptest::proptest! {
        /// The fast reader agrees with the general one: when it reads the
        /// letters, the general reader reads the same rights with no problem.
        /// Random back ranks (kings, rooks, other pieces) and letters.
        #[test]
        fn fast_resolve_agrees_with_the_general_one(
            ten in proptest::prelude::any::<bool>(),
            white in proptest::collection::vec(0u8..6, 10),
            black in proptest::collection::vec(0u8..6, 10),
            extra_kings in proptest::collection::vec((0u8..10, 1u8..7, proptest::prelude::any::<bool>()), 0..2),
            letters in proptest::collection::vec(
                proptest::sample::select(b"KQkqABCDEFGHIJabcdefghij".to_vec()),
                0..6,
            ),
        ) {
            let size = if ten { BoardSize::Ten } else { BoardSize::Eight };
            let files = if ten { 10 } else { 8 };
            let mut board = Board::empty(size);
            for (rank, row, color) in [(0u8, &white, Color::White), (7, &black, Color::Black)] {
                for (file, &c) in row.iter().take(files).enumerate() {
                    // 0, 1: empty; 2: rook; 3: king; 4: knight; 5: rook of the other colour.
                    let piece = match c {
                        2 => Some((color, Role::Rook)),
                        3 => Some((color, Role::King)),
                        4 => Some((color, Role::Knight)),
                        5 => Some((color.other(), Role::Rook)),
                        _ => None,
                    };
                    board.set(
                        Square::new(file as u8, rank),
                        piece.map(|(color, role)| super::super::Piece { color, role }),
                    );
                }
            }
            for (file, rank, white) in extra_kings {
                let color = if white { Color::White } else { Color::Black };
                board.set(
                    Square::new(file % files as u8, rank),
                    Some(super::super::Piece { color, role: Role::King }),
                );
            }
            let fen: Vec<u8> = letters
                .into_iter()
                .filter(|&b| (b.to_ascii_uppercase() - b'A') < files as u8 || matches!(b, b'K' | b'Q' | b'k' | b'q'))
                .collect();
            let mut problems = Vec::new();
            let general = resolve_general(&board, &fen, 0..fen.len(), &mut problems);
            let fast = resolve_fast(&board, &fen, 0..fen.len());
            if let Some(fast) = fast {
                proptest::prop_assert_eq!(fast, general);
                proptest::prop_assert!(problems.is_empty(), "{:?}", problems);
            }
            let mut again = Vec::new();
            proptest::prop_assert_eq!(resolve(&board, &fen, 0..fen.len(), &mut again), general);
            proptest::prop_assert_eq!(again, problems);
        }
    }

    #[test]
    fn fast_resolve_reads_the_usual_fields() {
        let board = |fen: &str| {
            let mut problems = Vec::new();
            parse::parse(fen.as_bytes(), &mut problems).expect("parses")
        };
        for fen in [
            format!("{START} KQkq - 0 1"),
            format!("{START} HAha - 0 1"),
            format!("{START} Kq - 0 1"),
            "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11".to_string(),
        ] {
            let p = board(&fen);
            assert!(
                resolve_fast(&p.board, fen.as_bytes(), p.castling.clone()).is_some(),
                "{fen}"
            );
        }
    }

    #[test]
    fn inner_rook_by_file() {
        let (r, p) = read("rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11");
        assert!(p.is_empty());
        assert_eq!(r.get(Color::White, Side::King), Some(6));
        assert_eq!(r.get(Color::Black, Side::King), Some(6));
        assert_eq!(r.get(Color::Black, Side::Queen), Some(0));
    }
}
