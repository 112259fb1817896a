//! `cargo fuzz run epd`: any line read as a FEN or EPD record never panics,
//! problem spans lie inside the line, and a valid record written in each
//! dialect reads back as the same position (castling rights, en passant, side,
//! clocks) with its operations byte for byte, and is written the same again
//! (`pgnfen::fen::epd::check_round_trip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::fen::{VariantHint, analyse_record, epd::check_round_trip};

fuzz_target!(|data: &[u8]| {
    let record = analyse_record(data, VariantHint::StandardLike);
    for p in &record.analysis.problems {
        assert!(
            p.span.start <= p.span.end && p.span.end <= data.len() + 1,
            "{p:?}"
        );
    }
    assert_eq!(
        record.analysis.position.is_some(),
        !record.analysis.problems.iter().any(|p| p.is_error())
    );
    if let Some(ops) = &record.operations {
        assert!(ops.start <= ops.end && ops.end == data.len());
    }
    if let Err(e) = check_round_trip(data) {
        panic!("{e}");
    }
});
