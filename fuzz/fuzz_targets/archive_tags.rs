//! `cargo fuzz run archive_tags`: the library's fast tag reader (what
//! `Archive::games()` and Python's `headers` read each game's pairs with)
//! against the scanner's own pairs (`Scanner::with_all_pairs`), game by game:
//! the same games at the same offsets, the same names and values. The games
//! are also read in turn by `LastHeader` (Python's `headers` reads them so,
//! each header from its first line that differs from the game's before):
//! the same pairs, and the pairs it says are shared are the last game's.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pgnfen::Archive;
use pgnfen::pgn::scan::{Event, Scanner};
use pgnfen::pipeline::{Compression, Options};
use std::path::PathBuf;
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    if Compression::sniff(data) != Compression::None {
        return;
    }
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("pgnfen-fuzz-arch-{}.pgn", std::process::id()))
    });
    std::fs::write(path, data).unwrap();
    // Scanner's view.
    let mut s = Scanner::new().with_all_pairs();
    let mut ev = Vec::new();
    s.feed(data, &mut ev);
    s.finish(&mut ev);
    let sl = |r: &std::ops::Range<u64>| data[r.start as usize..r.end as usize].to_vec();
    // (offset, [(name, value)]) of each game, as the scanner reports them.
    type Pairs = Vec<(Vec<u8>, Vec<u8>)>;
    let mut games: Vec<(u64, Pairs)> = Vec::new();
    for e in &ev {
        match e {
            Event::GameStart { offset, .. } => games.push((*offset, Vec::new())),
            Event::Pair { name, value } => games.last_mut().unwrap().1.push((sl(name), sl(value))),
            _ => {}
        }
    }
    // No notes ("no PGN tag line found") on standard error: most inputs
    // have no tag line, and a line for each run buries the fuzzer's log.
    let mut options = Options::new(1);
    options.notes = false;
    options.chunk_sizes = (64, 4096.max(data.len() + 2));
    let arch = Archive::open([path]).unwrap().with_options(options);
    let got = match arch.games().collect::<Result<Vec<_>, _>>() {
        Ok(got) => got,
        // A few bytes that begin a compressed format's magic (`\xfd7z`, a
        // bzip2 head of up to 9 bytes) are a file cut short, refused as such,
        // not text.
        Err(e) if data.len() < 10 && e.to_string().contains("inside the magic bytes") => return,
        Err(e) => panic!("reads: {e:?}"),
    };
    assert_eq!(got.len(), games.len(), "game count");
    let mut last = pgnfen::internals::LastHeader::new();
    let mut pairs_before: &[(Vec<u8>, Vec<u8>)] = &[];
    for (g, (off, pairs)) in got.iter().zip(&games) {
        let shared = last.read(g);
        let read: Vec<(Vec<u8>, Vec<u8>)> = last
            .pairs()
            .map(|(a, b)| (a.to_vec(), b.to_vec()))
            .collect();
        assert_eq!(&read, pairs, "after the last game, at {off}");
        assert_eq!(&read[..shared], &pairs_before[..shared], "shared at {off}");
        pairs_before = pairs;
        assert_eq!(g.offset, *off);
        let read: Vec<(Vec<u8>, Vec<u8>)> = g
            .raw_tags()
            .map(|(a, b)| (a.to_vec(), b.to_vec()))
            .collect();
        assert_eq!(
            &read,
            pairs,
            "game at {off}: {:?}",
            String::from_utf8_lossy(g.raw())
        );
        let _ = g.headers();
        let _ = g.clock();
    }
});
