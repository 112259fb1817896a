//! Inputs (issue 19, items 8, 9, 10 and 12): xz read and written, every other
//! known compressor or container refused by its magic bytes with its name,
//! `-j` bounded, zip archives of many members, file names that are not UTF-8.
//! Every test runs the real binary on inputs it makes itself.

mod common;

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{bin, json, run_stdin};

/// `n` Chess960 games (position 0, BBQNNRKR), each with a distinct Event.
fn chess960_games(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        write!(
            out,
            "[Event \"g{i}\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
             [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n\
             1. e4 e5 *\n\n"
        )
        .unwrap();
    }
    out
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 6);
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn unxz(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dec = liblzma::write::XzDecoder::new_multi_decoder(&mut out);
    dec.write_all(data).unwrap();
    dec.finish().unwrap();
    out
}

fn stats_json(args: &[&OsStr]) -> serde_json::Value {
    json(
        &bin()
            .arg("stats")
            .arg("--format")
            .arg("json")
            .args(args)
            .output()
            .unwrap(),
    )
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn xz_of_chess960_games_is_read_across_streams() {
    let dir = tempfile::tempdir().unwrap();
    // Three streams, as `xz -T0` writes a large file (one stream per block
    // group) or `cat a.xz b.xz c.xz` makes; the name says nothing.
    let (a, b, c) = (chess960_games(700), chess960_games(250), chess960_games(50));
    let mut data = xz(&a);
    data.extend(xz(&b));
    data.extend(xz(&c));
    let path = dir.path().join("games.pgn");
    std::fs::write(&path, &data).unwrap();
    let v = stats_json(&[path.as_os_str()]);
    assert_eq!(v["games"], 1000, "{v}");
    assert_eq!(v["classes"]["chess960"], 1000, "{v}");
    assert_eq!(v["classes"]["standard"], 0, "{v}");
    assert_eq!(v["chess960_positions"]["0"], 1000, "{v}");

    // Standard input too.
    let v = json(&run_stdin(&["stats", "--format", "json"], &data));
    assert_eq!(v["classes"]["chess960"], 1000, "{v}");

    // `filter` copies the decoded games byte for byte, none of the binary.
    let out = dir.path().join("out.pgn");
    let run = keep_chess960(&out, &path);
    assert!(run.status.success(), "{}", stderr(&run));
    let whole = [a, b, c].concat();
    assert_eq!(std::fs::read(&out).unwrap(), whole);
}

#[test]
fn xz_output_is_written_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let games = chess960_games(300);
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, &games).unwrap();
    let out = dir.path().join("kept.pgn.xz");
    let run = keep_chess960(&out, &input);
    assert!(run.status.success(), "{}", stderr(&run));
    let written = std::fs::read(&out).unwrap();
    assert_eq!(&written[..6], b"\xfd7zXZ\0");
    assert_eq!(unxz(&written), games);
}

#[test]
fn corrupt_xz_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = xz(&chess960_games(200));
    let mid = data.len() / 2;
    data[mid] ^= 0x55;
    let path = dir.path().join("broken.pgn.xz");
    std::fs::write(&path, &data).unwrap();
    let run = bin().arg("check").arg(&path).output().unwrap();
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(err.contains("broken.pgn.xz") && err.contains("xz"), "{err}");
}

/// A 512-byte POSIX tar header for a file `name` of `size` bytes, with its checksum.
fn tar_header(name: &str, size: usize) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = b'0';
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

/// `pgnfen filter --class chess960 -o OUT INPUT`.
fn keep_chess960(out: &Path, input: &Path) -> std::process::Output {
    bin()
        .args(["filter", "--class", "chess960", "-o"])
        .arg(out)
        .arg(input)
        .output()
        .unwrap()
}

/// A tar archive of one PGN file: text after the header, which read as PGN
/// would count as games.
fn tar_of_games() -> Vec<u8> {
    let games = chess960_games(20);
    let mut out = tar_header("games.pgn", games.len());
    out.extend_from_slice(&games);
    out.resize(out.len().div_ceil(512) * 512 + 1024, 0);
    out
}

/// Every refused format: its magic bytes (followed by PGN-looking text, so
/// that only the magic can tell), and the words the message must hold.
fn refused_formats() -> Vec<(&'static str, Vec<u8>)> {
    let tail = chess960_games(3);
    let with = |magic: &[u8]| [magic, &tail[..]].concat();
    vec![
        (
            "an lz4 file",
            with(&[0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7]),
        ),
        (
            "an lz4 file (legacy format)",
            with(&[0x02, 0x21, 0x4c, 0x18, 0, 0, 0, 0]),
        ),
        // lz4 writes skippable frames in zstd's format: once read as zstd.
        (
            "an lz4 file",
            with(&[
                0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, b'a', b'b', b'c', 0x04, 0x22, 0x4d, 0x18, 0x64,
                0x40, 0xa7,
            ]),
        ),
        // lzma-alone: properties 0x5d, 8 MiB dictionary, size unknown.
        (
            "an lzma file",
            with(&[
                0x5d, 0, 0, 0x80, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ]),
        ),
        (
            "a 7z archive",
            with(&[b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c, 0, 4]),
        ),
        ("RAR 4", with(b"Rar!\x1a\x07\x00")),
        ("RAR 5", with(b"Rar!\x1a\x07\x01\x00")),
        ("a tar archive", tar_of_games()),
        ("a bzip3 file", with(b"BZ3v1\x00\x00\x10\x00")),
        ("an lzip file", with(b"LZIP\x01\x0c")),
        ("a compress (.Z) file", with(&[0x1f, 0x9d, 0x90])),
        ("an lzop file", with(b"\x89LZO\x00\x0d\x0a\x1a\x0a")),
        ("a snappy file", with(b"\xff\x06\x00\x00sNaPpY")),
        ("a cab archive", with(b"MSCF\0\0\0\0")),
        ("a xar archive", with(b"xar!\x00\x1c")),
        ("an ar archive", with(b"!<arch>\n")),
    ]
}

#[test]
fn every_refused_format_is_named_with_exit_status_2() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (what, data)) in refused_formats().into_iter().enumerate() {
        let path = dir.path().join(format!("input{i}.pgn"));
        std::fs::write(&path, &data).unwrap();
        // `check` used to exit 0 on these; `stats` counted junk games.
        for command in ["check", "stats"] {
            let run = bin().arg(command).arg(&path).output().unwrap();
            let err = stderr(&run);
            assert_eq!(run.status.code(), Some(2), "{what} ({command}): {err}");
            assert!(err.contains(&format!("input{i}.pgn")), "{what}: {err}");
            assert!(err.contains(what), "{what}: {err}");
            assert!(run.stdout.is_empty(), "{what}: {:?}", run.stdout);
        }
        // `filter` writes nothing: no output file appears.
        let out = dir.path().join(format!("out{i}.pgn"));
        let run = keep_chess960(&out, &path);
        assert_eq!(run.status.code(), Some(2), "{what}: {}", stderr(&run));
        assert!(!out.exists(), "{what}: an output was written");
        // Standard input: the same.
        let run = run_stdin(&["stats"], &data);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{what} (stdin): {err}");
        assert!(
            err.contains("<stdin>") && err.contains(what),
            "{what}: {err}"
        );
    }
}

#[test]
fn refused_formats_inside_a_zip_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("first.pgn", options).unwrap();
    zip.write_all(&chess960_games(2)).unwrap();
    zip.start_file("inner.tar", options).unwrap();
    zip.write_all(&tar_of_games()).unwrap();
    zip.finish().unwrap();
    let run = bin().arg("stats").arg(&path).output().unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("book.zip:inner.tar: a tar archive inside a zip"),
        "{err}"
    );
}

/// `data` compressed as `how` says, with the crates the tests have.
fn compressed(how: &str, data: &[u8]) -> Vec<u8> {
    match how {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "zstd" => zstd::encode_all(data, 1).unwrap(),
        _ => unreachable!("{how}"),
    }
}

#[test]
fn an_archive_or_compressed_file_inside_a_compressed_one_is_refused_by_name() {
    // A `.tar.gz` read as PGN copied its tar headers into the outputs as text.
    let dir = tempfile::tempdir().unwrap();
    let zip_bytes = {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.start_file("a.pgn", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&chess960_games(3)).unwrap();
        zip.finish().unwrap().into_inner()
    };
    let inners = [
        ("a tar archive", tar_of_games()),
        ("a zip archive", zip_bytes),
        ("a gzip file", compressed("gzip", &chess960_games(3))),
    ];
    for outer in ["gzip", "bzip2", "xz", "zstd"] {
        let outer_name = match outer {
            "xz" => "an xz file".to_string(),
            other => format!("a {other} file"),
        };
        for (inner, data) in &inners {
            let data = compressed(outer, data);
            let path = dir.path().join("nested.pgn");
            std::fs::write(&path, &data).unwrap();
            let out = dir.path().join("out.pgn");
            let run = keep_chess960(&out, &path);
            let err = stderr(&run);
            assert_eq!(run.status.code(), Some(2), "{inner} in {outer}: {err}");
            assert!(
                err.contains(&format!(
                    "nested.pgn: {inner} inside {outer_name} is not read"
                )),
                "{inner} in {outer}: {err}"
            );
            assert!(!out.exists(), "{inner} in {outer}: an output was written");
            let run = run_stdin(&["stats"], &data);
            assert_eq!(run.status.code(), Some(2), "{inner} in {outer} (stdin)");
        }
    }
    // A zstd file of several frames (decoded in parallel) too.
    let tar = tar_of_games();
    let (a, b) = tar.split_at(tar.len() / 2);
    let frames = [compressed("zstd", a), compressed("zstd", b)].concat();
    let path = dir.path().join("frames.pgn.zst");
    std::fs::write(&path, frames).unwrap();
    let run = bin().arg("stats").arg(&path).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("a tar archive inside a zstd file"),
        "{}",
        stderr(&run)
    );
    // Plain PGN inside each is read as before.
    for outer in ["gzip", "bzip2", "xz", "zstd"] {
        let path = dir.path().join("games.pgn.x");
        std::fs::write(&path, compressed(outer, &chess960_games(3))).unwrap();
        let run = bin()
            .args(["stats", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{outer}: {}", stderr(&run));
        assert_eq!(json(&run)["games"], 3, "{outer}");
    }
}

#[test]
fn text_that_only_looks_like_a_magic_number_is_still_read() {
    // `ustar` at offset 257 of a text, with no valid tar checksum; a text
    // starting with "Rar" or "LZIP" words: games, not refusals.
    let mut text = b"[Event \"".to_vec();
    text.resize(257, b'x');
    text.extend_from_slice(b"ustar\"]\n\n1. e4 *\n\n");
    text.extend_from_slice(b"[Event \"LZIP Rar! 7z\"]\n\n1. d4 *\n");
    let v = json(&run_stdin(&["stats", "--format", "json"], &text));
    assert_eq!(v["games"], 2, "{v}");
}

#[test]
fn threads_above_1024_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, b"").unwrap();
    for j in ["100000", "1000000", "1025", "99999999999999999999999"] {
        let run = bin().args(["-j", j, "stats"]).arg(&empty).output().unwrap();
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "-j {j}: {err}");
        assert!(err.contains("at most 1024"), "-j {j}: {err}");
    }
    // Not a number: said in words, not Rust's parse error.
    for j in ["abc", "2.5", ""] {
        let run = bin().args(["-j", j, "stats"]).arg(&empty).output().unwrap();
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "-j {j}: {err}");
        assert!(
            err.contains("must be a whole number of threads"),
            "-j {j}: {err}"
        );
    }
    // At the bound, an empty file returns at once (no thousand threads started).
    let start = Instant::now();
    let run = bin()
        .args(["-j", "1024", "stats"])
        .arg(&empty)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

/// The threads of a running process.
fn thread_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count())
}

#[test]
fn no_worker_thread_starts_before_there_is_work() {
    // `-j 1024` with standard input held open and nothing on it yet: the run
    // waits for its first chunk with no worker started (it used to start all
    // 1,024 before reading a byte).
    let mut child = bin()
        .args(["-j", "1024", "stats", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&chess960_games(5)).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let threads = thread_count(child.id());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let v = json(&out);
    assert_eq!(v["games"], 5, "{v}");
    assert!(threads <= 8, "{threads} threads while waiting for input");
}

/// Runs `cmd` to its end; its output and the CPU time (user + system) it took.
fn run_timed(cmd: &mut Command) -> (std::process::Output, Duration) {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // Read the outputs on threads, then reap the child with wait4 for its usage.
    let mut child = child;
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).unwrap();
        v
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut v).unwrap();
        v
    });
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, status and usage point to live values.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    let cpu = time(usage.ru_utime) + time(usage.ru_stime);
    let output = std::process::Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(status),
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
    };
    (output, cpu)
}

#[test]
fn a_zip_of_100000_one_game_members_is_read_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.zip");
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(
        std::fs::File::create(&path).unwrap(),
    ));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..100_000 {
        zip.start_file(format!("g{i}.pgn"), options).unwrap();
        write!(zip, "[Event \"g{i}\"]\n\n1. e4 *\n").unwrap();
    }
    zip.finish().unwrap();
    for stdin in [false, true] {
        let mut cmd = bin();
        cmd.args(["stats", "--format", "json"]);
        if stdin {
            cmd.stdin(std::fs::File::open(&path).unwrap());
        } else {
            cmd.arg(&path);
        }
        let start = Instant::now();
        let (out, cpu) = run_timed(&mut cmd);
        let wall = start.elapsed();
        let v = json(&out);
        assert_eq!(v["games"], 100_000, "{v}");
        // CPU time, not wall time, so that a busy machine does not fail the
        // test: about 0.3 s here; a thread started and woken per member took
        // 15 to 20 s. The wall-clock bound is only a generous backstop.
        assert!(
            cpu < Duration::from_secs(2),
            "stdin {stdin}: {cpu:?} of CPU"
        );
        assert!(wall < Duration::from_secs(60), "stdin {stdin}: {wall:?}");
    }
}

#[test]
fn file_names_need_not_be_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let name = |bytes: &[u8]| dir.path().join(OsStr::from_bytes(bytes));
    let input = name(b"caf\xe9.pgn");
    let mut games = chess960_games(3);
    games.extend_from_slice(b"[Event \"std\"]\n\n1. e4 *\n\n");
    std::fs::write(&input, &games).unwrap();

    let kept = name(b"kept\xff.pgn");
    let rest = name(b"rest\xfe.pgn");
    let run = bin()
        .args(["filter", "--class", "chess960", "-o"])
        .arg(&kept)
        .arg("--rest")
        .arg(&rest)
        .arg(&input)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(std::fs::read(&kept).unwrap(), chess960_games(3));
    assert_eq!(
        std::fs::read(&rest).unwrap(),
        b"[Event \"std\"]\n\n1. e4 *\n\n"
    );

    // Split templates too.
    let template = name(b"by\xfd-{class}.pgn");
    let run = bin()
        .args(["split", "-o"])
        .arg(&template)
        .arg(&input)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(
        std::fs::read(name(b"by\xfd-chess960.pgn")).unwrap(),
        chess960_games(3)
    );

    // Messages show the name lossily, and still name it.
    let v = stats_json(&[input.as_os_str()]);
    assert_eq!(v["classes"]["chess960"], 3, "{v}");
    let missing = name(b"missing\xe9.pgn");
    let run = bin().arg("stats").arg(&missing).output().unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("missing\u{fffd}.pgn"), "{err}");
    assert!(!Path::new(&missing).exists());
}

#[test]
fn xz_needing_more_memory_than_the_bound_is_refused_by_name() {
    // Made by `xz --lzma2=dict=192MiB,mf=hc3` from 50 games: its decoder
    // would need 193 MiB, past the run's memory bound.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dict-192mib.pgn.xz");
    let run = bin().arg("stats").arg(&path).output().unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("dict-192mib.pgn.xz") && err.contains("more than 72 MiB"),
        "{err}"
    );
}

#[test]
fn a_zip_written_to_a_pipe_is_read_from_standard_input() {
    // A zip written by a streaming producer (`zip - ...`, Python's zipfile
    // or Java on a pipe) gives each member's sizes after its data. Read as it
    // came, by its local headers, such a zip on standard input was refused
    // ("the file length is not available in the local header").
    let mut zip = zip::ZipWriter::new_stream(Vec::new());
    for name in ["a.pgn", "b.pgn"] {
        zip.start_file(
            name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        zip.write_all(&chess960_games(3)).unwrap();
    }
    let bytes = zip.finish().unwrap().into_inner();
    let piped = json(&run_stdin(&["stats", "--format", "json", "-"], &bytes));
    assert_eq!(piped["games"], 6);
    assert_eq!(piped["classes"]["chess960"], 6);
    // Cut short on standard input: refused, as the same file would be.
    let cut = run_stdin(&["stats", "-"], &bytes[..bytes.len() / 2]);
    assert_eq!(cut.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&cut.stderr).contains("<stdin>: not a readable zip"),
        "{}",
        String::from_utf8_lossy(&cut.stderr)
    );
}

#[test]
fn zip_members_of_every_method_7zip_and_windows_write_are_read() {
    // 7-Zip writes LZMA (tests/data/lzma-member.zip, by Python's zipfile:
    // the zip crate reads LZMA but does not write it) and xz members when
    // asked; an unknown method (PPMd, 98, put in a stored member's two
    // headers) is refused naming what is read.
    let lzma = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lzma-member.zip");
    let stats = json(&common::run(&[
        "stats",
        "--format",
        "json",
        lzma.to_str().unwrap(),
    ]));
    assert_eq!(stats["classes"]["chess960"], 3);
    assert_eq!(stats["chess960_positions"]["0"], 3);

    let dir = tempfile::tempdir().unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let methods = [
        zip::CompressionMethod::Xz,
        zip::CompressionMethod::Bzip2,
        zip::CompressionMethod::Zstd,
    ];
    for (i, method) in methods.into_iter().enumerate() {
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        zip.start_file(format!("{i}.pgn"), options).unwrap();
        zip.write_all(&chess960_games(2)).unwrap();
    }
    let packed = dir.path().join("methods.zip");
    std::fs::write(&packed, zip.finish().unwrap().into_inner()).unwrap();
    let stats = json(&common::run(&[
        "stats",
        "--format",
        "json",
        packed.to_str().unwrap(),
    ]));
    assert_eq!(stats["classes"]["chess960"], 6);

    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("ppmd.pgn", stored).unwrap();
    zip.write_all(&chess960_games(1)).unwrap();
    let mut bytes = zip.finish().unwrap().into_inner();
    let local = bytes.windows(4).position(|w| w == b"PK\x03\x04").unwrap();
    bytes[local + 8..local + 10].copy_from_slice(&98u16.to_le_bytes());
    let central = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    bytes[central + 10..central + 12].copy_from_slice(&98u16.to_le_bytes());
    let refused = dir.path().join("ppmd.zip");
    std::fs::write(&refused, bytes).unwrap();
    let out = common::run(&["stats", refused.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ppmd.zip:ppmd.pgn: the zip member cannot be read")
            && err.contains("deflate64, bzip2, LZMA, xz and zstd members"),
        "{err}"
    );
}

#[test]
fn a_zstd_window_above_128_mib_is_refused_with_what_to_do() {
    // zstd's own words were "Frame requires too much memory for decoding".
    let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
    encoder
        .set_parameter(zstd::stream::raw::CParameter::WindowLog(28))
        .unwrap();
    encoder.write_all(&chess960_games(20)).unwrap();
    let data = encoder.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.pgn.zst");
    std::fs::write(&path, &data).unwrap();
    for out in [
        bin()
            .args(["stats", path.to_str().unwrap()])
            .output()
            .unwrap(),
        run_stdin(&["stats", "-"], &data),
    ] {
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("window larger than 128 MiB"), "{err}");
        assert!(err.contains("zstd -d --long=31"), "{err}");
    }
}

#[test]
fn a_zip_member_cut_inside_magic_bytes_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (name, data) in [
        ("a.pgn", chess960_games(2)),
        ("cut.pgn", b"\x28\xb5".to_vec()),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&data).unwrap();
    }
    zip.finish().unwrap();
    let out = bin()
        .args(["stats", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("two.zip:cut.pgn"), "{err}");
    assert!(err.contains("a zstd file: a file cut short"), "{err}");
}

#[test]
fn a_compressed_file_cut_short_says_which_format_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let games = chess960_games(300);
    for how in ["gzip", "bzip2", "xz", "zstd"] {
        let whole = compressed(how, &games);
        let path = dir.path().join(format!("cut.{how}"));
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        for input in [path.as_os_str(), OsStr::new("-")] {
            let mut cmd = bin();
            cmd.arg("stats").arg(input);
            if input == "-" {
                cmd.stdin(std::fs::File::open(&path).unwrap());
            }
            let run = cmd.output().unwrap();
            assert_eq!(run.status.code(), Some(2), "{how}");
            let err = stderr(&run);
            assert!(
                err.contains(&format!("{how} data cannot be read")) && err.contains("cut short"),
                "{how}: {err}"
            );
        }
    }
    // Bytes after a whole gzip member that are no other member, also fewer
    // than a member's header (they read as a header cut short before) and
    // after zero bytes.
    let zeros_then_text: &[u8] = b"\0\0\0\0x";
    for tail in [&b"[Event \"not gzip\"]\n"[..], b"garbage", zeros_then_text] {
        let mut data = compressed("gzip", &games);
        data.extend_from_slice(tail);
        let path = dir.path().join("trailing.pgn.gz");
        std::fs::write(&path, &data).unwrap();
        let run = bin().arg("stats").arg(&path).output().unwrap();
        assert_eq!(run.status.code(), Some(2));
        let err = stderr(&run);
        assert!(
            err.contains("gzip data cannot be read") && err.contains("trailing garbage"),
            "{err}"
        );
    }
    // Zero bytes after the last member are padding (`gzip -d` skips them):
    // the games are read, as without them.
    let mut data = compressed("gzip", &games);
    let whole = data.clone();
    data.extend_from_slice(&[0; 512]);
    let padded = dir.path().join("padded.pgn.gz");
    std::fs::write(&padded, &data).unwrap();
    let unpadded = dir.path().join("unpadded.pgn.gz");
    std::fs::write(&unpadded, &whole).unwrap();
    let stats = |p: &std::path::Path| {
        let run = bin()
            .args(["stats", "--format", "json"])
            .arg(p)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        run.stdout
    };
    assert_eq!(stats(&padded), stats(&unpadded));
}

/// Damage that the decoders' own words do not explain: each message names
/// the format and says what the usual cause is.
#[test]
fn damaged_data_is_named_by_its_format_and_its_likely_cause() {
    let dir = tempfile::tempdir().unwrap();
    let games = chess960_games(300);
    let with_junk = |how: &str| {
        let mut data = compressed(how, &games);
        data.extend_from_slice(b"JUNK");
        data
    };
    // A frame with its checksum, whose last checksum byte is changed.
    let flipped = {
        let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        e.include_checksum(true).unwrap();
        e.write_all(&games).unwrap();
        let mut data = e.finish().unwrap();
        *data.last_mut().unwrap() ^= 0x01;
        data
    };
    let mut zip = Vec::new();
    {
        let mut z = zip::ZipWriter::new(std::io::Cursor::new(&mut zip));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        z.start_file("games.pgn", stored).unwrap();
        z.write_all(&games).unwrap();
        z.finish().unwrap();
    }
    // A stored member's text changed: its CRC no longer matches.
    let at = zip.windows(6).position(|w| w == b"[Event").unwrap() + 2;
    zip[at] ^= 0x20;
    // A frame made with a trained dictionary names the dictionary it needs.
    let with_dictionary = {
        let samples: Vec<Vec<u8>> = (0..2000)
            .map(|i| {
                format!("[Event \"g{i}\"]\n[White \"p{}\"]\n\n1. e4 *\n\n", i * 7).into_bytes()
            })
            .collect();
        let dictionary = zstd::dict::from_samples(&samples, 2048).unwrap();
        zstd::bulk::Compressor::with_dictionary(3, &dictionary)
            .unwrap()
            .compress(&games)
            .unwrap()
    };
    let cases: [(&str, Vec<u8>, &str); 5] = [
        (
            "dict.pgn.zst",
            with_dictionary,
            "zstd data cannot be read: Dictionary mismatch (the data was compressed with a zstd dictionary",
        ),
        (
            "junk.pgn.xz",
            with_junk("xz"),
            "that are not xz follow its last stream",
        ),
        (
            "junk.pgn.bz2",
            with_junk("bzip2"),
            "bytes that are not bzip2 follow its last stream",
        ),
        (
            "sum.pgn.zst",
            flipped,
            "zstd data cannot be read: Restored data doesn't match checksum (the compressed data is damaged",
        ),
        (
            "crc.zip",
            zip,
            "crc.zip:games.pgn: the zip member cannot be read",
        ),
    ];
    for (name, data, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let run = bin().args(["-q", "stats"]).arg(&path).output().unwrap();
        assert_eq!(run.status.code(), Some(2), "{name}");
        let err = stderr(&run);
        assert!(err.contains(expected), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
    }
}

#[test]
fn an_encrypted_zip_member_is_named_after_the_members_read_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut zip = Vec::new();
    {
        let mut z = zip::ZipWriter::new(std::io::Cursor::new(&mut zip));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for name in ["open.pgn", "locked.pgn"] {
            z.start_file(name, stored).unwrap();
            z.write_all(b"[Event \"a\"]\n\n1. e4 *\n").unwrap();
        }
        z.finish().unwrap();
    }
    // Bit 0 of the general purpose flags says "encrypted", in the second
    // member's local header (flags at byte 6) and central entry (at byte 8).
    let local = zip
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x03\x04")
        .nth(1)
        .unwrap()
        .0;
    zip[local + 6] |= 1;
    let central = zip
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x01\x02")
        .nth(1)
        .unwrap()
        .0;
    zip[central + 8] |= 1;
    let path = dir.path().join("books.zip");
    std::fs::write(&path, &zip).unwrap();
    let run = bin()
        .args(["-q", "filter", "--class", "standard"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    // The first member was read and its game handed on.
    assert_eq!(run.stdout, b"[Event \"a\"]\n\n1. e4 *\n");
    assert_eq!(
        stderr(&run).trim_end(),
        "pgnfen: books.zip:locked.pgn: the zip member cannot be read: it is encrypted, \
         and pgnfen reads no encrypted member (unpack it first)"
            .replace("books.zip", &path.display().to_string())
    );

    // A zip cut inside its end record is named as cut short, not by the
    // zip library's name of the record's Rust type.
    let cut = dir.path().join("cut.zip");
    std::fs::write(&cut, b"PK\x05\x06").unwrap();
    let run = bin().args(["-q", "stats"]).arg(&cut).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = stderr(&run);
    assert!(
        err.contains("not a readable zip: the file ends inside one of its records"),
        "{err}"
    );
    assert!(!err.contains("zip::"), "{err}");

    // One cut before its end record (half a download) says so too, from a
    // file and from a pipe, rather than the library's "Could not find EOCD".
    let whole = dir.path().join("whole.zip");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&whole).unwrap());
        zip.start_file("a.pgn", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&b"[Event \"a\"]\n\n1. e4 *\n\n".repeat(200))
            .unwrap();
        zip.finish().unwrap();
    }
    let bytes = std::fs::read(&whole).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let said = "not a readable zip: its last record, the list of its members, is missing (is it cut short?)";
    let run = bin().args(["-q", "stats"]).arg(&cut).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains(said), "{}", stderr(&run));
    let run = run_stdin(&["-q", "stats"], &bytes[..bytes.len() / 2]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains(said), "{}", stderr(&run));
}
