//! `--in-place` on `convert` and `fen`: each input rewritten to itself, in its
//! own compression, with its mode; and `-o` naming one of several inputs
//! refused, pointing to `--in-place`.

mod common;

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{run, run_stdin};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const GAME_A: &str = "[Event \"a\"]\n[SetUp \"1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n";
const GAME_B: &str = "[Event \"b\"]\r\n[SetUp \"1\"]\r\n[FEN \"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\"]\r\n\r\n1. Ra8+ *\r\n";
const GAME_C: &str = "[Event \"c\"]\n\n1. d4 d5 *\n\n[Event \"d\"]\n[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 9\"]\n\n*\n";

fn shredder(pgn: &str) -> String {
    pgn.replace("BBQNNRKR w KQkq", "BBQNNRKR w HFhf")
        .replace("R3K2R w KQ -", "R3K2R w HA -")
        .replace("R3K2R b KQkq", "R3K2R b HAha")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn bunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn set_mode(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

#[test]
fn convert_in_place_rewrites_each_input_in_its_own_format_and_mode() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("a.pgn");
    let gz = dir.path().join("b.pgn.gz");
    let zst = dir.path().join("c.pgn.zst");
    // A bzip2 file whose name does not say so: the first bytes decide.
    let bz = dir.path().join("d.pgn");
    std::fs::write(&plain, GAME_A).unwrap();
    std::fs::write(&gz, gzip(GAME_B.as_bytes())).unwrap();
    std::fs::write(&zst, zstd::encode_all(GAME_C.as_bytes(), 3).unwrap()).unwrap();
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    e.write_all(GAME_A.as_bytes()).unwrap();
    std::fs::write(&bz, e.finish().unwrap()).unwrap();
    set_mode(&plain, 0o600);
    set_mode(&gz, 0o640);
    set_mode(&zst, 0o604);
    set_mode(&bz, 0o664);

    let out = run(&[
        "convert",
        "--to",
        "shredder",
        "--in-place",
        s(&plain),
        s(&gz),
        s(&zst),
        s(&bz),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "nothing on standard output");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(
            "5 games, 4 FEN tags written as shredder, 0 left unchanged; 4 files rewritten in place"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&plain).unwrap(), shredder(GAME_A));
    let gz_bytes = std::fs::read(&gz).unwrap();
    assert_eq!(&gz_bytes[..2], b"\x1f\x8b", "still gzip");
    assert_eq!(gunzip(&gz_bytes), shredder(GAME_B).as_bytes());
    let zst_bytes = std::fs::read(&zst).unwrap();
    // zstd in pzstd's layout: a skippable frame, then the zstd frame.
    assert_eq!(
        &zst_bytes[..4],
        b"\x50\x2a\x4d\x18",
        "still zstd (pzstd's layout)"
    );
    assert_eq!(
        zstd::decode_all(zst_bytes.as_slice()).unwrap(),
        shredder(GAME_C).as_bytes()
    );
    let bz_bytes = std::fs::read(&bz).unwrap();
    assert_eq!(&bz_bytes[..3], b"BZh", "still bzip2");
    assert_eq!(bunzip(&bz_bytes), shredder(GAME_A).as_bytes());
    for (p, m) in [(&plain, 0o600), (&gz, 0o640), (&zst, 0o604), (&bz, 0o664)] {
        assert_eq!(mode(p), m, "{}: mode kept", p.display());
    }
    // No temporary file is left beside them.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
}

#[test]
fn fen_in_place_rewrites_each_book() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("a.epd");
    let gz = dir.path().join("b.epd.gz");
    let zst = dir.path().join("c.epd.zst");
    let book = "# book\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\r\n";
    let want = book.replace("KQkq", "HAha");
    std::fs::write(&plain, book).unwrap();
    std::fs::write(&gz, gzip(book.as_bytes())).unwrap();
    std::fs::write(&zst, zstd::encode_all(book.as_bytes(), 3).unwrap()).unwrap();
    set_mode(&plain, 0o600);
    set_mode(&gz, 0o640);
    let out = run(&[
        "fen",
        "--to",
        "shredder",
        "--in-place",
        s(&plain),
        s(&gz),
        s(&zst),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("pgnfen: 3 records, 3 written as shredder, 0 left unchanged (0 invalid, 0 not writable in shredder); 3 files rewritten in place"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&plain).unwrap(), want);
    assert_eq!(gunzip(&std::fs::read(&gz).unwrap()), want.as_bytes());
    assert_eq!(
        zstd::decode_all(std::fs::read(&zst).unwrap().as_slice()).unwrap(),
        want.as_bytes()
    );
    assert_eq!((mode(&plain), mode(&gz)), (0o600, 0o640));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn output_naming_one_of_several_inputs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.pgn");
    let b = dir.path().join("b.pgn");
    std::fs::write(&a, GAME_A).unwrap();
    std::fs::write(&b, GAME_B).unwrap();
    // Named another way (`dir/./a.pgn`): still the same file.
    let a_again = dir.path().join(".").join("a.pgn");
    for args in [
        vec!["convert", "--to", "shredder", "-o", s(&a), s(&a), s(&b)],
        vec!["convert", "--to", "xfen", "-o", s(&a_again), s(&b), s(&a)],
        vec!["fen", "--to", "shredder", "-o", s(&a), s(&a), s(&b)],
        // Standard input is one of the inputs too.
        vec!["convert", "--to", "shredder", "-o", s(&a), s(&a), "-"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("names one of the 2 inputs"), "{stderr}");
        assert!(stderr.contains("--in-place"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), GAME_A, "untouched");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), GAME_B, "untouched");
    }
    // One input: `-o` naming it rewrites it, as before.
    let out = run(&["convert", "--to", "shredder", "-o", s(&a), s(&a)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), shredder(GAME_A));
    // Another output with several inputs merges them, as before.
    let merged = dir.path().join("m.pgn");
    let out = run(&[
        "convert",
        "--to",
        "shredder",
        "-o",
        s(&merged),
        s(&a),
        s(&b),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&merged).unwrap(),
        shredder(GAME_A) + &shredder(GAME_B)
    );
}

#[test]
fn in_place_refuses_what_it_cannot_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.pgn");
    std::fs::write(&a, GAME_A).unwrap();
    let zip = dir.path().join("z.zip");
    {
        let mut w = zip::ZipWriter::new(std::fs::File::create(&zip).unwrap());
        w.start_file("g.pgn", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(GAME_A.as_bytes()).unwrap();
        w.finish().unwrap();
    }
    let zip_before = std::fs::read(&zip).unwrap();
    let missing = dir.path().join("none.pgn");
    // A named pipe is refused, never opened (that would wait for a writer).
    let fifo = dir.path().join("pipe.pgn");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // Checked before the first file is rewritten: a.pgn stays as it was.
        (
            vec!["convert", "--to", "shredder", "--in-place", s(&a), s(&zip)],
            "zip archive cannot be rewritten in place",
        ),
        (
            vec!["fen", "--to", "shredder", "--in-place", s(&a), s(&zip)],
            "zip archive cannot be rewritten in place",
        ),
        (
            vec!["convert", "--to", "shredder", "--in-place"],
            "standard input",
        ),
        (
            vec!["convert", "--to", "shredder", "--in-place", s(&a), "-"],
            "standard input",
        ),
        (
            vec![
                "convert",
                "--to",
                "shredder",
                "--in-place",
                s(&a),
                s(&missing),
            ],
            "none.pgn",
        ),
        (
            vec!["convert", "--to", "shredder", "--in-place", s(dir.path())],
            "Is a directory",
        ),
        (
            vec!["fen", "--to", "shredder", "--in-place", s(&a), s(&fifo)],
            "not a regular file",
        ),
        (
            vec![
                "convert",
                "--to",
                "shredder",
                "--in-place",
                "-o",
                "x.pgn",
                s(&a),
            ],
            "--output",
        ),
        (vec!["fen", "--in-place", s(&a)], "--to"),
        (
            vec![
                "fen",
                "--to",
                "xfen",
                "--in-place",
                "-r",
                "8/8/8/8/8/8/8/8 w - - 0 1",
                s(&a),
            ],
            "--record",
        ),
        (
            vec![
                "fen",
                "--to",
                "xfen",
                "--format",
                "json",
                "--in-place",
                s(&a),
            ],
            "--format json",
        ),
    ];
    for (args, message) in cases {
        let out = run_stdin(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), GAME_A, "{args:?}");
        assert_eq!(std::fs::read(&zip).unwrap(), zip_before);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn an_input_that_reading_would_refuse_is_refused_before_any_is_rewritten() {
    // An lz4 file, a file cut inside zstd magic bytes, and a tar inside gzip
    // were found only when their turn came: the inputs before them had
    // already been rewritten.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.pgn");
    std::fs::write(&a, GAME_A).unwrap();
    let tar_in_gzip = {
        let mut tar = vec![0u8; 1024];
        tar[..5].copy_from_slice(b"a.pgn");
        tar[257..263].copy_from_slice(b"ustar\0");
        tar[263..265].copy_from_slice(b"00");
        tar[148..156].copy_from_slice(b"        ");
        let sum: u32 = tar[..512].iter().map(|&b| u32::from(b)).sum();
        tar[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        gzip(&tar)
    };
    for (name, bytes, says) in [
        ("b.pgn", &b"\x04\x22\x4d\x18xxxx"[..], "an lz4 file"),
        ("c.pgn", b"\x28\xb5", "cut short"),
        ("d.pgn", &tar_in_gzip, "a tar archive inside a gzip file"),
    ] {
        let bad = dir.path().join(name);
        std::fs::write(&bad, bytes).unwrap();
        for command in [
            vec!["convert", "--to", "shredder", "--in-place"],
            vec!["fen", "--to", "shredder", "--in-place"],
        ] {
            let mut args = command.clone();
            args.extend([s(&a), s(&bad)]);
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{name} {command:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(says), "{name}: {err}");
            assert_eq!(
                std::fs::read_to_string(&a).unwrap(),
                GAME_A,
                "{name} {command:?}"
            );
            assert_eq!(std::fs::read(&bad).unwrap(), bytes);
        }
    }
}

#[test]
fn fen_in_place_owes_no_line_end_to_the_next_file() {
    // The first book lacks a final line end; the second had been given one
    // at its start.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.epd");
    let b = dir.path().join("b.epd.gz");
    let record = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    std::fs::write(&a, record).unwrap();
    std::fs::write(&b, gzip(format!("{record}\n").as_bytes())).unwrap();
    let out = run(&["fen", "-q", "--to", "shredder", "--in-place", s(&a), s(&b)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let converted = record.replace("KQkq", "HAha");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), converted);
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&b).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, format!("{converted}\n"));
}

#[test]
fn a_file_named_twice_is_refused_before_any_is_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.pgn");
    let b = dir.path().join("b.pgn");
    std::fs::write(&a, GAME_A).unwrap();
    std::fs::write(&b, GAME_B).unwrap();
    let link = dir.path().join("link.pgn");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let again = dir.path().join(".").join("a.pgn");
    for second in [&again, &link] {
        for command in [
            &["convert", "--to", "shredder", "--in-place"][..],
            &["fen", "--to", "shredder", "--in-place"][..],
        ] {
            let mut args = command.to_vec();
            args.extend([s(&b), s(&a), s(second)]);
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("--in-place names one file twice ("), "{err}");
            // Nothing was rewritten, the file named once neither.
            assert_eq!(std::fs::read_to_string(&a).unwrap(), GAME_A);
            assert_eq!(std::fs::read_to_string(&b).unwrap(), GAME_B);
        }
    }
}
