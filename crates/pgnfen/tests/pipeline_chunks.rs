//! The pipeline gives the same games, byte for byte, whatever the chunk sizes,
//! the number of threads, and whether the file is mapped or read: with tiny
//! chunks every speculative cut, rescan, held garbage and open header across
//! chunks is exercised on small inputs.

use std::io;
use std::path::{Path, PathBuf};

use pgnfen::class::Class;
use pgnfen::fen::Dialect;
use pgnfen::internals::{
    self, CheckJob, ConvertJob, EditingSink, GameFacts, GameFindings, GameInfo, Job, Sink, StatsJob,
};
use pgnfen::pipeline::{Input, Options};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

#[derive(Debug, Default, PartialEq)]
struct Games {
    /// (offset, first line, class, bytes) of each game.
    games: Vec<(u64, u64, Class, Vec<u8>)>,
}

impl Sink<GameFacts> for Games {
    fn begin_game(&mut self, info: &GameInfo, facts: GameFacts) -> io::Result<()> {
        self.games
            .push((info.offset, info.line, facts.class, Vec::new()));
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        self.games
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
}

/// Runs `job` over the file into `sink`, with these threads, chunk sizes and mapping.
fn run<J: Job, S: Sink<J::Game>>(path: &Path, job: &J, mut sink: S, how: How) -> S {
    let (threads, chunk_sizes, mmap) = how;
    let options = Options {
        mmap,
        chunk_sizes,
        ..Options::new(threads)
    };
    internals::run(&[Input::File(path.to_path_buf())], job, &mut sink, &options).expect("runs");
    sink
}

/// Threads, chunk sizes (target, maximum), memory-mapped.
type How = (usize, (usize, usize), bool);

/// One thread, one chunk for every test file, read: the reference.
const BIG: How = (1, (1 << 20, 8 << 20), false);

fn placed(path: &Path, how: How) -> Placed {
    run(path, &CheckJob { warnings: true }, Placed::default(), how)
}

/// What `convert --to shredder --repair` writes.
fn converted(path: &Path, how: How) -> Vec<u8> {
    let job = ConvertJob {
        dialect: Dialect::Shredder,
        ep: None,
        repair: true,
    };
    run(path, &job, EditingSink::new(Vec::new(), true), how).into_inner()
}

fn games(path: &Path, how: How) -> Games {
    run(path, &StatsJob, Games::default(), how)
}

fn same_everywhere(path: &Path, input: &[u8]) {
    let reference = games(path, BIG);
    let placed_reference = placed(path, BIG);
    let converted_reference = converted(path, BIG);
    let joined: Vec<u8> = reference.games.iter().flat_map(|g| g.3.clone()).collect();
    if reference.games.is_empty() {
        // Only blank lines and `%` escape lines (which count as blank) hold no game.
        let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        let blank = body
            .split(|&b| b == b'\n' || b == b'\r')
            .all(|l| l.starts_with(b"%") || l.iter().all(|&b| b == b' ' || b == b'\t'));
        assert!(
            blank,
            "no game in {:?}",
            String::from_utf8_lossy(&input[..input.len().min(80)])
        );
    } else {
        assert_eq!(joined, input, "games do not rebuild the input");
    }
    let mut offset = 0;
    for g in &reference.games {
        assert_eq!(g.0, offset, "games are contiguous");
        offset += g.3.len() as u64;
    }
    // A tag value cut by a chunk boundary inside a line longer than the largest
    // chunk cannot be read (documented); keep the largest chunk above the longest line.
    let longest_line = input
        .split(|&b| b == b'\n' || b == b'\r')
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    for (threads, sizes, mmap) in [
        (1, (16, 160), false),
        (2, (16, 160), true),
        (2, (37, 300), false),
        (2, (64, 1000), true),
        (1, (200, 200), true),
        (2, (4096, 1 << 16), false),
    ] {
        if sizes.1 < longest_line + 2 {
            continue;
        }
        let other = games(path, (threads, sizes, mmap));
        assert_eq!(
            other, reference,
            "threads {threads}, chunk sizes {sizes:?}, mmap {mmap}"
        );
        let other = converted(path, (threads, sizes, mmap));
        assert!(
            other == converted_reference,
            "convert: threads {threads}, chunk sizes {sizes:?}, mmap {mmap}"
        );
        let other = placed(path, (threads, sizes, mmap));
        assert_eq!(
            other, placed_reference,
            "check: threads {threads}, chunk sizes {sizes:?}, mmap {mmap}"
        );
    }
}

/// The `.pgn` files under `dir`; with `small`, only those under 400 KB (big
/// files with tiny chunks take long: the small ones cover the paths).
fn pgn_files(dir: &Path, small: bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .filter(|p| !small || std::fs::metadata(p).unwrap().len() < 400_000)
        .collect();
    files.sort();
    files
}

fn all_cut_the_same(files: &[PathBuf]) {
    for path in files {
        let input = std::fs::read(path).unwrap();
        same_everywhere(path, &input);
    }
    println!("{} files cut identically with every chunking", files.len());
}

/// The `.pgn` files of the repository's samples and test data.
fn repository_files() -> Vec<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files = pgn_files(&root.join("samples"), false);
    files.extend(pgn_files(&root.join("tests/data"), false));
    files.extend(pgn_files(&root.join("tests/data/edge"), false));
    assert!(files.len() > 25, "{files:?}");
    files
}

#[test]
fn repository_files_cut_the_same_with_any_chunks() {
    all_cut_the_same(&repository_files());
}

#[test]
fn repository_files_merge_the_same_by_the_short_path() {
    for file in &repository_files() {
        short_path_calls_as_the_general_one(file);
    }
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn corpus_files_cut_the_same_with_any_chunks() {
    let corpus = PathBuf::from(std::env::var_os("PGNFEN_CORPUS").expect("needs PGNFEN_CORPUS"));
    let mut files = Vec::new();
    for dir in ["generated", "generated/edge", "real"] {
        files.extend(pgn_files(&corpus.join(dir), true));
    }
    assert!(files.len() > 40, "{}: {files:?}", corpus.display());
    all_cut_the_same(&files);
}

/// Pieces of PGN and of what breaks it.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "[Event \"a\"]",
        "[Site \"b\"]",
        "[SetUp \"1\"]",
        "[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]",
        "[Variant \"Chess960\"]",
        "[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]",
        "1. e4 e5",
        "2. Nf3 Nc6",
        "{ a comment",
        "}",
        "{ [Event \"x\"] }",
        "; rest of line",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "(1. d4 d5)",
        "% escape",
        "garbage text",
        "",
        "",
        "",
        "   ",
        "\t",
        "[Event \"x\"] [FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]",
        "[Event \"cut",
        "  [Site \"indented\"]",
    ])
}

fn line_end() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["\n", "\n", "\n", "\r\n", "\r"])
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        // Beside this file: proptest's default looks for it from the working
        // directory, which for a workspace member is not the repository root.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/pipeline_chunks.proptest-regressions"
        )))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_pgn_cuts_the_same_with_any_chunks(lines in prop::collection::vec((piece(), line_end()), 0..120)) {
        let (_dir, path, input) = written(&lines);
        same_everywhere(&path, &input);
    }

    #[test]
    fn random_pgn_merges_the_same_by_the_short_path(lines in prop::collection::vec((piece(), line_end()), 0..120)) {
        let (_dir, path, _) = written(&lines);
        short_path_calls_as_the_general_one(&path);
    }

    /// Whatever the chunk sizes and wherever the input breaks off, the games
    /// handed on are the first games of the whole input, each as it is
    /// there (the last one may lack blank lines the damage took), and only
    /// a game the damage reached is held back.
    #[test]
    fn an_input_that_breaks_off_hands_on_its_whole_games(
        lines in prop::collection::vec((piece(), line_end()), 1..120),
        at in 0.0f64..1.0,
    ) {
        let (dir, path, input) = written(&lines);
        let reference = games(&path, BIG).games;
        let readable = ((input.len() as f64) * at) as usize;
        let gz = dir.path().join("in.pgn.gz");
        std::fs::write(&gz, broken_off_gzip(&input, readable)).unwrap();
        // (A chunk longer than any line: a tag value longer than the largest
        // chunk is read as empty, whether the input breaks off or not.)
        for (threads, chunk_sizes) in [(1, (1 << 20, 8 << 20)), (2, (37, 300)), (1, (16, 160))] {
            let options = Options {
                chunk_sizes,
                ..Options::new(threads)
            };
            let mut sink = WholeGames::default();
            let result = internals::run(&[Input::File(gz.clone())], &StatsJob, &mut sink, &options);
            prop_assert!(result.is_err(), "a damaged input is an error");
            let handed = sink.0.games;
            prop_assert!(handed.len() <= reference.len());
            for (k, (got, want)) in handed.iter().zip(&reference).enumerate() {
                prop_assert_eq!((got.0, got.1, got.2), (want.0, want.1, want.2), "{:?} {:?} {}", threads, chunk_sizes, readable);
                if k + 1 < handed.len() {
                    prop_assert_eq!(&got.3, &want.3);
                } else {
                    prop_assert!(
                        want.3.starts_with(&got.3),
                        "{:?} {} got {:?} want {:?}",
                        chunk_sizes,
                        readable,
                        String::from_utf8_lossy(&got.3),
                        String::from_utf8_lossy(&want.3)
                    );
                    prop_assert!(got.0 + got.3.len() as u64 <= readable as u64);
                }
            }
            // Every game that lies whole before the damage is handed on, but
            // one without a termination marker that the damage meets at its
            // very end (its end shows only when the next game starts).
            let whole = reference
                .iter()
                .filter(|g| g.0 + g.3.len() as u64 <= readable as u64)
                .count();
            prop_assert!(
                handed.len() + 1 >= whole,
                "{} of {} whole games, {:?}, readable {}: handed {:?}, reference {:?}",
                handed.len(),
                whole,
                chunk_sizes,
                readable,
                handed.iter().map(|g| (g.0, g.3.len())).collect::<Vec<_>>(),
                reference.iter().map(|g| (g.0, g.3.len())).collect::<Vec<_>>()
            );
        }
    }
}

/// The lines written into a file of a new temporary folder (kept while the
/// folder is); the file's path and bytes.
fn written(lines: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let input: Vec<u8> = lines
        .iter()
        .flat_map(|(p, e)| format!("{p}{e}").into_bytes())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.pgn");
    std::fs::write(&path, &input).unwrap();
    (dir, path, input)
}

/// Every call a sink receives, in order: what the merger's short path for
/// most games must give exactly as its general path does.
#[derive(Debug, Default, PartialEq)]
struct Calls {
    calls: Vec<Call>,
    /// Games of a class have a destination of their own (as `filter`'s
    /// kept and rest), so that runs of bytes are cut where the class changes.
    by_class: bool,
    /// [`Sink::wants_bytes`] (`stats` says no).
    wants_bytes: bool,
}

#[derive(Debug, PartialEq)]
enum Call {
    Input,
    Game(u64, u64, u64, u64, Class),
    Bytes(u64, Vec<u8>),
    Orphan(u64, Vec<u8>),
    ChunkMerged,
}

impl Sink<GameFacts> for Calls {
    fn begin_input(&mut self, _input: &Input) -> io::Result<()> {
        self.calls.push(Call::Input);
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, facts: GameFacts) -> io::Result<()> {
        let GameInfo {
            index,
            offset,
            line,
            line_delta,
        } = *info;
        self.calls
            .push(Call::Game(index, offset, line, line_delta, facts.class));
        Ok(())
    }

    fn bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.calls.push(Call::Bytes(offset, data.to_vec()));
        Ok(())
    }

    fn orphan_bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.calls.push(Call::Orphan(offset, data.to_vec()));
        Ok(())
    }

    fn destination(&self, facts: &GameFacts) -> Option<u8> {
        self.by_class.then(|| facts.class.index() as u8)
    }

    fn chunk_merged(&mut self) -> io::Result<()> {
        self.calls.push(Call::ChunkMerged);
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        self.wants_bytes
    }
}

/// The merger's short path for games that start in a chunk and need none of
/// the general path's states calls the sink exactly as the general path
/// does, for sinks with and without destinations and bytes, with chunks of
/// every size (held garbage, headers across chunks, rescans).
fn short_path_calls_as_the_general_one(path: &Path) {
    for how in [
        BIG,
        (1, (16, 160), false),
        (2, (37, 300), true),
        (2, (64, 1000), false),
    ] {
        for (by_class, wants_bytes) in [(false, true), (true, true), (false, false)] {
            let sink = || Calls {
                by_class,
                wants_bytes,
                ..Calls::default()
            };
            let short = run(path, &StatsJob, sink(), how);
            let general = internals::merged_the_general_way(|| run(path, &StatsJob, sink(), how));
            assert_eq!(
                short, general,
                "{how:?}, destinations by class {by_class}, bytes {wants_bytes}"
            );
        }
    }
}

/// Headers cut by a chunk boundary (at a `%` line and a blank line inside the
/// header): problems of tags on both sides keep their lines.
#[test]
fn headers_across_chunks_keep_their_lines() {
    let mut input = Vec::new();
    for i in 0..400 {
        let pad = "x".repeat(i % 37);
        input.extend_from_slice(
            format!("[Event \"{pad}\"]\n[FEN \"8/8 w - - 0 1\"]\n% {pad}\n\n[Site \"b\"]\n[SetUp \"2\"]\n\n1. e4 *\n\n").as_bytes(),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.pgn");
    std::fs::write(&path, &input).unwrap();
    same_everywhere(&path, &input);
}

/// A comment opened in a movetext and closed many games later swallows the
/// games between: every cut inside it is wrong, and the merger rescans from
/// the cut until its scanner meets the worker's in the same state, then takes
/// up the worker's scan of the rest of the chunk. Chunks large enough for the
/// workers' scans to be kept (tiny chunks exceed their results' budget, and
/// the merger scans them itself) give the games, problems (with their lines)
/// and converted bytes of one chunk.
#[test]
fn a_rescan_takes_up_the_workers_scan_where_the_comment_ends() {
    // Movetext of several lines, so that most piece ends fall in it: where a
    // worker's scan can be taken up, and where the true scan may still be in
    // the comment.
    const MOVES: &str = "Ke7 Kh1 Ke8 Kg1 Ke7 Kh1 Ke8 Kg1 Ke7 Kh1 Ke8 Kg1\n\
        Ke7 Kh1 Ke8 Kg1 Ke7 Kh1 Ke8 Kg1 Ke7 Kh1 Ke8 Kg1\n\
        Ke7 Kh1 Ke8 Kg1 Ke7 Kh1 Ke8 Kg1 Ke7 Kh1 Ke8 Kg1\n";
    let mut input = Vec::new();
    for i in 0..2000 {
        // Game 3 of every 40 opens a comment that game 29 closes; the games
        // between have no braces of their own.
        let open = match i % 40 {
            3 => "{ opens here",
            4..=28 => "",
            _ => "{ closed }",
        };
        let close = if i % 40 == 29 { "} " } else { "" };
        // Every game has a problem on its own line (SetUp 2), so that a game
        // given the wrong line or the wrong game number shows.
        input.extend_from_slice(
            format!(
                "[Event \"{i}\"]\n[SetUp \"2\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 {n}\"]\n\n{close}1. O-O {open}\n{MOVES}2. Kg2 1-0\n\n",
                n = i + 1
            )
            .as_bytes(),
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.pgn");
    std::fs::write(&path, &input).unwrap();
    let reference = games(&path, BIG);
    // The comments swallow games: fewer games than headers.
    assert!(reference.games.len() < 2000);
    let placed_reference = placed(&path, BIG);
    let converted_reference = converted(&path, BIG);
    for how in [
        (1, (16 << 10, 1 << 17), false),
        (2, (16 << 10, 1 << 17), true),
        (2, (5000, 1 << 16), false),
    ] {
        assert_eq!(games(&path, how), reference, "{how:?}");
        assert_eq!(placed(&path, how), placed_reference, "{how:?}");
        assert!(converted(&path, how) == converted_reference, "{how:?}");
    }
}

/// Library level: with tiny chunks (headers and long lines across many
/// chunks) `check` places the same problems with the same snippets as with one
/// chunk, and `--tag` selects the same games.
#[test]
fn long_lines_read_the_same_in_tiny_chunks() {
    use std::fmt::Write;

    use pgnfen::filter::Selection;
    use pgnfen::internals::FilterJob;
    use pgnfen::select::{Selector, TagExpr};

    #[derive(Default, PartialEq, Debug)]
    struct Placed(Vec<(u64, u64, usize, String, String, u64)>);
    impl Sink<GameFindings> for Placed {
        fn begin_game(&mut self, info: &GameInfo, game: GameFindings) -> std::io::Result<()> {
            for f in game.findings {
                let shown = f.line_text[f.span.clone()].to_string();
                self.0.push((
                    info.index,
                    f.line + info.line_delta,
                    f.column,
                    f.code.as_str().to_string(),
                    shown,
                    f.count,
                ));
            }
            Ok(())
        }
        fn bytes(&mut self, _: u64, _: &[u8]) -> std::io::Result<()> {
            Ok(())
        }
    }
    #[derive(Default, PartialEq, Debug)]
    struct Kept(Vec<(u64, bool)>);
    impl Sink<bool> for Kept {
        fn begin_game(&mut self, info: &GameInfo, keep: bool) -> std::io::Result<()> {
            self.0.push((info.index, keep));
            Ok(())
        }
        fn bytes(&mut self, _: u64, _: &[u8]) -> std::io::Result<()> {
            Ok(())
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.pgn");
    let mut f = String::new();
    {
        for g in 0..30 {
            // A long line of pairs (past the 4 KiB kept whole), with a bad FEN
            // and differing duplicates, then an Elo on a later line.
            write!(f, "[Event \"g{g}\"] ").unwrap();
            for i in 0..(100 + g * 7) {
                write!(f, "[SetUp \"{}\"] [Site \"{}\"] ", i % 3, "é".repeat(i % 5)).unwrap();
            }
            writeln!(
                f,
                "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1\"]"
            )
            .unwrap();
            write!(f, "[WhiteElo \"{}\"]\n\n1. e4 *\n\n", 2400 + g * 10).unwrap();
        }
    }
    std::fs::write(&path, f).unwrap();
    let job_tags = vec![
        TagExpr::parse("WhiteElo>=2550").unwrap(),
        TagExpr::parse("Event!~7").unwrap(),
    ];
    let selection = Selection {
        selector: Selector::new(&job_tags),
        ..Selection::default()
    };
    let input = [Input::File(path.clone())];
    let run_with = |chunks: (usize, usize)| {
        let options = Options {
            chunk_sizes: chunks,
            ..Options::new(2)
        };
        let mut placed = Placed::default();
        internals::run(&input, &CheckJob { warnings: true }, &mut placed, &options).unwrap();
        let mut kept = Kept::default();
        internals::run(&input, &FilterJob(&selection), &mut kept, &options).unwrap();
        (placed, kept)
    };
    let big = run_with((1 << 20, 8 << 20));
    assert!(big.0.0.len() > 30 * 40, "{}", big.0.0.len());
    assert!(
        big.0.0.iter().any(|p| p.5 > 1),
        "some findings stand for several"
    );
    let want: Vec<(u64, bool)> = (0..30u64)
        .map(|g| {
            (
                g + 1,
                2400 + g * 10 >= 2550 && !format!("g{g}").contains('7'),
            )
        })
        .collect();
    assert_eq!(big.1.0, want);
    for chunks in [(4096, 1 << 20), (700, 1 << 20), (1 << 14, 1 << 20)] {
        assert_eq!(run_with(chunks), big, "{chunks:?}");
    }
}

/// The games a run hands on when its input breaks off (damaged compressed
/// data): the sink drops the game left open when the pipeline says the
/// damage may have cut it short, as the library's and `export`'s sinks do.
#[derive(Debug, Default)]
struct WholeGames(Games);

impl Sink<GameFacts> for WholeGames {
    fn begin_game(&mut self, info: &GameInfo, facts: GameFacts) -> io::Result<()> {
        self.0.begin_game(info, facts)
    }

    fn bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.0.bytes(offset, data)
    }

    fn input_damaged(&mut self, last_complete: bool) -> io::Result<()> {
        if !last_complete {
            self.0.games.pop();
        }
        Ok(())
    }
}

/// `text` gzipped so that exactly its first `readable` bytes decode, then
/// the stream breaks off (cut at a sync flush).
fn broken_off_gzip(text: &[u8], readable: usize) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&text[..readable]).unwrap();
    encoder.flush().unwrap();
    let flushed = encoder.get_ref().len();
    encoder.write_all(&text[readable..]).unwrap();
    let mut data = encoder.finish().unwrap();
    data.truncate(flushed);
    data
}
