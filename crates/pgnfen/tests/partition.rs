//! Partitions combine to the one-machine run: for every corpus file (and the
//! samples), plain and as zstd frames, at partition sizes down to a few KiB
//! (boundaries inside headers, comments, CRLF pairs), the games' numbers,
//! offsets, lines and classes are the same, in the same order, and the bytes
//! each partition owns, concatenated, are the input.

use std::path::{Path, PathBuf};

use pgnfen::internals::{self, GameLog as Games, StatsJob};
use pgnfen::partition::{self, Partition, Start};
use pgnfen::pipeline;

fn options() -> pipeline::Options {
    pipeline::Options::new(2)
}

fn one_machine(path: &Path) -> Games {
    internals::one_machine_log(path, &options()).unwrap()
}

/// The partitions run one by one, each kept or redone as `resolve` says.
fn partitioned(path: &Path, size: u64) -> (Games, Vec<Partition>) {
    internals::partitioned_log(path, size, &options()).unwrap()
}

/// The `.pgn` files of the repository (samples and test files) or, with
/// `corpus`, of the corpus folder `PGNFEN_CORPUS` names.
fn pgn_files(corpus: bool) -> Vec<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let dirs: Vec<PathBuf> = if corpus {
        let corpus = PathBuf::from(std::env::var_os("PGNFEN_CORPUS").expect("needs PGNFEN_CORPUS"));
        ["real", "generated", "generated/edge"]
            .iter()
            .map(|d| corpus.join(d))
            .collect()
    } else {
        ["samples", "tests/data", "tests/data/edge"]
            .iter()
            .map(|d| root.join(d))
            .collect()
    };
    let mut files = Vec::new();
    for dir in dirs {
        files.extend(
            std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "pgn")),
        );
    }
    files.sort();
    files
}

/// A long comment holding blank lines and `[Event` lines, crossing many
/// partition boundaries, between ordinary games with CRLF line ends.
fn tricky_file(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("[Event \"g{i}\"]\r\n[Site \"?\"]\r\n\r\n1. e4 {{"));
        if i % 3 == 0 {
            for j in 0..30 {
                text.push_str(&format!(
                    "\r\n\r\n[Event \"not a game {j}\"]\r\n\r\nmore words "
                ));
            }
        }
        text.push_str("}} e5 1-0\r\n\r\n");
    }
    let path = dir.join("tricky.pgn");
    std::fs::write(&path, text).unwrap();
    path
}

/// `data` as zstd frames of `frame` input bytes, each declaring its size.
fn framed(data: &[u8], frame: usize) -> Vec<u8> {
    data.chunks(frame)
        .flat_map(|c| zstd::bulk::compress(c, 1).unwrap())
        .collect()
}

fn check(path: &Path, sizes: &[u64]) {
    let expected = one_machine(path);
    let input = std::fs::read(path).unwrap();
    assert_eq!(expected.bytes, input);
    for &size in sizes {
        let (got, parts) = partitioned(path, size);
        assert_eq!(
            got.games,
            expected.games,
            "{} in {} partitions of {size} bytes",
            path.display(),
            parts.len()
        );
        assert!(
            got.bytes == input,
            "{}: bytes at size {size}",
            path.display()
        );
    }
}

#[test]
fn plain_partitions_combine_to_the_one_machine_run() {
    plain_partitions_combine(false);
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn plain_partitions_of_the_corpus_combine_to_the_one_machine_run() {
    plain_partitions_combine(true);
}

fn plain_partitions_combine(corpus: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = pgn_files(corpus);
    files.push(tricky_file(dir.path()));
    for path in &files {
        let len = std::fs::metadata(path).unwrap().len();
        let sizes: Vec<u64> = [3 << 10, 7 << 10, 61 << 10, 1 << 20]
            .into_iter()
            .filter(|&s| s < len.max(1) * 2)
            .collect();
        // Few-KiB partitions on big files make many runs: keep those to small files.
        let sizes: Vec<u64> = sizes.into_iter().filter(|&s| len / s <= 400).collect();
        check(path, &sizes);
    }
}

#[test]
fn zstd_frame_partitions_combine_to_the_one_machine_run() {
    zstd_frame_partitions_combine(false);
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn zstd_frame_partitions_of_the_corpus_combine_to_the_one_machine_run() {
    zstd_frame_partitions_combine(true);
}

fn zstd_frame_partitions_combine(corpus: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![tricky_file(dir.path())];
    // Files of several frames (the repository's malformed cases are 39 KB).
    let least = if corpus { 64 << 10 } else { 16 << 10 };
    files.extend(
        pgn_files(corpus)
            .into_iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > least && m.len() < 8 << 20)),
    );
    for (i, path) in files.iter().enumerate() {
        let data = std::fs::read(path).unwrap();
        let zst = dir.path().join(format!("{i}.pgn.zst"));
        std::fs::write(&zst, framed(&data, 5 << 10)).unwrap();
        let parts = partition::plan(&[&zst], 12 << 10).unwrap();
        assert!(
            parts.iter().all(|p| p.kind == partition::Kind::ZstdFrames),
            "{}",
            path.display()
        );
        let plain = one_machine(path);
        let mut whole = one_machine(&zst);
        whole.bytes.clear();
        let (mut got, _) = partitioned(&zst, 12 << 10);
        assert_eq!(got.bytes, data, "{}", path.display());
        got.bytes.clear();
        assert_eq!(got, whole, "{}", path.display());
        assert_eq!(got.games, plain.games);
    }
}

#[test]
fn a_wrong_guess_is_redone_and_an_unread_tail_owns_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = tricky_file(dir.path());
    let parts = partition::plan(&[&path], 2 << 10).unwrap();
    let mut redone = 0;
    let mut empty = 0;
    let mut previous: Option<partition::Outcome> = None;
    for part in &parts {
        let mut sink = Games::default();
        let first =
            internals::run_partition(part, Start::Guess, None, &StatsJob, &mut sink, &options())
                .unwrap();
        let outcome = match partition::judge(previous.as_ref(), &first) {
            partition::Verdict::Keep => first,
            partition::Verdict::Redo(at) => {
                redone += 1;
                internals::run_partition(
                    part,
                    Start::At(at),
                    None,
                    &StatsJob,
                    &mut Games::default(),
                    &options(),
                )
                .unwrap()
            }
            partition::Verdict::Empty(next) => {
                empty += 1;
                partition::Outcome::empty(next, first.decoded_len)
            }
        };
        previous = Some(outcome);
    }
    // The comments hold `[Event` lines after blank lines: some guesses land in them.
    assert!(redone + empty > 0, "the tricky file must fool some guesses");
}

/// A corrupt frame fails a partitioned run with the message of the
/// one-machine run, which names the frame's offset: a partition's frames had
/// been read as one stream, which lost it.
#[test]
fn a_corrupt_frame_is_named_by_its_offset_as_on_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(tricky_file(dir.path())).unwrap();
    let mut zst = Vec::new();
    let mut starts = Vec::new();
    for piece in data.chunks(4 << 10) {
        starts.push(zst.len());
        // Each frame declares its size, as `zstd` and pzstd write them (one
        // machine walks only such frames).
        let mut encoder = zstd::stream::Encoder::new(&mut zst, 1).unwrap();
        encoder.include_checksum(true).unwrap();
        encoder
            .set_pledged_src_size(Some(piece.len() as u64))
            .unwrap();
        std::io::Write::write_all(&mut encoder, piece).unwrap();
        encoder.finish().unwrap();
    }
    assert!(starts.len() >= 4, "several frames");
    // A byte of the third frame's blocks changed.
    let bad = starts[2];
    zst[(bad + starts[3]) / 2] ^= 0x5a;
    let path = dir.path().join("bad.pgn.zst");
    std::fs::write(&path, &zst).unwrap();
    let named = format!("zstd frame at byte {bad}");
    let one = internals::one_machine_log(&path, &options()).unwrap_err();
    assert!(one.to_string().contains(&named), "{one}");
    for size in [1, 6 << 10, 1 << 20] {
        let parted = internals::partitioned_log(&path, size, &options()).unwrap_err();
        assert!(parted.to_string().contains(&named), "{size}: {parted}");
    }
}

#[test]
fn standard_input_cannot_be_partitioned() {
    assert!(matches!(
        partition::plan(&["-"], 1 << 20),
        Err(pgnfen::Error::Usage(_))
    ));
    assert!(matches!(
        partition::plan(&["/nonexistent.pgn"], 1 << 20),
        Err(pgnfen::Error::Io { .. })
    ));
}

#[test]
fn a_partition_size_too_small_for_the_inputs_is_refused_before_planning() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("games.pgn");
    let game = b"[Event \"a\"]\n\n1. e4 *\n\n";
    let len = partition::MAX_PARTITIONS as usize + 1;
    std::fs::write(&plain, &game.repeat(len.div_ceil(game.len()))[..len]).unwrap();
    // One partition a byte would be one more than the bound: refused, saying so.
    let refused = partition::plan(&[&plain], 1).unwrap_err();
    assert!(
        matches!(
            refused,
            pgnfen::Error::Usage(pgnfen::Usage::TooManyPartitions { target: 1 })
        ),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("ask for larger ones"),
        "{refused}"
    );
    // Two bytes a partition stay within it (the plan is made), and so does a
    // whole-file input next to it whatever the size.
    let gz = dir.path().join("games.pgn.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, game).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    assert_eq!(partition::plan(&[&gz], 1).unwrap().len(), 1);
    let halves = partition::plan(&[&plain], 2).unwrap();
    assert_eq!(halves.len() as u64, partition::MAX_PARTITIONS / 2 + 1);
    // The bound counts every input's partitions together.
    assert!(matches!(
        partition::plan(&[&plain, &plain], 2),
        Err(pgnfen::Error::Usage(_))
    ));
}

/// The notes of a run kept, as the Python binding keeps them for a
/// cluster's client.
#[derive(Default)]
struct Kept(std::sync::Mutex<Vec<String>>);

impl pipeline::Watch for Kept {
    fn note(&self, line: &str) {
        self.0.lock().unwrap().push(line.to_owned());
    }
}

/// Runs `stats` over each partition of `path` with notes on: the notes given.
fn partition_notes(path: &Path, size: u64) -> Vec<String> {
    let kept = std::sync::Arc::new(Kept::default());
    let options = pipeline::Options {
        notes: true,
        watch: Some(kept.clone()),
        ..options()
    };
    for part in partition::plan(&[path], size).unwrap() {
        part.stats(Start::Guess, &options).unwrap();
    }
    std::mem::take(&mut *kept.0.lock().unwrap())
}

/// A zip, read whole by one partition, notes its members as one machine
/// does (the client of a cluster gives them); a part of a plain file notes
/// nothing, since whether the file holds a tag line is judged over all its
/// partitions ([`partition::Outcome::tag_line`]).
#[test]
fn only_a_zips_partition_gives_notes() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&book).unwrap());
    for (name, text) in [
        ("readme.txt", "The club's games.\n"),
        ("games.pgn", "[Event \"a\"]\n\n1. e4 *\n"),
        ("none.pgn", ""),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    let notes = partition_notes(&book, 1 << 20);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].ends_with("book.zip:readme.txt: no PGN tag line found"),
        "{notes:?}"
    );
    assert!(
        notes[1].contains("book.zip:none.pgn: no PGN tag line found (it holds no text"),
        "{notes:?}"
    );

    // Text without a tag line (its first partition reads it all), and text
    // followed by games: the caller warns about the first file alone.
    for games in [0, 50] {
        let plain = dir.path().join("words.pgn");
        let mut data = b"a line of words\n".repeat(2000);
        data.extend(b"[Event \"a\"]\n\n1. e4 *\n\n".repeat(games));
        std::fs::write(&plain, &data).unwrap();
        assert!(partition::plan(&[&plain], 4 << 10).unwrap().len() > 4);
        assert_eq!(partition_notes(&plain, 4 << 10), Vec::<String>::new());
    }
}

/// A partition whose first game begins with a line that starts with a byte
/// order mark: only the file's first byte may begin one to skip, so the line
/// is read as on one machine (found by the `partition` fuzz target).
#[test]
fn a_byte_order_mark_begins_no_header_inside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bom.pgn");
    std::fs::write(&path, b"[10[\n\t\n*\r\xEF\xBB\xBF[\n\0\r[").unwrap();
    check(&path, &[9]);
    let game = b"[Event \"a\"]\n\n1. e4 *\n\n";
    let bom_line = b"\xEF\xBB\xBF[Event \"b\"]\n\n1. d4 *\n\n";
    let mut text = game.to_vec();
    for _ in 0..3 {
        text.extend_from_slice(bom_line);
        text.extend_from_slice(game);
    }
    std::fs::write(&path, &text).unwrap();
    check(&path, &(1..=text.len() as u64).collect::<Vec<_>>());
}

/// A partition's export stopped by its cancel flag ends its batches as every
/// stream does (kind `Interrupted`), not with the library's error in words,
/// so that a caller tells it from a failure alike everywhere.
#[test]
fn a_cancelled_partition_export_ends_as_interrupted() {
    use pgnfen::export::{self, ExportOptions};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let path = root.join("samples/mixed.pgn");
    let parts = partition::plan(&[&path], 1 << 20).unwrap();
    let export_options = ExportOptions::default();
    let pipeline = pipeline::Options {
        cancel: Some(Arc::new(AtomicBool::new(true))),
        ..options()
    };
    let columns = export::columns(
        &[pipeline::Input::File(path.clone())],
        &export_options,
        &options(),
    )
    .unwrap();
    let batches = parts[0].export_batches(
        Start::Guess,
        partition::Bases::default(),
        columns,
        &export_options,
        &pipeline,
    );
    let mut ended = None;
    for batch in batches {
        if let Err(e) = batch {
            ended = Some(e);
        }
    }
    match ended {
        Some(pipeline::RunError::Sink(e)) => {
            assert_eq!(e.kind(), std::io::ErrorKind::Interrupted, "{e}");
            assert!(matches!(
                pgnfen::Error::from(pipeline::RunError::Sink(e)),
                pgnfen::Error::Cancelled
            ));
        }
        other => panic!("expected the run's cancellation, got {other:?}"),
    }
}
