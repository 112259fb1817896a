//! `cargo fuzz run scan`: the scanner must not panic, and must report the same
//! events whether the input comes whole or in pieces (sizes taken from the
//! first input byte).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::pgn::scan::Scanner;

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

    // A speculative scanner never panics either. (Whether its events are
    // right is the pipeline target's oracle: runs cut into pieces of every
    // size, speculation included, against the whole input.)
    let mut sp = Scanner::at_cut(12345);
    let mut ev = Vec::new();
    sp.feed(data, &mut ev);
    let _ = sp.fits_cut();
    sp.finish(&mut ev);
});
