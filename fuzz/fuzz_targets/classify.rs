//! `cargo fuzz run classify`: the verdict on arbitrary SetUp/FEN/Variant tags
//! never panics and is `malformed` exactly when an error was found; a Chess960
//! number goes only with class `chess960` and names a real start array; the
//! FEN the verdict rests on is a FEN tag whose analysis is the one
//! `fen::analyse` gives; every problem points into its tag's value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::class::Class;
use pgnfen::classify::{TagInput, classify};
use pgnfen::fen::Position;
use pgnfen::pgn::scan::TagName;

fuzz_target!(|data: &[u8]| {
    // Tags separated by 0xFF; the first byte of each picks its name.
    let tags: Vec<TagInput<'_>> = data
        .split(|&b| b == 0xFF)
        .filter_map(|t| t.split_first())
        .map(|(&k, raw)| TagInput {
            name: match k % 3 {
                0 => TagName::SetUp,
                1 => TagName::Fen,
                _ => TagName::Variant,
            },
            raw,
        })
        .collect();
    let v = classify(&tags);
    assert_eq!(v.class == Class::Malformed, v.has_error());
    for p in &v.problems {
        assert!(p.tag < tags.len());
        let span = &p.problem.span;
        assert!(
            span.start <= span.end && span.end <= tags[p.tag].raw.len() + 1,
            "{p:?}"
        );
    }
    if let Some(n) = v.chess960_position {
        assert_eq!(v.class, Class::Chess960);
        let start = Position::chess960_start(n).expect("a start array number");
        assert_eq!(start.chess960_number(), Some(n));
    }
    if let Some((i, analysis)) = &v.fen {
        assert!(matches!(tags[*i].name, TagName::Fen));
        if v.class != Class::Malformed {
            assert!(analysis.position.is_some() || v.class == Class::Other);
        }
    }
});
