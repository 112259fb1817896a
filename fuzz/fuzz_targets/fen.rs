//! `cargo fuzz run fen`: the FEN model never panics, every problem span lies
//! inside the record, and a valid record written in any dialect with any en
//! passant policy reads back as the whole same position — placement, side to
//! move, castling rights as rook files, the `s`/`m` prefix, clocks, and the en
//! passant square as the policy says — with the same class, and writing the
//! read-back again gives the same text. A writer that got the pieces, the
//! castling or the clocks wrong fails here. Writing with the fields copied
//! from the record (`Analysis::write_into`) gives what writing them gives.
//!
//! Run with a raised length cap so that long records (10,000-character castling
//! fields, runs of spaces) are tried: `-max_len=16384` (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::fen::board::{Color, Piece, Role, Square};
use pgnfen::fen::{Dialect, EpPolicy, Position, VariantHint, analyse};

/// Whether a pawn of the side to move stands beside the pawn that just moved
/// two squares past `ep` (the pseudo-legal rule, computed here independently of
/// the writer).
fn pseudo_legal(pos: &Position, ep: Square) -> bool {
    let pushed_rank = match pos.turn {
        Color::White => ep.rank.wrapping_sub(1),
        Color::Black => ep.rank + 1,
    };
    let pawn = Piece {
        color: pos.turn,
        role: Role::Pawn,
    };
    [ep.file.wrapping_sub(1), ep.file + 1]
        .into_iter()
        .filter(|&f| f < pos.board.files())
        .any(|f| pos.board.piece_at(Square::new(f, pushed_rank)) == Some(pawn))
}

fuzz_target!(|data: &[u8]| {
    for hint in [
        VariantHint::StandardLike,
        VariantHint::Chess960,
        VariantHint::Capablanca,
    ] {
        let a = analyse(data, hint);
        for p in &a.problems {
            assert!(
                p.span.start <= p.span.end && p.span.end <= data.len() + 1,
                "{p:?}"
            );
        }
        assert_eq!(
            a.position.is_some(),
            !a.problems.iter().any(|p| p.is_error())
        );
        // `parse` is `analyse` without a Variant tag: its position, or its
        // first error.
        if hint == VariantHint::StandardLike
            && let Ok(text) = std::str::from_utf8(data)
        {
            match text.parse::<Position>() {
                Ok(parsed) => assert_eq!(Some(&parsed), a.position.as_ref()),
                Err(problem) => {
                    assert_eq!(Some(&problem), a.problems.iter().find(|p| p.is_error()))
                }
            }
        }
        let Some(position) = &a.position else {
            continue;
        };
        for dialect in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
            for ep in [
                None,
                Some(EpPolicy::AsIs),
                Some(EpPolicy::PseudoLegal),
                Some(EpPolicy::Legal),
            ] {
                // Copying the fields the record holds in the writers' form
                // writes what writing them does.
                let mut copied = String::new();
                let copied = a
                    .write_into(data, dialect, ep, &mut copied)
                    .map(|r| r.map(|()| copied));
                assert_eq!(
                    copied,
                    Some(position.write_read_from(data, dialect, ep)),
                    "{dialect:?}, {ep:?}"
                );
                let Ok(text) = position.write(dialect, ep) else {
                    continue;
                };
                let back = analyse(text.as_bytes(), hint);
                let Some(read) = &back.position else {
                    panic!(
                        "{text} ({dialect:?}) does not read back: {:?}",
                        back.problems
                    );
                };
                // What the policy keeps of the en passant square.
                let policy = ep.unwrap_or(match dialect {
                    Dialect::Xfen => EpPolicy::PseudoLegal,
                    _ => EpPolicy::AsIs,
                });
                match (policy, position.ep, read.ep) {
                    (_, None, got) => assert_eq!(got, None, "{text}"),
                    (EpPolicy::AsIs, want, got) => assert_eq!(got, want, "{text}"),
                    (EpPolicy::PseudoLegal, Some(sq), got) => {
                        let keep = pseudo_legal(&position, sq);
                        assert_eq!(got, keep.then_some(sq), "{text}");
                    }
                    (EpPolicy::Legal, Some(sq), got) => {
                        // A legal capture is a pseudo-legal one.
                        assert!(got.is_none() || (got == Some(sq) && pseudo_legal(&position, sq)));
                    }
                }
                let expected = Position {
                    ep: read.ep,
                    ..position.clone()
                };
                assert_eq!(read, &expected, "{text} ({dialect:?}, {ep:?})");
                assert_eq!(back.board, a.board);
                if read.ep == position.ep {
                    assert_eq!(back.class, a.class, "{text}");
                    assert_eq!(back.chess960_position, a.chess960_position, "{text}");
                }
                // A dialect's own output is a fixed point, and canonical.
                assert_eq!(read.write(dialect, ep).as_deref(), Ok(text.as_str()));
                assert!(
                    !back
                        .problems
                        .iter()
                        .any(|p| p.code.as_str() == "noncanonical"),
                    "{text}: {:?}",
                    back.problems
                );
            }
        }
    }
});
