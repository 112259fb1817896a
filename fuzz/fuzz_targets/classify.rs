//! `cargo fuzz run classify`: the verdict on arbitrary SetUp/FEN/Variant tags
//! never panics and is `malformed` exactly when an error was found.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::class::Class;
use pgnfen::classify::{TagInput, classify};
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
    }
});
