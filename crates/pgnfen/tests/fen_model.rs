//! Properties of the FEN model: the 960 start arrays, write/analyse round trips
//! for generated legal positions (8×8 by random play with shakmaty, 10×8 by
//! random placement), and no panic on random bytes.

use pgnfen::class::Class;
use pgnfen::fen::{Dialect, EpPolicy, Position, VariantHint, analyse};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position as _, Setup, fen::Fen};

const DIALECTS: [Dialect; 3] = [Dialect::Fen, Dialect::Xfen, Dialect::Shredder];

#[test]
fn all_960_start_arrays_round_trip() {
    for n in 0..960u16 {
        let p = Position::chess960_start(n).expect("start array");
        assert_eq!(p.chess960_number(), Some(n));
        for d in DIALECTS {
            let s = p
                .write(d, None)
                .expect("a start array is writable in every dialect");
            for hint in [VariantHint::StandardLike, VariantHint::Chess960] {
                let a = analyse(s.as_bytes(), hint);
                assert!(a.problems.is_empty(), "{s}: {:?}", a.problems);
                assert_eq!(a.chess960_position, Some(n), "{s}");
                assert_eq!(a.position.as_ref(), Some(&p), "{s}");
                let expected = if n == 518 && hint == VariantHint::StandardLike {
                    Class::Standard
                } else {
                    Class::Chess960
                };
                assert_eq!(a.class, expected, "{s}");
            }
        }
    }
}

/// Every dialect that can write `p` gives it back (en passant as-is), and the
/// default policies write something that reads back as valid.
fn round_trips(p: &Position, hint: VariantHint) -> Result<(), TestCaseError> {
    for d in DIALECTS {
        if let Ok(s) = p.write(d, Some(EpPolicy::AsIs)) {
            let a = analyse(s.as_bytes(), hint);
            prop_assert_eq!(a.position.as_ref(), Some(p), "{} in {:?}", s, d);
        }
        for policy in [None, Some(EpPolicy::PseudoLegal), Some(EpPolicy::Legal)] {
            if let Ok(s) = p.write(d, policy) {
                let a = analyse(s.as_bytes(), hint);
                let q = a.position.as_ref();
                prop_assert!(q.is_some(), "{} in {:?}: {:?}", s, d, a.problems);
                if let Some(q) = q {
                    prop_assert_eq!(
                        &Position {
                            ep: None,
                            ..q.clone()
                        },
                        &Position {
                            ep: None,
                            ..p.clone()
                        }
                    );
                }
            }
        }
    }
    Ok(())
}

fn random_play(start: Chess, seed: u64, plies: usize) -> Chess {
    let mut pos = start;
    let mut state = seed | 1;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let m = moves[(state % moves.len() as u64) as usize];
        pos.play_unchecked(m);
    }
    pos
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        // Beside this file: proptest's default looks for it from the working
        // directory, which for a workspace member is not the repository root.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fen_model.proptest-regressions"
        )))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn standard_games_round_trip(seed in any::<u64>(), plies in 0usize..120) {
        let pos = random_play(Chess::new(), seed, plies);
        for mode in [EnPassantMode::Always, EnPassantMode::Legal] {
            let fen = Fen::from_position(&pos, mode).to_string();
            let a = analyse(fen.as_bytes(), VariantHint::StandardLike);
            let p = a.position.clone();
            prop_assert!(p.is_some(), "{}: {:?}", fen, a.problems);
            if let Some(p) = p {
                prop_assert!(a.class == Class::Standard || a.class == Class::Setup);
                round_trips(&p, VariantHint::StandardLike)?;
            }
        }
    }

    #[test]
    fn chess960_games_round_trip(n in 0u32..960, seed in any::<u64>(), plies in 0usize..120) {
        let mut setup = Setup::empty();
        setup.board = shakmaty::Board::chess960(n);
        setup.castling_rights = setup.board.rooks() & shakmaty::Bitboard::BACKRANKS;
        let start = Chess::from_setup(setup, CastlingMode::Chess960).expect("start array");
        let pos = random_play(start, seed, plies);
        let fen = Fen::from_position(&pos, EnPassantMode::Always).to_string();
        for hint in [VariantHint::Chess960, VariantHint::StandardLike] {
            let a = analyse(fen.as_bytes(), hint);
            let p = a.position.clone();
            prop_assert!(p.is_some(), "{}: {:?}", fen, a.problems);
            if let Some(p) = p {
                round_trips(&p, hint)?;
            }
        }
    }

    #[test]
    fn wide_positions_round_trip(
        cells in proptest::collection::vec(0u8..120, 80),
        kings in (0usize..80, 0usize..80),
        black in any::<bool>(),
        castling in proptest::collection::vec(0u8..10, 0..4),
        ep_file in proptest::option::of(0u8..10),
    ) {
        let fen = wide_fen(&cells, kings, black, &castling, ep_file);
        let a = analyse(fen.as_bytes(), VariantHint::Capablanca);
        if let Some(p) = a.position {
            prop_assert_eq!(a.class, Class::Crc);
            round_trips(&p, VariantHint::Capablanca)?;
            round_trips(&p, VariantHint::StandardLike)?;
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let a = analyse(&bytes, VariantHint::StandardLike);
        prop_assert_eq!(a.position.is_some(), !a.problems.iter().any(|p| p.is_error()));
        for p in &a.problems {
            prop_assert!(p.span.start <= p.span.end && p.span.end <= bytes.len());
        }
    }

    #[test]
    fn mutated_fens_never_panic(
        pos in 0usize..80,
        byte in proptest::sample::select(b"pnbrqkacPNBRQKAC0123456789/ -wbKQkqsmABGHJaghj\t".to_vec()),
        delete in any::<bool>(),
    ) {
        let base = b"r1bqkbcnar/pppppppppp/10/10/4P5/10/PPPP1PPPPP/R1BQKBCNAR b KQkq e3 0 1";
        let mut fen = base.to_vec();
        let i = pos % fen.len();
        if delete { fen.remove(i); } else { fen[i] = byte; }
        for hint in [VariantHint::StandardLike, VariantHint::Chess960, VariantHint::Capablanca] {
            let a = analyse(&fen, hint);
            if let Some(p) = a.position {
                for d in DIALECTS {
                    let _ = p.write(d, Some(EpPolicy::Legal));
                }
            }
        }
    }
}

/// A 10×8 FEN from random cells: one king a side (squares chosen by `kings`),
/// no pawns on the first or last rank, castling letters by file, maybe an en
/// passant square with the pawn that made it.
fn wide_fen(
    cells: &[u8],
    kings: (usize, usize),
    black: bool,
    castling: &[u8],
    ep_file: Option<u8>,
) -> String {
    let mut board = [None::<char>; 80];
    for (i, &c) in cells.iter().enumerate() {
        let rank = i / 10;
        let piece = match c {
            0..=1 => 'p',
            2..=3 => 'P',
            4 => 'n',
            5 => 'N',
            6 => 'b',
            7 => 'B',
            8 => 'r',
            9 | 10 => 'R',
            11 => 'q',
            12 => 'Q',
            13 => 'a',
            14 => 'A',
            15 => 'c',
            16 => 'C',
            _ => continue,
        };
        if piece.eq_ignore_ascii_case(&'p') && (rank == 0 || rank == 7) {
            continue;
        }
        board[i] = Some(piece);
    }
    // Kings: white on rank 1 or anywhere, black likewise.
    let wk = kings.0 % 10;
    let bk = 70 + kings.1 % 10;
    board[wk] = Some('K');
    board[bk] = Some('k');
    let turn = if black { 'b' } else { 'w' };
    let mut ep = "-".to_owned();
    if let Some(f) = ep_file {
        let f = usize::from(f);
        let (pushed, over, from) = if black {
            (30 + f, 20 + f, 10 + f)
        } else {
            (40 + f, 50 + f, 60 + f)
        };
        if ![pushed, over, from].contains(&wk) && ![pushed, over, from].contains(&bk) {
            board[pushed] = Some(if black { 'P' } else { 'p' });
            board[over] = None;
            board[from] = None;
            ep = format!("{}{}", char::from(b'a' + f as u8), over / 10 + 1);
        }
    }
    let mut rights = String::new();
    for &f in castling {
        let white = f % 2 == 0;
        let sq = if white {
            usize::from(f)
        } else {
            70 + usize::from(f)
        };
        if board[sq].is_none_or(|p| !p.eq_ignore_ascii_case(&'k')) {
            board[sq] = Some(if white { 'R' } else { 'r' });
            let letter = char::from(b'A' + f);
            rights.push(if white {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
        }
    }
    let mut placement = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..10 {
            match board[rank * 10 + file] {
                Some(p) => {
                    if empty > 0 {
                        placement.push_str(&empty.to_string());
                        empty = 0;
                    }
                    placement.push(p);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            placement.push_str(&empty.to_string());
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    if rights.is_empty() {
        rights.push('-');
    }
    format!("{placement} {turn} {rights} {ep} 3 17")
}

#[test]
fn wide_generator_makes_valid_positions() {
    // Sanity check of the generator: a sparse board is valid.
    let cells = vec![39u8; 80];
    let fen = wide_fen(&cells, (5, 5), false, &[0, 9, 1], Some(4));
    let a = analyse(fen.as_bytes(), VariantHint::StandardLike);
    assert!(a.position.is_some(), "{fen}: {:?}", a.problems);
}

#[test]
fn wide_generator_validity_rate() {
    let mut valid = 0;
    let mut state = 12345u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..1000 {
        let cells: Vec<u8> = (0..80).map(|_| (next() % 120) as u8).collect();
        let castling: Vec<u8> = (0..(next() % 4)).map(|_| (next() % 10) as u8).collect();
        let ep = if next() % 2 == 0 {
            Some((next() % 10) as u8)
        } else {
            None
        };
        let fen = wide_fen(
            &cells,
            ((next() % 80) as usize, (next() % 80) as usize),
            next() % 2 == 0,
            &castling,
            ep,
        );
        if analyse(fen.as_bytes(), VariantHint::Capablanca)
            .position
            .is_some()
        {
            valid += 1;
        }
    }
    println!("valid wide positions: {valid} of 1000");
    assert!(valid > 200);
}
