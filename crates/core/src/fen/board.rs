//! Our own board: 8 or 10 files, 8 ranks, pieces including the archbishop (`A`)
//! and the chancellor (`C`). It holds the placement of every FEN we read; 8×8
//! positions are handed to shakmaty for judging, 10×8 ones are judged here
//! (attack generation for check detection).

use std::fmt;

use super::BoardSize;

/// The most files a board can have.
pub const MAX_FILES: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// The colour of a side.
pub enum Color {
    /// White, who moves first.
    White,
    /// Black.
    Black,
}

impl Color {
    /// 0 for White, 1 for Black, for per-side arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The other colour.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0-based index of this colour's back rank.
    pub fn back_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }

    /// `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `w` or `b`.
    pub fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The same colour in shakmaty.
    pub fn to_shakmaty(self) -> shakmaty::Color {
        match self {
            Color::White => shakmaty::Color::White,
            Color::Black => shakmaty::Color::Black,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// The kind of a piece, 8×8 and 10×8 alike.
pub enum Role {
    /// Pawn (`P`).
    Pawn,
    /// Knight (`N`).
    Knight,
    /// Bishop (`B`).
    Bishop,
    /// Rook (`R`).
    Rook,
    /// Queen (`Q`).
    Queen,
    /// King (`K`).
    King,
    /// Knight + bishop (10 files only).
    Archbishop,
    /// Knight + rook (10 files only).
    Chancellor,
}

impl Role {
    /// The upper-case FEN letter.
    pub fn upper(self) -> u8 {
        match self {
            Role::Pawn => b'P',
            Role::Knight => b'N',
            Role::Bishop => b'B',
            Role::Rook => b'R',
            Role::Queen => b'Q',
            Role::King => b'K',
            Role::Archbishop => b'A',
            Role::Chancellor => b'C',
        }
    }

    /// The role's English name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
            Role::Archbishop => "archbishop",
            Role::Chancellor => "chancellor",
        }
    }
}

/// The roles that attack like a knight (the archbishop and chancellor too).
const KNIGHT_LEAPERS: [Role; 3] = [Role::Knight, Role::Archbishop, Role::Chancellor];
/// The roles that attack along diagonals.
const DIAGONAL_SLIDERS: [Role; 3] = [Role::Bishop, Role::Queen, Role::Archbishop];
/// The roles that attack along ranks and files.
const ORTHOGONAL_SLIDERS: [Role; 3] = [Role::Rook, Role::Queen, Role::Chancellor];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// A piece of one colour.
pub struct Piece {
    /// Its colour.
    pub color: Color,
    /// Its kind.
    pub role: Role,
}

impl Piece {
    /// Reads a FEN piece letter; `A` and `C` only when `wide`.
    pub fn from_fen(byte: u8, wide: bool) -> Option<Piece> {
        let color = if byte.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let role = match byte.to_ascii_uppercase() {
            b'P' => Role::Pawn,
            b'N' => Role::Knight,
            b'B' => Role::Bishop,
            b'R' => Role::Rook,
            b'Q' => Role::Queen,
            b'K' => Role::King,
            b'A' if wide => Role::Archbishop,
            b'C' if wide => Role::Chancellor,
            _ => return None,
        };
        Some(Piece { color, role })
    }

    /// The FEN letter: upper case for White, lower case for Black.
    pub fn fen_char(self) -> char {
        let upper = self.role.upper();
        match self.color {
            Color::White => char::from(upper),
            Color::Black => char::from(upper.to_ascii_lowercase()),
        }
    }

    /// `white knight` and the like, for messages.
    pub fn describe(self) -> String {
        format!("a {} {}", self.color.name(), self.role.name())
    }
}

/// A square of a board of up to 10 files; `file` and `rank` are 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Square {
    /// File, from 0 (`a`).
    pub file: u8,
    /// Rank, from 0 (the first rank).
    pub rank: u8,
}

impl Square {
    /// The square on `file` and `rank`, both from 0.
    pub fn new(file: u8, rank: u8) -> Square {
        Square { file, rank }
    }

    /// The same square in shakmaty (8×8 only).
    ///
    /// # Panics
    ///
    /// When `file` or `rank` is 8 or more (a square of no 8×8 board: the
    /// squares of an analysed 8×8 position never are).
    pub fn to_shakmaty(self) -> shakmaty::Square {
        shakmaty::Square::from_coords(
            shakmaty::File::new(u32::from(self.file)),
            shakmaty::Rank::new(u32::from(self.rank)),
        )
    }
}

impl fmt::Display for Square {
    /// `e4`; a file past `z` (no board has one) as `#N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.file {
            0..26 => write!(f, "{}", char::from(b'a' + self.file))?,
            file => write!(f, "#{file}")?,
        }
        write!(f, "{}", u16::from(self.rank) + 1)
    }
}

/// A placement on 8 or 10 files: one bitboard (bit `rank * files + file`) per
/// colour and per role.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    size: BoardSize,
    by_color: [u128; 2],
    by_role: [u128; 8],
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        super::write::write_placement(self, &mut s);
        write!(f, "Board({s})")
    }
}

const ROLES: [Role; 8] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
    Role::Archbishop,
    Role::Chancellor,
];

/// The set bits of `bits`, lowest first.
fn bits(mut bits: u128) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            Some(i)
        }
    })
}

const KNIGHT_STEPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const DIAGONALS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const ORTHOGONALS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

impl Board {
    /// An empty board of `size`.
    pub fn empty(size: BoardSize) -> Board {
        Board {
            size,
            by_color: [0; 2],
            by_role: [0; 8],
        }
    }

    /// The board's size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Files on the board: 8 or 10.
    pub fn files(&self) -> u8 {
        match self.size {
            BoardSize::Eight => 8,
            BoardSize::Ten => 10,
        }
    }

    fn bit(&self, sq: Square) -> u128 {
        let files = self.files();
        if sq.file < files && sq.rank < 8 {
            1u128 << (u32::from(sq.rank) * u32::from(files) + u32::from(sq.file))
        } else {
            0
        }
    }

    fn square_of(&self, index: u32) -> Square {
        let files = u32::from(self.files());
        Square::new((index % files) as u8, (index / files) as u8)
    }

    fn rank_mask(&self, rank: u8) -> u128 {
        let files = u32::from(self.files());
        ((1u128 << files) - 1) << (u32::from(rank) * files)
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = self.bit(sq);
        let color = if self.by_color[0] & bit != 0 {
            Color::White
        } else if self.by_color[1] & bit != 0 {
            Color::Black
        } else {
            return None;
        };
        let role = ROLES
            .into_iter()
            .zip(self.by_role)
            .find(|(_, b)| b & bit != 0)
            .map(|(r, _)| r)?;
        Some(Piece { color, role })
    }

    /// Puts `piece` on `sq` (`None` empties it). A square off this board
    /// (`Square::new(8, 0)` on 8×8) changes nothing. An archbishop or a
    /// chancellor may be put on an 8×8 board: it is written with its letter,
    /// and such a FEN is read back as invalid (those pieces are 10×8's).
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        let bit = self.bit(sq);
        for b in self.by_color.iter_mut().chain(self.by_role.iter_mut()) {
            *b &= !bit;
        }
        if let Some(p) = piece {
            self.by_color[p.color.index()] |= bit;
            self.by_role[p.role as usize] |= bit;
        }
    }

    /// The FEN letter of each square (index `rank * files + file`), 0 when empty.
    pub fn letters(&self) -> [u8; 80] {
        let mut letters = [0u8; 80];
        if self.size == BoardSize::Eight {
            // 64-bit boards: a piece costs a bit scan and a store, with no
            // bounds test. A FEN read has no archbishop or chancellor on 8
            // files, but `set` may have put one there: its letter is written
            // too (with `take(6)` the square came out as a NUL byte).
            let white = self.by_color[0] as u64;
            for (role, &bb) in ROLES.iter().zip(&self.by_role) {
                let upper = role.upper();
                for (mut bits, letter) in [
                    (bb as u64 & white, upper),
                    (bb as u64 & !white, upper | 0x20),
                ] {
                    while bits != 0 {
                        letters[bits.trailing_zeros() as usize & 63] = letter;
                        bits &= bits - 1;
                    }
                }
            }
            return letters;
        }
        for (color, case) in [(0, 0u8), (1, 0x20)] {
            for (role, &bb) in ROLES.iter().zip(&self.by_role) {
                for i in bits(bb & self.by_color[color]) {
                    if let Some(l) = letters.get_mut(i as usize) {
                        *l = role.upper() | case;
                    }
                }
            }
        }
        letters
    }

    /// The occupied squares, one bit each (`rank * files + file`).
    pub(crate) fn occupied(&self) -> u128 {
        self.by_color[0] | self.by_color[1]
    }

    /// An 8×8 board from 64-bit boards, roles in [`Role`] order (pawn to king).
    pub(crate) fn from_8x8(by_color: [u64; 2], by_role: [u64; 6]) -> Board {
        let mut board = Board::empty(BoardSize::Eight);
        for (to, from) in board.by_color.iter_mut().zip(by_color) {
            *to = u128::from(from);
        }
        for (to, from) in board.by_role.iter_mut().zip(by_role) {
            *to = u128::from(from);
        }
        board
    }

    /// A 10×8 board from one bitboard per colour and per role (bit
    /// `rank * 10 + file`; roles in [`Role`] order).
    pub(crate) fn from_10x8(by_color: [u128; 2], by_role: [u128; 8]) -> Board {
        Board {
            size: BoardSize::Ten,
            by_color,
            by_role,
        }
    }

    /// Puts `piece` on an empty square `index` (`rank * files + file`); for
    /// the parser, which fills each square once.
    pub(crate) fn put_new(&mut self, index: u32, piece: Piece) {
        if index < 80 {
            let bit = 1u128 << index;
            self.by_color[piece.color.index()] |= bit;
            self.by_role[piece.role as usize] |= bit;
        }
    }

    fn by_piece(&self, color: Color, role: Role) -> u128 {
        self.by_color[color.index()] & self.by_role[role as usize]
    }

    /// How many pieces of `color` and `role` stand on the board.
    pub(crate) fn count(&self, color: Color, role: Role) -> u32 {
        self.by_piece(color, role).count_ones()
    }

    /// The pieces of `color` and `role` on `color`'s back rank, bit `file`.
    pub(crate) fn on_back_rank(&self, color: Color, role: Role) -> u32 {
        let files = u32::from(self.files());
        let rank = u32::from(color.back_rank());
        ((self.by_piece(color, role) >> (rank * files)) & ((1u128 << files) - 1)) as u32
    }

    /// Every occupied square with its piece, rank 1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        bits(self.by_color[0] | self.by_color[1]).filter_map(move |i| {
            let sq = self.square_of(i);
            self.piece_at(sq).map(|p| (sq, p))
        })
    }

    /// The squares of `color`'s kings (none, one or more).
    pub fn kings(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        bits(self.by_piece(color, Role::King)).map(|i| self.square_of(i))
    }

    /// The square of `color`'s king when there is exactly one.
    pub fn king_of(&self, color: Color) -> Option<Square> {
        let kings = self.by_piece(color, Role::King);
        (kings.count_ones() == 1).then(|| self.square_of(kings.trailing_zeros()))
    }

    /// Pawns on the first or last rank.
    pub fn pawns_on_back_ranks(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        let mask = self.rank_mask(0) | self.rank_mask(7);
        bits(self.by_role[Role::Pawn as usize] & mask).filter_map(move |i| {
            let sq = self.square_of(i);
            self.piece_at(sq).map(|p| (sq, p))
        })
    }

    /// Files of `color`'s rooks on its back rank, a-file first.
    pub fn back_rank_rooks(&self, color: Color) -> impl Iterator<Item = u8> + '_ {
        let rank = color.back_rank();
        bits(self.by_piece(color, Role::Rook) & self.rank_mask(rank))
            .map(|i| self.square_of(i).file)
    }

    fn offset(&self, sq: Square, (df, dr): (i8, i8)) -> Option<Square> {
        let file = i16::from(sq.file) + i16::from(df);
        let rank = i16::from(sq.rank) + i16::from(dr);
        if (0..i16::from(self.files())).contains(&file) && (0..8).contains(&rank) {
            Some(Square::new(file as u8, rank as u8))
        } else {
            None
        }
    }

    /// Is `sq` attacked by a piece of `by`?
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        // Squares as bits and pieces as bitboards: no piece is looked up.
        let theirs = self.by_color[by.index()];
        let occupied = self.by_color[0] | self.by_color[1];
        let of =
            |roles: &[Role]| roles.iter().fold(0, |m, &r| m | self.by_role[r as usize]) & theirs;
        let near = |steps: &[(i8, i8)], attackers: u128| {
            attackers != 0
                && steps.iter().any(|&s| {
                    self.offset(sq, s)
                        .is_some_and(|t| self.bit(t) & attackers != 0)
                })
        };
        let pawn_dir = match by {
            Color::White => -1,
            Color::Black => 1,
        };
        if near(&[(-1, pawn_dir), (1, pawn_dir)], of(&[Role::Pawn]))
            || near(&KNIGHT_STEPS, of(&KNIGHT_LEAPERS))
            || near(&KING_STEPS, of(&[Role::King]))
        {
            return true;
        }
        for (dirs, sliders) in [
            (DIAGONALS, of(&DIAGONAL_SLIDERS)),
            (ORTHOGONALS, of(&ORTHOGONAL_SLIDERS)),
        ] {
            if sliders == 0 {
                continue;
            }
            for dir in dirs {
                let mut cur = sq;
                while let Some(next) = self.offset(cur, dir) {
                    let bit = self.bit(next);
                    if occupied & bit != 0 {
                        if sliders & bit != 0 {
                            return true;
                        }
                        break;
                    }
                    cur = next;
                }
            }
        }
        false
    }

    /// The same placement as a shakmaty board (8×8 only).
    pub fn to_shakmaty(&self) -> Option<shakmaty::Board> {
        use shakmaty::{Bitboard, ByColor, ByRole};
        if self.size != BoardSize::Eight
            || self.by_role[Role::Archbishop as usize] | self.by_role[Role::Chancellor as usize]
                != 0
        {
            return None;
        }
        let bb = |role: Role| Bitboard(self.by_role[role as usize] as u64);
        let by_role = ByRole {
            pawn: bb(Role::Pawn),
            knight: bb(Role::Knight),
            bishop: bb(Role::Bishop),
            rook: bb(Role::Rook),
            queen: bb(Role::Queen),
            king: bb(Role::King),
        };
        let by_color = ByColor {
            black: Bitboard(self.by_color[1] as u64),
            white: Bitboard(self.by_color[0] as u64),
        };
        shakmaty::Board::try_from_bitboards(by_role, by_color).ok()
    }

    /// The placement has the shape of a Chess960 start array: 8 files, the white
    /// pieces exactly on ranks 1–2, the black ones exactly on ranks 7–8, the
    /// pawns exactly on ranks 2 and 7. Three comparisons that rule out almost
    /// every other position before a square-by-square test.
    pub fn has_start_shape(&self) -> bool {
        self.size == BoardSize::Eight && self.has_start_shape_any_width()
    }

    /// The roles of the white back rank, a-file first, when the placement has
    /// the start shape ([`Self::has_start_shape`]) and the black back rank
    /// mirrors it piece for piece: read from the bitboards, one role at a time.
    pub fn mirrored_back_rank(&self) -> Option<[Role; 8]> {
        if !self.has_start_shape() {
            return None;
        }
        let mut array = [Role::Pawn; 8];
        let mut filled = 0u128;
        for role in ROLES.into_iter().skip(1) {
            let white = self.by_role[role as usize] & 0xFF;
            if white != (self.by_role[role as usize] >> 56) & 0xFF {
                return None;
            }
            filled |= white;
            for file in bits(white) {
                array[file as usize] = role;
            }
        }
        // The shape puts a piece on every back-rank square, so every file was filled.
        (filled == 0xFF).then_some(array)
    }

    /// The start shape on either width: full back ranks, full pawn ranks in
    /// front of them, nothing between ([`Self::has_start_shape`] is this on 8
    /// files).
    pub(crate) fn has_start_shape_any_width(&self) -> bool {
        let width = u32::from(self.files());
        let full = (1u128 << width) - 1;
        let row = |rank: u32| full << (rank * width);
        self.by_color[0] == row(0) | row(1)
            && self.by_color[1] == row(6) | row(7)
            && self.by_role[Role::Pawn as usize] == row(1) | row(6)
    }

    /// The letters of the two back ranks (white's upper case, black's lower
    /// case, a-file first; the first [`Self::files`] of each) when the
    /// placement has the start shape on either width: full back ranks, full
    /// pawn ranks in front of them, nothing between.
    pub(crate) fn start_back_ranks(&self) -> Option<([u8; 10], [u8; 10])> {
        if !self.has_start_shape_any_width() {
            return None;
        }
        let width = u32::from(self.files());
        let full = (1u128 << width) - 1;
        // Every back-rank square holds a piece other than a pawn.
        let mut white = [0u8; 10];
        let mut black = [0u8; 10];
        for role in ROLES.into_iter().skip(1) {
            let board = self.by_role[role as usize];
            for (letters, mut files, case) in [
                (&mut white, (board & full) as u32, 0),
                (&mut black, (board >> (7 * width) & full) as u32, 0x20),
            ] {
                while files != 0 {
                    letters[files.trailing_zeros() as usize] = role.upper() | case;
                    files &= files - 1;
                }
            }
        }
        Some((white, black))
    }

    /// The white back rank as one mask of files per role (knight to king),
    /// when the placement has the start shape ([`Self::has_start_shape`])
    /// and the black back rank mirrors it piece for piece.
    pub(crate) fn mirrored_back_rank_masks(&self) -> Option<super::chess960::BackRank> {
        if !self.has_start_shape() {
            return None;
        }
        let white = |role: Role| {
            let board = self.by_role[role as usize];
            let (white, black) = (board as u8, (board >> 56) as u8);
            (white == black).then_some(white)
        };
        Some(super::chess960::BackRank {
            knights: white(Role::Knight)?,
            bishops: white(Role::Bishop)?,
            rooks: white(Role::Rook)?,
            queens: white(Role::Queen)?,
            kings: white(Role::King)?,
        })
    }

    /// [`Board::standard`] as a constant, for comparisons (a test holds the two equal).
    pub(crate) const STANDARD: Board = Board {
        size: BoardSize::Eight,
        by_color: [0xFFFF, 0xFFFF << 48],
        by_role: [
            0xFF << 8 | 0xFF << 48,
            0x42 | 0x42 << 56,
            0x24 | 0x24 << 56,
            0x81 | 0x81 << 56,
            0x08 | 0x08 << 56,
            0x10 | 0x10 << 56,
            0,
            0,
        ],
    };

    /// The 8×8 standard initial placement.
    pub fn standard() -> Board {
        let mut board = Board::empty(BoardSize::Eight);
        let back = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        for (file, role) in (0u8..).zip(back) {
            board.set(
                Square::new(file, 0),
                Some(Piece {
                    color: Color::White,
                    role,
                }),
            );
            board.set(
                Square::new(file, 7),
                Some(Piece {
                    color: Color::Black,
                    role,
                }),
            );
            board.set(
                Square::new(file, 1),
                Some(Piece {
                    color: Color::White,
                    role: Role::Pawn,
                }),
            );
            board.set(
                Square::new(file, 6),
                Some(Piece {
                    color: Color::Black,
                    role: Role::Pawn,
                }),
            );
        }
        board
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_piece_set_on_an_eight_file_board_has_its_letter() {
        let mut board = Board::empty(BoardSize::Eight);
        let pieces = [
            (Square::new(0, 0), Color::White, Role::Archbishop),
            (Square::new(7, 7), Color::Black, Role::Chancellor),
            (Square::new(4, 0), Color::White, Role::King),
        ];
        for (sq, color, role) in pieces {
            board.set(sq, Some(Piece { color, role }));
        }
        // Off the board: nothing changes.
        let before = board;
        board.set(
            Square::new(8, 0),
            Some(Piece {
                color: Color::White,
                role: Role::Queen,
            }),
        );
        assert_eq!(board, before);
        let letters = board.letters();
        assert_eq!((letters[0], letters[63], letters[4]), (b'A', b'c', b'K'));
        assert_eq!(letters[..64].iter().filter(|&&l| l != 0).count(), 3);
    }

    proptest! {
        /// In the start shape, with any pieces on the back ranks, no square
        /// of either side's back rank is attacked by the other side: the
        /// 10×8 judge needs not look for a check there.
        #[test]
        fn the_start_shape_attacks_no_back_rank(
            ten in any::<bool>(),
            white in proptest::collection::vec(1usize..8, 10),
            black in proptest::collection::vec(1usize..8, 10),
        ) {
            let size = if ten { BoardSize::Ten } else { BoardSize::Eight };
            let mut board = Board::empty(size);
            let files = board.files();
            for file in 0..files {
                for (color, rank, role) in [
                    (Color::White, 0, ROLES[white[usize::from(file)]]),
                    (Color::White, 1, Role::Pawn),
                    (Color::Black, 6, Role::Pawn),
                    (Color::Black, 7, ROLES[black[usize::from(file)]]),
                ] {
                    // The compounds only on 10 files.
                    let role = if ten || (role as usize) < 6 { role } else { Role::Knight };
                    board.set(Square::new(file, rank), Some(Piece { color, role }));
                }
            }
            prop_assert!(board.has_start_shape_any_width());
            for file in 0..files {
                prop_assert!(!board.is_attacked(Square::new(file, 7), Color::White));
                prop_assert!(!board.is_attacked(Square::new(file, 0), Color::Black));
            }
        }
    }

    fn put(board: &mut Board, sq: &str, c: u8) {
        let b = sq.as_bytes();
        board.set(
            Square::new(b[0] - b'a', b[1] - b'1'),
            Piece::from_fen(c, true),
        );
    }

    #[test]
    fn archbishop_and_chancellor_attack_like_compounds() {
        let mut b = Board::empty(BoardSize::Ten);
        put(&mut b, "a1", b'A');
        assert!(b.is_attacked(Square::new(1, 2), Color::White)); // b3: knight jump
        assert!(b.is_attacked(Square::new(7, 7), Color::White)); // h8: diagonal
        assert!(!b.is_attacked(Square::new(0, 7), Color::White)); // a8: not a rook
        let mut b = Board::empty(BoardSize::Ten);
        put(&mut b, "j1", b'c');
        assert!(b.is_attacked(Square::new(9, 7), Color::Black)); // j8
        assert!(b.is_attacked(Square::new(8, 2), Color::Black)); // i3 knight jump
        assert!(!b.is_attacked(Square::new(8, 1), Color::Black)); // i2
        put(&mut b, "j4", b'P');
        assert!(!b.is_attacked(Square::new(9, 7), Color::Black)); // blocked
    }

    #[test]
    fn pawns_attack_forward_diagonally() {
        let mut b = Board::empty(BoardSize::Eight);
        put(&mut b, "e4", b'P');
        assert!(b.is_attacked(Square::new(3, 4), Color::White));
        assert!(!b.is_attacked(Square::new(3, 2), Color::White));
        put(&mut b, "e5", b'p');
        assert!(b.is_attacked(Square::new(5, 3), Color::Black));
    }

    #[test]
    fn start_shape() {
        assert!(Board::standard().has_start_shape());
        let mut b = Board::standard();
        put(&mut b, "e4", b'P');
        assert!(!b.has_start_shape());
        let mut b = Board::standard();
        put(&mut b, "e2", b'N');
        assert!(!b.has_start_shape());
        let mut b = Board::standard();
        put(&mut b, "e8", b'K');
        assert!(!b.has_start_shape());
        assert!(!Board::empty(BoardSize::Ten).has_start_shape());
        use Role::*;
        assert_eq!(
            Board::standard().mirrored_back_rank(),
            Some([Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook])
        );
        let mut b = Board::standard();
        put(&mut b, "d8", b'k');
        put(&mut b, "e8", b'q');
        assert!(b.has_start_shape() && b.mirrored_back_rank().is_none());
    }

    /// The 8×8 branch of `letters` agrees with the general one (the board
    /// read as 10 files wide, then its squares renumbered).
    #[test]
    fn letters_on_8_files_agree_with_the_general_loop() {
        let mut b = Board::standard();
        for (sq, c) in [("e4", b'P'), ("d5", b'q'), ("h8", b'K'), ("a1", b'n')] {
            put(&mut b, sq, c);
        }
        for board in [b, Board::standard(), Board::empty(BoardSize::Eight)] {
            let mut wide = Board::empty(BoardSize::Ten);
            for (sq, p) in board.pieces() {
                wide.set(sq, Some(p));
            }
            let (fast, general) = (board.letters(), wide.letters());
            for rank in 0..8 {
                assert_eq!(
                    fast[rank * 8..rank * 8 + 8],
                    general[rank * 10..rank * 10 + 8]
                );
            }
            assert!(fast[64..].iter().all(|&l| l == 0));
        }
    }

    #[test]
    fn standard_constant_is_the_standard_board() {
        assert_eq!(Board::STANDARD, Board::standard());
    }

    #[test]
    fn standard_board_converts_to_shakmaty() {
        assert_eq!(
            Board::standard().to_shakmaty(),
            Some(shakmaty::Board::new())
        );
    }
}
