//! `cargo fuzz run scan`: the scanner must not panic, and must report the same
//! events whether the input comes whole or in pieces (sizes taken from the
//! first input byte).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::pgn::scan::{CutFit, Scanner};

fuzz_target!(|data: &[u8]| {
    let Some((&k, data)) = data.split_first() else {
        return;
    };
    let mut whole = Vec::new();
    let mut s = Scanner::new();
    s.feed(data, &mut whole);
    let _ = s.fits_cut();
    s.finish(&mut whole);

    let step = 1 + (k as usize % 13);
    let mut split = Vec::new();
    let mut s = Scanner::new();
    for p in data.chunks(step) {
        s.feed(p, &mut split);
    }
    s.finish(&mut split);
    assert_eq!(whole, split);

    // A speculative scanner never panics either.
    let mut sp = Scanner::at_cut(12345);
    let mut ev = Vec::new();
    sp.feed(data, &mut ev);
    assert!(matches!(
        sp.fits_cut(),
        CutFit::NewGame | CutFit::SameGame | CutFit::Rescan
    ));
    sp.finish(&mut ev);
});
