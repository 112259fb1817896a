//! `cargo fuzz run pipeline`: the whole streaming pipeline on PGN-ish input,
//! with chunk sizes, thread counts and mapping taken from the first bytes:
//!
//! * every byte of the input lies in exactly one game (games are contiguous
//!   and rebuild the input; an input of blank lines holds none);
//! * tiny chunks give the same games, classes, `check` findings and `convert`
//!   output as one big chunk, and `-j1` the same as `-j2`;
//! * every header's tag pairs as a job that reads them all gets them
//!   (`export`'s way: read where they lie, or copied when a piece of the
//!   input ends inside the header) are the same with tiny chunks as with one
//!   big chunk, and are the pairs the scanner reports for the game;
//! * `filter`'s kept and rest outputs, taken game by game in input order,
//!   rebuild the input;
//! * `convert` changes nothing but FEN tag values, and converting its output
//!   again changes nothing.
//!
//! Use the dictionary (`-dict=pgn.dict`) and `-max_len=16384` (fuzz/README.md).
#![no_main]

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pgnfen::class::Class;
use pgnfen::fen::Dialect;
use pgnfen::filter::Selection;
use pgnfen::internals::{
    self, CheckJob, ConvertJob, EditingSink, FilterJob, GameFacts, GameFindings, GameInfo, Header,
    Job, Sink, StatsJob,
};
use pgnfen::pipeline::{Compression, Input, Options};

/// Each game: (offset, first line, class, bytes).
#[derive(Debug, Default, PartialEq)]
struct Games(Vec<(u64, u64, Class, Vec<u8>)>);

impl Sink<GameFacts> for Games {
    fn begin_game(&mut self, info: &GameInfo, facts: GameFacts) -> io::Result<()> {
        self.0
            .push((info.offset, info.line, facts.class, Vec::new()));
        Ok(())
    }
    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        self.0
            .last_mut()
            .expect("bytes after a game began")
            .3
            .extend_from_slice(data);
        Ok(())
    }
}

/// Where `check` places each problem: (game, line, column, code).
#[derive(Debug, Default, PartialEq)]
struct Placed(Vec<(u64, u64, usize, &'static str)>);

impl Sink<GameFindings> for Placed {
    fn begin_game(&mut self, info: &GameInfo, game: GameFindings) -> io::Result<()> {
        for f in game.findings {
            self.0.push((
                info.index,
                f.line + info.line_delta,
                f.column,
                f.code.as_str(),
            ));
        }
        Ok(())
    }
    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn wants_bytes(&self) -> bool {
        false
    }
}

/// `filter --class ... -o kept --rest rest`, as the command's sink does it
/// (including the hand-over of consecutive games of one destination at once).
#[derive(Default)]
struct Split {
    kept: Vec<u8>,
    rest: Vec<u8>,
    to_kept: bool,
    keeps: Vec<bool>,
}

impl Sink<bool> for Split {
    fn begin_game(&mut self, _info: &GameInfo, keep: bool) -> io::Result<()> {
        self.to_kept = keep;
        self.keeps.push(keep);
        Ok(())
    }
    fn destination(&self, keep: &bool) -> Option<u8> {
        Some(u8::from(*keep))
    }
    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        if self.to_kept {
            &mut self.kept
        } else {
            &mut self.rest
        }
        .extend_from_slice(data);
        Ok(())
    }
}

/// Every tag pair of each header, as a job that asks for them all reads them.
struct PairsJob;

/// A header's pairs, (name, value), and how many were left out.
type HeaderPairs = (Vec<(Vec<u8>, Vec<u8>)>, u64);

impl Job for PairsJob {
    type Game = HeaderPairs;
    fn game(&self, header: &Header<'_>) -> HeaderPairs {
        let pairs = header
            .pairs()
            .map(|(name, value)| (name.to_vec(), value.to_vec()))
            .collect();
        (pairs, header.dropped_pairs())
    }
    fn all_pairs(&self) -> bool {
        true
    }
}

/// Each game's offset and pairs.
#[derive(Debug, Default, PartialEq)]
struct Pairs(Vec<(u64, HeaderPairs)>);

impl Sink<HeaderPairs> for Pairs {
    fn begin_game(&mut self, info: &GameInfo, pairs: HeaderPairs) -> io::Result<()> {
        self.0.push((info.offset, pairs));
        Ok(())
    }
    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn wants_bytes(&self) -> bool {
        false
    }
}

/// The pairs the scanner reports for each game of `input`, read whole.
fn scanned_pairs(input: &[u8]) -> Vec<(u64, Vec<(Vec<u8>, Vec<u8>)>)> {
    use pgnfen::pgn::scan::{Event, Scanner};
    let mut scanner = Scanner::new().with_all_pairs();
    let mut events = Vec::new();
    scanner.feed(input, &mut events);
    scanner.finish(&mut events);
    let slice = |r: &std::ops::Range<u64>| input[r.start as usize..r.end as usize].to_vec();
    let mut games: Vec<(u64, Vec<(Vec<u8>, Vec<u8>)>)> = Vec::new();
    for event in &events {
        match event {
            Event::GameStart { offset, .. } => games.push((*offset, Vec::new())),
            Event::Pair { name, value } => {
                if let Some(game) = games.last_mut() {
                    game.1.push((slice(name), slice(value)));
                }
            }
            _ => {}
        }
    }
    games
}

type How = (usize, (usize, usize), bool);

/// One thread, one chunk (inputs are at most `-max_len`, 16 KiB), read: the reference.
const BIG: How = (1, (1 << 16, 1 << 16), false);

fn try_run<J: Job, S: Sink<J::Game>>(
    path: &PathBuf,
    job: &J,
    mut sink: S,
    how: How,
) -> Result<S, pgnfen::pipeline::RunError> {
    let (threads, chunk_sizes, mmap) = how;
    let options = Options {
        mmap,
        chunk_sizes,
        // No notes on standard error: they bury the fuzzer's log.
        notes: false,
        ..Options::new(threads)
    };
    internals::run(&[Input::File(path.clone())], job, &mut sink, &options)?;
    Ok(sink)
}

fn run<J: Job, S: Sink<J::Game>>(path: &PathBuf, job: &J, sink: S, how: How) -> S {
    try_run(path, job, sink, how).expect("runs")
}

fn convert(path: &PathBuf, dialect: Dialect, how: How) -> Vec<u8> {
    let job = ConvertJob {
        dialect,
        ep: None,
        repair: false,
    };
    run(path, &job, EditingSink::new(Vec::new(), true), how).into_inner()
}

/// The input with the value of every FEN tag (`[FEN "..."]`, blanks allowed
/// around the name) replaced by a mark: what `convert` must leave unchanged.
fn without_fen_values(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        out.push(data[i]);
        if data[i] != b'[' {
            i += 1;
            continue;
        }
        let blanks = |mut j: usize| {
            while j < data.len() && matches!(data[j], b' ' | b'\t') {
                j += 1;
            }
            j
        };
        let name = blanks(i + 1);
        if !data[name..].starts_with(b"FEN") {
            i += 1;
            continue;
        }
        let quote = blanks(name + 3);
        if data.get(quote) != Some(&b'"') {
            i += 1;
            continue;
        }
        out.extend_from_slice(&data[i + 1..=quote]);
        out.extend_from_slice(b"\0VALUE\0");
        // The value ends at an unescaped quote or at the end of the line.
        let mut j = quote + 1;
        while j < data.len() && !matches!(data[j], b'"' | b'\n' | b'\r') {
            j += if data[j] == b'\\' && j + 1 < data.len() && matches!(data[j + 1], b'"' | b'\\') {
                2
            } else {
                1
            };
        }
        i = j;
    }
    out
}

fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("pgnfen-fuzz-{}.pgn", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let [a, b, c, d, input @ ..] = data else {
        return;
    };
    let threads = 1 + usize::from(a & 1);
    let mmap = a & 2 != 0;
    let dialect = [Dialect::Fen, Dialect::Xfen, Dialect::Shredder][usize::from(a >> 2) % 3];
    // Tiny chunks, but not thousands of them: each costs a task and a hand-over,
    // and a slow target explores little.
    let target = (1 + usize::from(*b) % 96).max(input.len() / 32);
    let max = target + usize::from(*c) * 4;
    let classes: Vec<Class> = Class::ALL
        .into_iter()
        .enumerate()
        .filter(|(i, _)| d >> i & 1 == 1)
        .map(|(_, c)| c)
        .collect();

    // Bytes that open like a compressed file or a refused format (gzip, an
    // `.lzma` header, ...) are not PGN text: the run is an input error by
    // design (the `moves` target checks that it is the same whatever the
    // chunks). Found by this target: four NULs and a 0x01 make an `.lzma`
    // header.
    if Compression::sniff(input) != Compression::None {
        return;
    }
    let path = scratch();
    std::fs::write(path, input).unwrap();

    // Every byte in exactly one game. (A few bytes that begin a compressed
    // format's magic, `PK\x03` or a bzip2 head of up to 9 bytes, are a file
    // cut short: refused, not text.)
    let reference = match try_run(path, &StatsJob, Games::default(), BIG) {
        Ok(reference) => reference,
        Err(e) if input.len() < 10 && e.to_string().contains("inside the magic bytes") => return,
        Err(e) => panic!("runs: {e:?}"),
    };
    let mut offset = 0;
    for g in &reference.0 {
        assert_eq!(g.0, offset, "games are contiguous");
        offset += g.3.len() as u64;
    }
    if reference.0.is_empty() {
        let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        assert!(
            body.split(|&b| b == b'\n' || b == b'\r')
                .all(|l| l.starts_with(b"%") || l.iter().all(|&b| b == b' ' || b == b'\t')),
            "an input with text holds a game"
        );
    } else {
        assert_eq!(offset, input.len() as u64, "games rebuild the input");
        let joined: Vec<u8> = reference
            .0
            .iter()
            .flat_map(|g| g.3.iter().copied())
            .collect();
        assert!(joined == input);
    }

    // Chunks cut anywhere: the same games, whatever the threads. A tag line
    // longer than the largest chunk cannot be read whole (documented), so the
    // classes are compared only where the lines fit.
    let longest_line = input
        .split(|&b| b == b'\n' || b == b'\r')
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let fits = max >= longest_line + 2;
    let mut by_threads = Vec::new();
    for t in [1, 2] {
        let small = run(path, &StatsJob, Games::default(), (t, (target, max), mmap));
        let bytes: Vec<u8> = small.0.iter().flat_map(|g| g.3.iter().copied()).collect();
        if !reference.0.is_empty() || !small.0.is_empty() {
            assert!(
                bytes == input,
                "tiny chunks ({target}, {max}), -j{t}: bytes lost or doubled"
            );
        }
        if fits {
            assert_eq!(small, reference, "tiny chunks ({target}, {max}), -j{t}");
        }
        by_threads.push(small);
    }
    assert_eq!(by_threads[0], by_threads[1], "-j1 and -j2 differ");
    if !fits {
        return;
    }
    let how = (threads, (target, max), mmap);
    assert_eq!(
        run(path, &CheckJob { warnings: true }, Placed::default(), how),
        run(path, &CheckJob { warnings: true }, Placed::default(), BIG),
        "check findings"
    );

    // Every pair, as `export` reads them: the same with tiny chunks, and the
    // scanner's own, but for those past the most a header keeps (an input
    // this small never reaches the byte budget, and one big chunk never cuts
    // a line).
    let pairs = run(path, &PairsJob, Pairs::default(), BIG);
    assert_eq!(
        run(path, &PairsJob, Pairs::default(), how),
        pairs,
        "pairs with tiny chunks"
    );
    let scanned = scanned_pairs(input);
    assert_eq!(pairs.0.len(), scanned.len(), "a header per game");
    let most = pgnfen::export::Summary::MAX_PAIRS;
    for ((offset, (read, dropped)), (start, expected)) in pairs.0.iter().zip(&scanned) {
        let kept = expected.len().min(most);
        assert_eq!(
            (offset, &read[..], *dropped),
            (start, &expected[..kept], (expected.len() - kept) as u64),
            "the pairs of the game at {offset}"
        );
    }

    // filter: kept + rest, game by game, rebuild the input.
    // By class only: the oracle below knows each game's class.
    let selection = Selection {
        classes,
        ..Selection::default()
    };
    let split = run(path, &FilterJob(&selection), Split::default(), how);
    assert_eq!(split.keeps.len(), reference.0.len());
    let (mut kept, mut rest) = (&split.kept[..], &split.rest[..]);
    for (g, &keep) in reference.0.iter().zip(&split.keeps) {
        assert_eq!(
            keep,
            // An empty class list keeps every class (`filter` without `--class`).
            selection.classes.is_empty() || selection.classes.contains(&g.2),
            "game at {} kept by its class",
            g.0
        );
        let from = if keep { &mut kept } else { &mut rest };
        assert!(
            from.starts_with(&g.3),
            "game at {} copied byte for byte",
            g.0
        );
        *from = &from[g.3.len()..];
    }
    assert!(kept.is_empty() && rest.is_empty(), "nothing but the games");

    // convert: only FEN values change; the same with any chunks and threads;
    // converting the output again changes nothing.
    let converted = convert(path, dialect, BIG);
    assert!(
        without_fen_values(&converted) == without_fen_values(input),
        "convert changed more than FEN values"
    );
    assert!(
        convert(path, dialect, how) == converted,
        "convert with tiny chunks"
    );
    std::fs::write(path, &converted).unwrap();
    let again = convert(path, dialect, BIG);
    assert!(again == converted, "convert is not idempotent");
});
