//! `cargo fuzz run fen`: the FEN model never panics, a valid record written in
//! any dialect reads back as the same position, and every problem span lies
//! inside the record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::fen::{Dialect, EpPolicy, VariantHint, analyse};

fuzz_target!(|data: &[u8]| {
    for hint in [VariantHint::StandardLike, VariantHint::Chess960, VariantHint::Capablanca] {
        let a = analyse(data, hint);
        for p in &a.problems {
            assert!(p.span.start <= p.span.end && p.span.end <= data.len() + 1, "{p:?}");
        }
        assert_eq!(a.position.is_some(), !a.problems.iter().any(|p| p.is_error()));
        let Some(position) = a.position else { continue };
        for dialect in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
            for ep in [None, Some(EpPolicy::AsIs), Some(EpPolicy::PseudoLegal), Some(EpPolicy::Legal)] {
                if let Ok(text) = position.write(dialect, ep) {
                    let back = analyse(text.as_bytes(), hint);
                    assert!(back.position.is_some(), "{text} does not read back");
                    assert_eq!(back.board, a.board);
                }
            }
        }
    }
});
