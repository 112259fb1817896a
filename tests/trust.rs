//! Trust under faults: inputs that are pipes, change under the run, are
//! compressed under a misleading name or zipped; outputs that keep their
//! modes, never clash, and leave nothing behind when the run is interrupted.
//! Every test runs the real binary.

mod common;

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{bin, json, run, run_stdin};

/// `n` games: standard ones, and Chess960 ones with an X-FEN to convert.
fn games(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        if i % 3 == 0 {
            write!(
                out,
                "[Event \"g{i}\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
                 [FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\n\
                 1. e4 e5 1-0\n\n"
            )
            .unwrap();
        } else {
            write!(
                out,
                "[Event \"g{i}\"]\n[White \"a\"]\n\n1. d4 d5 {{ ok }} 1/2-1/2\n\n"
            )
            .unwrap();
        }
    }
    out
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Files in `dir` whose name ends with `.tmp` (left-over temporary outputs).
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

fn stats(path: &Path) -> serde_json::Value {
    json(&run(&["stats", "--format", "json", path.to_str().unwrap()]))
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_fifo_is_read_once_and_whole_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("games.pgn");
    mkfifo(&fifo);
    let data = games(3000);
    for round in 0..15 {
        let (path, bytes) = (fifo.clone(), data.clone());
        let writer = std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            // In pieces, as a producer would write them.
            for piece in bytes.chunks(7919) {
                f.write_all(piece).unwrap();
            }
        });
        let v = stats(&fifo);
        writer.join().unwrap();
        assert_eq!(v["games"], 3000, "round {round}");
        assert_eq!(v["classes"]["chess960"], 1000, "round {round}");
    }
    // `filter` too: every game in exactly one output.
    let (path, bytes) = (fifo.clone(), data.clone());
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.write_all(&bytes).unwrap();
    });
    let kept = dir.path().join("kept.pgn");
    let rest = dir.path().join("rest.pgn");
    let out = run(&[
        "filter",
        "--class",
        "chess960",
        "-o",
        kept.to_str().unwrap(),
        "--rest",
        rest.to_str().unwrap(),
        fifo.to_str().unwrap(),
    ]);
    writer.join().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let total = std::fs::metadata(&kept).unwrap().len() + std::fs::metadata(&rest).unwrap().len();
    assert_eq!(total, data.len() as u64);
}

#[test]
fn a_fifo_output_gets_every_kept_byte_when_its_reader_comes_late_and_an_end_when_the_run_fails() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.pgn");
    let data = games(30_000); // more than a pipe holds
    std::fs::write(&input, &data).unwrap();
    let expected = run(&["filter", "--class", "chess960", input.to_str().unwrap()]).stdout;
    assert!(expected.len() > 1 << 20);
    let fifo = dir.path().join("kept.pgn");
    mkfifo(&fifo);
    // The reader comes after the run started (the named pipe is opened at
    // the first write), and a slow one: the writes wait for room.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let mut f = std::fs::File::open(fifo).unwrap();
            let mut all = Vec::new();
            let mut piece = [0u8; 4096];
            loop {
                match std::io::Read::read(&mut f, &mut piece).unwrap() {
                    0 => return all,
                    n => all.extend_from_slice(&piece[..n]),
                }
            }
        })
    };
    let filter_into_fifo = |input: &Path| {
        run(&[
            "filter",
            "--class",
            "chess960",
            "-o",
            fifo.to_str().unwrap(),
            input.to_str().unwrap(),
        ])
    };
    let out = filter_into_fifo(&input);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(reader.join().unwrap() == expected, "the kept games, whole");
    // A run that fails before writing anything (a corrupt gzip input)
    // still ends the output its reader waits on.
    let corrupt = dir.path().join("bad.pgn.gz");
    std::fs::write(&corrupt, b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage").unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = filter_into_fifo(&corrupt);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("bad.pgn.gz"), "{}", stderr(&out));
    assert_eq!(reader.join().unwrap(), b"");
}

/// Runs pgnfen with `args` and `input` (written with `data` first), and
/// cuts `input` to 1,000 bytes `delay_ms` after the start.
fn truncated_during(
    args: &[&str],
    input: &Path,
    data: &[u8],
    delay_ms: u64,
) -> std::process::Output {
    std::fs::write(input, data).unwrap();
    let child = bin()
        .args(args)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(delay_ms));
    std::fs::OpenOptions::new()
        .write(true)
        .open(input)
        .unwrap()
        .set_len(1000)
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_file_truncated_during_the_run_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.pgn");
    let data = games(400_000); // about 60 MB
    let out_path = dir.path().join("out.pgn");
    let mut failures = 0;
    for delay_ms in [40u64, 80, 120, 20, 160, 5] {
        let out = truncated_during(
            &[
                "-j",
                "1",
                "convert",
                "--to",
                "shredder",
                "-o",
                out_path.to_str().unwrap(),
            ],
            &input,
            &data,
            delay_ms,
        );
        assert!(temp_files(dir.path()).is_empty());
        match out.status.code() {
            Some(2) => {
                failures += 1;
                let msg = stderr(&out);
                assert!(
                    msg.contains(&format!("{}: the file changed", input.display())),
                    "{msg}"
                );
                assert!(!out_path.exists(), "no output after a failed run");
            }
            // The run was over (or had not opened the file) before the
            // truncation: then its output must be whole.
            Some(0) => {
                let written = std::fs::read(&out_path).unwrap();
                assert!(written.len() == data.len() || written.len() <= 1000);
                std::fs::remove_file(&out_path).unwrap();
            }
            other => panic!("exit {other:?}: {}", stderr(&out)),
        }
    }
    assert!(failures > 0, "no run saw the truncation");
}

#[test]
fn a_split_cut_short_by_a_truncated_input_leaves_no_folder_it_made() {
    // The bus error's handler removed the temporary files, not the empty
    // folders `split` had made for its template.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.pgn");
    let data = games(400_000);
    let template = dir.path().join("new/sub/{class}.pgn.xz");
    let mut failures = 0;
    for delay_ms in [60u64, 120, 30, 200] {
        let out = truncated_during(
            &["-j", "1", "split", "-o", template.to_str().unwrap()],
            &input,
            &data,
            delay_ms,
        );
        if out.status.code() == Some(2) {
            failures += 1;
            assert!(
                stderr(&out).contains("the file changed"),
                "{}",
                stderr(&out)
            );
            assert!(!dir.path().join("new").exists(), "folders left behind");
        }
        let _ = std::fs::remove_dir_all(dir.path().join("new"));
    }
    assert!(failures > 0, "no run saw the truncation");
}

#[test]
fn new_files_follow_the_umask_and_replaced_files_keep_their_mode() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(30)).unwrap();
    for (umask, mode) in [("022", 0o644), ("027", 0o640), ("002", 0o664)] {
        let out = dir.path().join(format!("new-{umask}.pgn.zst"));
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask {umask}; exec \"$0\" -q convert --to xfen -o \"$1\" \"$2\""
            ))
            .arg(env!("CARGO_BIN_EXE_pgnfen"))
            .arg(&out)
            .arg(&input)
            .status()
            .unwrap();
        assert!(status.success());
        let got = std::fs::metadata(&out).unwrap().mode() & 0o777;
        assert_eq!(got, mode, "umask {umask}: {got:o}");
    }
    // In place: the file is converted and keeps its 0664 (and 0604: no
    // umask may narrow a mode that is kept).
    for (mode, dialect) in [(0o664, "xfen"), (0o604, "shredder")] {
        std::fs::set_permissions(&input, std::fs::Permissions::from_mode(mode)).unwrap();
        let before = std::fs::read(&input).unwrap();
        let out = run(&["-q", "convert", "--to", dialect, "-o"]
            .into_iter()
            .chain([input.to_str().unwrap(), input.to_str().unwrap()])
            .collect::<Vec<_>>());
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            std::fs::read(&input).unwrap() != before,
            "converted in place"
        );
        assert_eq!(std::fs::metadata(&input).unwrap().mode() & 0o777, mode);
    }
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn an_in_place_symlink_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.pgn");
    std::fs::write(&target, games(9)).unwrap();
    let link = dir.path().join("link.pgn");
    std::os::unix::fs::symlink("real.pgn", &link).unwrap();
    let l = link.to_str().unwrap();
    let out = run(&["-q", "convert", "--to", "xfen", "-o", l, l]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = String::from_utf8(std::fs::read(&target).unwrap()).unwrap();
    assert!(text.contains("w KQkq - 2 9"), "converted through the link");
    // A dangling link: the file it names is made, the link stays.
    let dangling = dir.path().join("later.pgn");
    std::os::unix::fs::symlink("made.pgn", &dangling).unwrap();
    let out = run(&[
        "-q",
        "convert",
        "--to",
        "xfen",
        "-o",
        dangling.to_str().unwrap(),
        target.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(dir.path().join("made.pgn")).unwrap(),
        std::fs::read(&target).unwrap()
    );
}

#[test]
fn two_outputs_naming_one_file_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    let data = games(12);
    std::fs::write(&input, &data).unwrap();
    let i = input.to_str().unwrap();
    let x = dir.path().join("X.pgn");
    let x_again = format!("{}/./X.pgn", dir.path().display());
    let cases: Vec<Vec<String>> = vec![
        vec!["-o".into(), i.into(), "--rest".into(), i.into()],
        vec![
            "-o".into(),
            x.display().to_string(),
            "--rest".into(),
            x_again,
        ],
        vec!["--rest".into(), "-".into()],
        vec!["-o".into(), "-".into(), "--rest".into(), "-".into()],
    ];
    for args in cases {
        let mut all = vec!["filter", "--class", "standard"];
        all.extend(args.iter().map(String::as_str));
        all.push(i);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("name the same file"),
            "{}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
        assert_eq!(std::fs::read(&input).unwrap(), data, "input intact");
        assert!(!x.exists());
    }
    // A hard link is the same file under another name.
    std::fs::write(&x, b"old").unwrap();
    let y = dir.path().join("Y.pgn");
    std::fs::hard_link(&x, &y).unwrap();
    let out = run(&[
        "filter",
        "--class",
        "standard",
        "-o",
        x.to_str().unwrap(),
        "--rest",
        y.to_str().unwrap(),
        i,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&x).unwrap(), b"old");
    assert!(temp_files(dir.path()).is_empty());
    // A symbolic link to a file still to be made names that file; so does a
    // path through a linked folder.
    let z = dir.path().join("Z.pgn");
    let link = dir.path().join("LZ.pgn");
    std::os::unix::fs::symlink("Z.pgn", &link).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::os::unix::fs::symlink(&sub, dir.path().join("via")).unwrap();
    for (a, b) in [
        (z.clone(), link.clone()),
        (sub.join("n.pgn"), dir.path().join("via/n.pgn")),
    ] {
        let out = run(&[
            "filter",
            "--class",
            "standard",
            "-o",
            a.to_str().unwrap(),
            "--rest",
            b.to_str().unwrap(),
            i,
        ]);
        assert_eq!(out.status.code(), Some(2), "{a:?} {b:?}");
        assert!(stderr(&out).contains("name the same file"));
        assert!(!z.exists() && !sub.join("n.pgn").exists());
    }
    // Two classes of `split` on one file, through a link: refused, and the
    // file keeps its bytes.
    let out_dir = dir.path().join("split");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("setup.pgn"), b"old").unwrap();
    std::os::unix::fs::symlink("setup.pgn", out_dir.join("standard.pgn")).unwrap();
    let template = out_dir.join("{class}.pgn");
    let out = run(&["split", "-o", template.to_str().unwrap(), i]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("name the same file"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(out_dir.join("setup.pgn")).unwrap(), b"old");
    assert!(temp_files(&out_dir).is_empty());
}

/// Runs pgnfen with `args` on a slow pipe (some games, then nothing more for
/// a while), sends it `signal` once a temporary file shows in `watch`, and
/// returns its exit code.
fn interrupted_while_writing(args: &[&std::ffi::OsStr], watch: &Path, signal: i32) -> Option<i32> {
    use std::os::unix::process::CommandExt;
    let mut cmd = bin();
    cmd.args(args).stdin(Stdio::piped()).stderr(Stdio::piped());
    // As a program started from a terminal has them: a test run under
    // `nohup` or as a background job would hand SIGHUP or SIGINT on
    // ignored, and pgnfen keeps a signal ignored that its parent ignored.
    // SAFETY: `signal` is async-signal-safe, as the child's code between
    // fork and exec must be.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(signal, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&games(5000)).unwrap();
    stdin.flush().unwrap();
    let started = Instant::now();
    while temp_files(watch).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !temp_files(watch).is_empty(),
        "the run writes a temporary file"
    );
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let status = child.wait().unwrap();
    drop(stdin);
    status.code()
}

#[test]
fn signals_remove_the_temporary_file_and_leave_the_output_alone() {
    for (signal, code) in [
        (libc::SIGINT, 130),
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out_path = dir.path().join("out.pgn");
        std::fs::write(&out_path, b"precious").unwrap();
        let args = ["convert", "--to", "xfen", "-o"].map(std::ffi::OsStr::new);
        let args: Vec<&std::ffi::OsStr> = args.into_iter().chain([out_path.as_os_str()]).collect();
        let status = interrupted_while_writing(&args, dir.path(), signal);
        assert_eq!(status, Some(code), "signal {signal}");
        assert!(temp_files(dir.path()).is_empty(), "signal {signal}");
        assert_eq!(std::fs::read(&out_path).unwrap(), b"precious");
    }
}

#[test]
fn an_interrupted_split_removes_the_folders_it_made() {
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("made/deeper/{class}.pgn");
    let args = [
        std::ffi::OsStr::new("split"),
        "-o".as_ref(),
        template.as_os_str(),
    ];
    let status = interrupted_while_writing(&args, &dir.path().join("made/deeper"), libc::SIGINT);
    assert_eq!(status, Some(130));
    assert!(!dir.path().join("made").exists(), "folders left behind");
}

#[test]
fn progress_to_a_file_writes_plain_lines() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgnfen"))
        .args(["--progress", "stats"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&games(1000)).unwrap();
    std::thread::sleep(Duration::from_millis(4500));
    stdin.write_all(&games(1000)).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(" games, ")).collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(lines.last().unwrap().contains("2,000 games"), "{err}");
    assert!(
        !err.contains('\r') && !err.contains('\x1b'),
        "plain lines: {err:?}"
    );
    // A .zst and a plain file together: progress counts raw bytes of both
    // against their total, so the last line reaches exactly 100 %.
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join("a.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&games(20_000)[..], 3).unwrap()).unwrap();
    let plain = dir.path().join("b.pgn");
    std::fs::write(&plain, games(20_000)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pgnfen"))
        .args(["--progress", "stats"])
        .arg(&zst)
        .arg(&plain)
        .output()
        .unwrap();
    let err = stderr(&out);
    let last = err
        .lines()
        .rfind(|l| l.contains(" games, "))
        .unwrap_or_default();
    assert!(
        last.contains("(100%)") && last.contains("40,000 games"),
        "{err}"
    );
    // Without --progress, nothing.
    let out = run_stdin(&["stats"], &games(10));
    assert!(!stderr(&out).contains(" games, "));
}

#[test]
fn compression_is_recognised_by_content_never_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let data = games(300);
    let plain = dir.path().join("plain.pgn");
    std::fs::write(&plain, &data).unwrap();
    let expected = stats(&plain);
    // gzip of two members under a .pgn name.
    let gz = dir.path().join("gzip.pgn");
    let mut bytes = Vec::new();
    for half in [&data[..data.len() / 2], &data[data.len() / 2..]] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(half).unwrap();
        bytes.extend(e.finish().unwrap());
    }
    std::fs::write(&gz, bytes).unwrap();
    assert_eq!(stats(&gz), expected);
    // zstd under no ending, plain text under .gz and .zst.
    let zst = dir.path().join("archive");
    std::fs::write(&zst, zstd::encode_all(&data[..], 3).unwrap()).unwrap();
    assert_eq!(stats(&zst), expected);
    for name in ["plain.gz", "plain.zst", "plain.bz2"] {
        let p = dir.path().join(name);
        std::fs::write(&p, &data).unwrap();
        assert_eq!(stats(&p), expected, "{name}");
    }
}

#[test]
fn unknown_compression_endings_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(5)).unwrap();
    for name in [
        "out.pgn.lz4",
        "out.zip",
        "out.7z",
        "out.pgn.br",
        // Endings that look like one pgnfen writes, and containers.
        "out.pgn.zstd",
        "out.pgn.bz",
        "out.tzst",
        "out.tar",
    ] {
        let out_path = dir.path().join(name);
        let out = run(&[
            "convert",
            "--to",
            "xfen",
            "-o",
            out_path.to_str().unwrap(),
            input.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
        assert!(!out_path.exists());
    }
    // The endings pgnfen writes are read back the same.
    for name in ["out.pgn.gz", "out.pgn.bz2", "out.pgn.zst", "out.pgn.xz"] {
        let out_path = dir.path().join(name);
        let out = run(&[
            "-q",
            "filter",
            "--class",
            "standard,chess960",
            "-o",
            out_path.to_str().unwrap(),
            input.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        assert!(std::fs::read(&out_path).unwrap() != std::fs::read(&input).unwrap());
        assert_eq!(stats(&out_path), stats(&input), "{name}");
    }
}

#[test]
fn an_input_without_tag_lines_is_warned_about_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("program");
    let bytes: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(&binary, bytes).unwrap();
    let out = run(&["stats", "--format", "json", binary.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains(&format!(
            "pgnfen: warning: {}: no PGN tag line found",
            binary.display()
        )),
        "{}",
        stderr(&out)
    );
    let quiet = run(&["-q", "stats", binary.to_str().unwrap()]);
    assert!(!stderr(&quiet).contains("warning"));
    // An empty input, or one of blank lines (after its byte-order mark, if
    // any), has no tag line either: it is warned about, the note saying that
    // it holds no game.
    for empty in [&b""[..], b"\n \r\n\n", b"\xEF\xBB\xBF", b"\xEF\xBB\xBF\r\n"] {
        let out = run_stdin(&["stats", "--format", "json"], empty);
        assert!(out.status.success());
        assert!(
            stderr(&out).contains("<stdin>: no PGN tag line found (it holds no text, so no game)"),
            "{}",
            stderr(&out)
        );
    }
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, b"").unwrap();
    for command in [
        &["stats"][..],
        &["check"],
        &["filter", "--class", "standard"],
        &["export"],
    ] {
        let out = run(&[command, &[empty.to_str().unwrap()]].concat());
        assert!(
            stderr(&out).contains(&format!("{}: no PGN tag line found", empty.display())),
            "{command:?}: {}",
            stderr(&out)
        );
    }
    // A zip archive without members (its end record alone), read by its
    // directory or from a pipe, holds no stream of its own to warn about.
    let empty_zip = dir.path().join("empty.zip");
    let end_record = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    std::fs::write(&empty_zip, end_record).unwrap();
    let said = format!(
        "{}: no PGN tag line found (it holds no file, so no game)",
        empty_zip.display()
    );
    let out = run(&["stats", "--format", "json", empty_zip.to_str().unwrap()]);
    assert!(
        out.status.success() && stderr(&out).contains(&said),
        "{}",
        stderr(&out)
    );
    let piped = stderr(&run_stdin(&["stats"], end_record));
    assert!(
        piped.contains("<stdin>: no PGN tag line found (it holds no file"),
        "{piped}"
    );
    // Text that is no PGN is warned about on standard input too.
    assert!(stderr(&run_stdin(&["stats"], b"hello\n")).contains("<stdin>: no PGN tag line found"));
    // Lines that begin with '[' but hold no tag pair cut it into games: said.
    let notes = stderr(&run_stdin(
        &["stats"],
        b"notes\n[link]\ntext\n[other]\nmore\n",
    ));
    assert!(
        notes.contains("<stdin>: no PGN tag line found (its 2 games are its text cut at lines that begin with '[')"),
        "{notes}"
    );
    // A real PGN gets no warning.
    let pgn = dir.path().join("real.pgn");
    std::fs::write(&pgn, games(3)).unwrap();
    assert!(!stderr(&run(&["stats", pgn.to_str().unwrap()])).contains("warning"));
    // Nor one whose only tag line follows a byte order mark.
    for text in [
        &b"\xEF\xBB\xBF[Event \"x\"]\n\n1. e4 *\n"[..],
        b"\xEF\xBB\xBF  [SetUp \"1\"] [FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*\n",
    ] {
        let bom = dir.path().join("bom.pgn");
        std::fs::write(&bom, text).unwrap();
        for command in ["stats", "check", "filter"] {
            let out = run(&[command, bom.to_str().unwrap()]);
            assert!(
                !stderr(&out).contains("no PGN tag line"),
                "{}",
                stderr(&out)
            );
        }
        assert!(!stderr(&run_stdin(&["stats"], text)).contains("no PGN tag line"));
    }
}

fn zip_of(path: &Path, members: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, data) in members {
        zip.start_file(
            *name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn a_zip_of_two_members_reads_as_their_concatenation() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (games(700), games(301));
    let zip = dir.path().join("book.zip");
    zip_of(&zip, &[("a.pgn", &a), ("sub/b.pgn", &b)]);
    let joined = [a.clone(), b.clone()].concat();
    let expected = json(&run_stdin(&["stats", "--format", "json"], &joined));
    assert_eq!(stats(&zip), expected);
    // The same from standard input.
    let piped = run_stdin(
        &["stats", "--format", "json"],
        &std::fs::read(&zip).unwrap(),
    );
    assert_eq!(json(&piped), expected);
    // Filtering keeps every byte, in archive order.
    let out = run(&[
        "-q",
        "filter",
        "--class",
        "standard,chess960",
        zip.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert!(
        out.stdout == joined,
        "filter output differs from the members joined"
    );
    // Messages point into the member.
    let bad = dir.path().join("bad.zip");
    zip_of(
        &bad,
        &[
            ("ok.pgn", &a[..]),
            (
                "broken.pgn",
                b"[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"8/8 w - - 0 1\"]\n\n*\n",
            ),
        ],
    );
    let out = run(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{}:broken.pgn:3:", bad.display())),
        "{text}"
    );
}

/// A zip may hold two members of one name (`zip` appending to an archive,
/// or Python's `zipfile`, writes them): each is read, in archive order. The
/// reader had keyed the members by name and read only the last of them, in
/// the first one's place.
#[test]
fn zip_members_that_share_a_name_are_each_read_in_archive_order() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (games(4), games(5), games(7));
    let path = dir.path().join("same.zip");
    zip_of(&path, &[("x/a.pgn", &a), ("x/b.pgn", &b), ("x/c.pgn", &c)]);
    // The third member renamed as the first, in its local header and in the
    // central directory (the names are not checksummed).
    let mut bytes = std::fs::read(&path).unwrap();
    let mut renamed = 0;
    for i in 0..bytes.len() - 7 {
        if &bytes[i..i + 7] == b"x/c.pgn" {
            bytes[i..i + 7].copy_from_slice(b"x/a.pgn");
            renamed += 1;
        }
    }
    assert_eq!(renamed, 2);
    std::fs::write(&path, &bytes).unwrap();
    let joined = [a, b, c].concat();
    let p = path.to_str().unwrap();
    let out = run(&["-q", "filter", "--class", "standard,chess960", p]);
    assert!(out.status.success());
    assert!(out.stdout == joined, "not the members joined in order");
    let piped = run_stdin(&["-q", "filter", "--class", "standard,chess960"], &bytes);
    assert!(piped.stdout == joined, "not the members joined in order");
    let out = run(&["export", "--format", "csv", "--tags", "Event", p]);
    let files: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|row| {
            row.split(',')
                .next()
                .unwrap()
                .rsplit(':')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    let expected: Vec<&str> = [("x/a.pgn", 4), ("x/b.pgn", 5), ("x/a.pgn", 7)]
        .iter()
        .flat_map(|&(name, n)| std::iter::repeat_n(name, n))
        .collect();
    assert_eq!(files, expected);
}

#[test]
fn a_corrupt_zip_or_a_member_that_is_no_text_fails_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.zip");
    zip_of(&good, &[("a.pgn", &games(2000))]);
    let bytes = std::fs::read(&good).unwrap();
    let corrupt = dir.path().join("corrupt.zip");
    std::fs::write(&corrupt, &bytes[..bytes.len() / 2]).unwrap();
    let out = run(&["stats", corrupt.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{}:", corrupt.display())),
        "{}",
        stderr(&out)
    );
    // Truncated on standard input too.
    let out = run_stdin(&["stats"], &bytes[..bytes.len() / 2]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&games(10)).unwrap();
    let gz = gz.finish().unwrap();
    let z = dir.path().join("mixed.zip");
    zip_of(&z, &[("first.pgn", &games(5)), ("inner.pgn.gz", &gz)]);
    let out = run(&["stats", z.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("{}:inner.pgn.gz:", z.display())),
        "{}",
        stderr(&out)
    );
    // Binary data and NUL bytes are read as a file's are: games with NUL
    // bytes as in a plain file, and a member with no tag line with the
    // warning a file gets, named ARCHIVE:MEMBER.
    let mut nul = games(3);
    nul.splice(20..20, *b"\0\0");
    let plain = dir.path().join("nul.pgn");
    std::fs::write(&plain, &nul).unwrap();
    let binary = [0u8, 1, 2, 3, 0, 0, 7];
    zip_of(&z, &[("nul.pgn", &nul), ("blob.bin", &binary)]);
    let out = run(&["stats", "--format", "json", z.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{}:blob.bin: no PGN tag line found", z.display())),
        "{}",
        stderr(&out)
    );
    let zipped: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let alone = run(&["stats", "--format", "json", plain.to_str().unwrap()]);
    let alone: serde_json::Value = serde_json::from_slice(&alone.stdout).unwrap();
    assert_eq!(zipped["games"], alone["games"].as_u64().unwrap() + 1);
}

#[test]
fn writing_help_completions_or_the_manual_to_a_full_disk_fails_plainly() {
    for args in [
        &["completions", "bash"][..],
        &["completions", "fish"],
        &["man"],
        &["--help"],
        &["filter", "--help"],
        &["--version"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = bin()
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let msg = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {msg}");
        assert!(
            msg.starts_with("pgnfen: <stdout>: ") && !msg.contains("panicked"),
            "{args:?}: {msg}"
        );
    }
}

#[test]
fn a_check_report_to_a_full_disk_is_one_message_naming_standard_output() {
    // A report small enough to be written at the end, and one written during
    // the run (each game a problem): the same one line, and no summary that
    // reads as a run that went well.
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many.pgn");
    std::fs::write(&many, "[SetUp \"1\"]\n\n*\n\n".repeat(200_000)).unwrap();
    let small = dir.path().join("small.pgn");
    std::fs::write(&small, "[SetUp \"1\"]\n\n*\n\n").unwrap();
    for input in [&small, &many] {
        for format in ["text", "json", "csv", "github", "sarif"] {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let out = bin()
                .args(["check", "--format", format, input.to_str().unwrap()])
                .stdout(full)
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            let msg = String::from_utf8_lossy(&out.stderr);
            let what = format!("{format} {}: {msg}", input.display());
            assert_eq!(out.status.code(), Some(2), "{what}");
            assert_eq!(msg.lines().count(), 1, "{what}");
            assert!(msg.starts_with("pgnfen: <stdout>: "), "{what}");
        }
    }
}

#[test]
fn write_errors_and_bad_arguments_name_the_users_paths() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(3000)).unwrap();
    let i = input.to_str().unwrap();
    // A full disk.
    let out = run(&["convert", "--to", "xfen", "-o", "/dev/full", i]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/dev/full: "), "{}", stderr(&out));
    // A missing folder: the message names the output, not a temporary file.
    let missing = dir.path().join("nodir/out.pgn");
    let out = run(&[
        "convert",
        "--to",
        "xfen",
        "-o",
        missing.to_str().unwrap(),
        i,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let msg = stderr(&out);
    assert!(
        msg.contains(&missing.display().to_string()) && !msg.contains(".out.pgn."),
        "{msg}"
    );
    // `-j 0` is a usage error.
    let out = run(&["-j", "0", "stats", i]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("at least 1"));
    // A directory as input.
    let out = run(&["stats", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_output_past_the_file_size_limit_is_a_write_error_that_leaves_nothing() {
    // SIGXFSZ's default action ended the process and left the temporary file.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(4000)).unwrap();
    assert!(std::fs::metadata(&input).unwrap().len() > 200 << 10);
    let out = dir.path().join("out.pgn");
    // `ulimit -f 100`: files of at most 100 blocks of 1 KiB.
    let run = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -f 100 && exec "$0" --no-progress filter --class standard -o "$1" "$2""#)
        .arg(env!("CARGO_BIN_EXE_pgnfen"))
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("out.pgn") && err.contains("File too large"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, [std::ffi::OsString::from("in.pgn")]);
}

/// `pgnfen ARGS` with standard output appended to `file` (as `>> file`).
fn run_appending_to(args: &[&str], file: &Path) -> std::process::Output {
    let out = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .unwrap();
    bin().args(args).stdout(out).output().unwrap()
}

/// Runs `args` with standard output appended to `file` and checks that the
/// run was refused (exit 2, `message` in its report) and left `file` as it
/// was.
fn refused_appending_to(args: &[&str], file: &Path, message: &str) {
    let before = std::fs::read(file).unwrap();
    let out = run_appending_to(args, file);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    assert_eq!(std::fs::read(file).unwrap(), before, "{args:?}");
}

#[test]
fn a_path_naming_standard_output_writes_to_the_stream_never_replaces_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(9)).unwrap();
    let i = input.to_str().unwrap();
    let log = dir.path().join("log");
    let expected = run(&["-q", "filter", "--class", "chess960", i]).stdout;
    assert!(!expected.is_empty());
    for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        std::fs::write(&log, b"earlier line\n").unwrap();
        let inode = std::fs::metadata(&log).unwrap().ino();
        let out = run_appending_to(
            &["-q", "filter", "--class", "chess960", "-o", name, i],
            &log,
        );
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let mut want = b"earlier line\n".to_vec();
        want.extend_from_slice(&expected);
        assert!(std::fs::read(&log).unwrap() == want, "{name}: appended");
        assert_eq!(
            std::fs::metadata(&log).unwrap().ino(),
            inode,
            "{name}: not replaced"
        );
        assert!(temp_files(dir.path()).is_empty());
    }
    // A link to /dev/stdout is the stream too.
    let link = dir.path().join("to-stdout");
    std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
    std::fs::write(&log, b"earlier line\n").unwrap();
    let out = run_appending_to(
        &[
            "-q",
            "filter",
            "--class",
            "chess960",
            "-o",
            link.to_str().unwrap(),
            i,
        ],
        &log,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::read(&log)
            .unwrap()
            .starts_with(b"earlier line\n[Event")
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn standard_output_under_another_name_is_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(9)).unwrap();
    let i = input.to_str().unwrap();
    let log = dir.path().join("log");
    std::fs::write(&log, b"kept\n").unwrap();
    let l = log.to_str().unwrap();
    // Kept games to standard output and the rest to what standard output is.
    for rest in ["/dev/stdout", "/dev/fd/1", l] {
        let args = ["filter", "--class", "chess960", "--rest", rest, i];
        refused_appending_to(&args, &log, "name the same file");
    }
    assert_eq!(std::fs::read(&log).unwrap(), b"kept\n");
    // Into a pipe as well.
    let out = run(&["filter", "--class", "chess960", "--rest", "/dev/stdout", i]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // /dev/null takes any number of outputs.
    let out = run(&[
        "filter",
        "--class",
        "chess960",
        "-o",
        "/dev/null",
        "--rest",
        "/dev/null",
        i,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn standard_output_appended_to_an_input_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    let data = games(30);
    std::fs::write(&input, &data).unwrap();
    let i = input.to_str().unwrap();
    for args in [
        vec!["filter", "--class", "standard", i],
        vec!["convert", "--to", "shredder", i],
        vec!["check", i],
        vec!["export", "--format", "csv", i],
    ] {
        refused_appending_to(&args, &input, "is the file an output writes to");
    }
    assert_eq!(std::fs::read(&input).unwrap(), data);
    // Standard input and output one file (`- < in.pgn >> in.pgn`).
    let out = bin()
        .args(["filter", "--class", "standard", "-"])
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&input)
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("standard input is the file an output writes to"));
    assert_eq!(std::fs::read(&input).unwrap(), data);
    // The rest to standard output, and standard output named as a path.
    for args in [
        vec![
            "filter",
            "--class",
            "chess960",
            "-o",
            "/dev/null",
            "--rest",
            "-",
            i,
        ],
        vec!["convert", "--to", "shredder", "-o", "/dev/stdout", i],
    ] {
        refused_appending_to(&args, &input, "pgnfen: ");
    }
    assert_eq!(std::fs::read(&input).unwrap(), data);
    // Emptied by `>` but not the only input: the first input's games would
    // be read back from it.
    let first = dir.path().join("first.pgn");
    std::fs::write(&first, &data).unwrap();
    let out = bin()
        .args([
            "-q",
            "filter",
            "--class",
            "standard",
            first.to_str().unwrap(),
            i,
        ])
        .stdout(std::fs::File::create(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // `stats` writes once everything is read: nothing to refuse.
    std::fs::write(&input, &data).unwrap();
    let out = run_appending_to(&["stats", i], &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(&input, &data).unwrap();
    // An output file of its own: standard output is not written, nothing refused.
    let kept = dir.path().join("kept.pgn");
    let out = run_appending_to(
        &[
            "-q",
            "filter",
            "--class",
            "standard",
            "-o",
            kept.to_str().unwrap(),
            i,
        ],
        &input,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A file the shell emptied (`> in.pgn`) is an empty input, as for `cat`.
    let out = bin()
        .args(["-q", "convert", "--to", "shredder", i])
        .stdout(std::fs::File::create(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn output_links_are_followed_to_their_end_and_a_loop_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(9)).unwrap();
    let i = input.to_str().unwrap();
    // A dangling chain: the file at its end is made, both links stay.
    std::os::unix::fs::symlink("missing.pgn", dir.path().join("b.pgn")).unwrap();
    std::os::unix::fs::symlink("b.pgn", dir.path().join("a.pgn")).unwrap();
    let a = dir.path().join("a.pgn");
    let out = run(&[
        "-q",
        "filter",
        "--class",
        "standard",
        "-o",
        a.to_str().unwrap(),
        i,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for link in ["a.pgn", "b.pgn"] {
        assert!(
            std::fs::symlink_metadata(dir.path().join(link))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert!(
        std::fs::read(dir.path().join("missing.pgn"))
            .unwrap()
            .starts_with(b"[Event")
    );
    // A loop: the system's error, naming the path; the links stay.
    std::os::unix::fs::symlink("l2.pgn", dir.path().join("l1.pgn")).unwrap();
    std::os::unix::fs::symlink("l1.pgn", dir.path().join("l2.pgn")).unwrap();
    let l1 = dir.path().join("l1.pgn");
    let l2 = dir.path().join("l2.pgn");
    let out = run(&[
        "filter",
        "--class",
        "standard",
        "-o",
        l1.to_str().unwrap(),
        "--rest",
        l2.to_str().unwrap(),
        i,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("l1.pgn") && stderr(&out).contains("symbolic links"),
        "{}",
        stderr(&out)
    );
    for link in [&l1, &l2] {
        assert!(
            std::fs::symlink_metadata(link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn a_spill_folder_that_fails_is_named_as_the_temporary_folder() {
    let dir = tempfile::tempdir().unwrap();
    // One header bigger than the 16 MiB held in memory: its bytes spill.
    let mut data = b"[Event \"x\"]\n".to_vec();
    let line = format!("[Annotator \"{}\"]\n", "a".repeat(100));
    for _ in 0..180_000 {
        data.extend_from_slice(line.as_bytes());
    }
    data.extend_from_slice(b"\n1. e4 *\n");
    let input = dir.path().join("big-header.pgn");
    std::fs::write(&input, &data).unwrap();
    let kept = dir.path().join("kept.pgn");
    let missing = dir.path().join("no-such-folder");
    let out = bin()
        .args([
            "-q",
            "filter",
            "--class",
            "standard",
            "-o",
            kept.to_str().unwrap(),
            input.to_str().unwrap(),
        ])
        .env("TMPDIR", &missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains(&missing.display().to_string()) && message.contains("TMPDIR"),
        "{message}"
    );
    assert!(
        !message.contains("<output>") && !message.contains("kept.pgn"),
        "{message}"
    );
    assert!(!kept.exists());
}

#[test]
fn a_replaced_file_keeps_its_mode_but_not_set_id_bits() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(6)).unwrap();
    let out = dir.path().join("out.pgn");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o6750)).unwrap();
    let run = run(&[
        "-q",
        "filter",
        "--class",
        "standard",
        "-o",
        out.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(std::fs::metadata(&out).unwrap().mode() & 0o7777, 0o750);
    assert!(std::fs::read(&out).unwrap().starts_with(b"[Event"));
}

#[test]
fn a_signal_ignored_by_the_parent_stays_ignored() {
    use std::os::unix::process::CommandExt;
    // As `nohup` starts a program: SIGHUP ignored. The run must outlive the
    // terminal's hang-up and finish its output.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kept.pgn");
    let mut cmd = bin();
    cmd.args([
        "-q",
        "filter",
        "--class",
        "standard",
        "-o",
        out.to_str().unwrap(),
        "-",
    ])
    .stdin(Stdio::piped());
    // SAFETY: `signal` is async-signal-safe, as the child's code between
    // fork and exec must be.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = games(300);
    stdin.write_all(&data[..data.len() / 2]).unwrap();
    // The temporary output exists once the run is under way (its signal
    // handling installed long before): a hang-up before would prove nothing.
    let started = Instant::now();
    while temp_files(dir.path()).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: a signal to the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    std::thread::sleep(Duration::from_millis(100));
    stdin.write_all(&data[data.len() / 2..]).unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let expected = common::run_stdin(&["-q", "filter", "--class", "standard"], &data).stdout;
    assert_eq!(std::fs::read(&out).unwrap(), expected);
}

#[test]
fn only_the_standard_streams_are_taken_as_streams_and_devices_take_several_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pgn");
    std::fs::write(&input, games(9)).unwrap();
    let i = input.to_str().unwrap();
    // fd 4 was not handed over (pgnfen's own signal thread holds one such):
    // not a stream to write to, and no game goes nowhere with exit status 0.
    let out = run(&["-q", "filter", "--class", "chess960", "-o", "/dev/fd/4", i]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // Character devices are never the same output: /dev/null twice, and
    // standard output on /dev/null beside a --rest there.
    let out = bin()
        .args([
            "-q",
            "filter",
            "--class",
            "chess960",
            "--rest",
            "/dev/null",
            i,
        ])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A damaged compressed input: every game whose end came before the damage
/// reaches every consumer alike (`filter`'s standard output, `export`'s rows,
/// the library's games), and no part of the game the damage cut short does,
/// also when the whole file is smaller than a chunk (its first bytes were
/// lost with the error before) and when a comment looks like a game start.
#[test]
fn the_whole_games_before_damage_reach_every_front_end_alike() {
    let dir = tempfile::tempdir().unwrap();
    let game = |i: usize| format!("[Event \"{i}\"]\n\n1. e4 1-0\n\n");
    let first = "[Event \"1\"]\n\n1. e4 e5 *\n\n";
    // Cut inside a comment whose blank line and `[` line look like the next
    // game's start: the readable text ends inside the second game.
    let faked = (
        format!("{first}[Event \"2\"]\n\n1. d4 {{a comment\n\n[not a tag]\n"),
        "still comment} d5 *\n\n".to_string(),
    );
    enum Damage {
        Junk,
        Cut,
        AtFlush,
    }
    let many: String = (0..5000).map(game).collect();
    let no_line_end = format!("{first}[Event \"2\"]\n\n1. d4 0-1");
    let cases = [
        (
            (0..3).map(game).collect::<String>(),
            String::new(),
            Damage::Junk,
            Some(3),
        ),
        (many.clone(), String::new(), Damage::Junk, Some(5000)),
        (many, String::new(), Damage::Cut, None),
        (faked.0, faked.1, Damage::AtFlush, Some(1)),
        // A marker that is the last byte before trailing garbage ends its game.
        (no_line_end, String::new(), Damage::Junk, Some(2)),
    ];
    for (n, (text, after, damage, expected)) in cases.into_iter().enumerate() {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text.as_bytes()).unwrap();
        // A sync flush: the text so far decodes from the bytes so far.
        encoder.flush().unwrap();
        let flushed = encoder.get_ref().len();
        encoder.write_all(after.as_bytes()).unwrap();
        let mut data = encoder.finish().unwrap();
        match damage {
            Damage::Junk => data.extend_from_slice(b"JUNK"),
            Damage::Cut => data.truncate(data.len() * 2 / 3),
            Damage::AtFlush => data.truncate(flushed),
        }
        let path = dir.path().join(format!("{n}.pgn.gz"));
        std::fs::write(&path, &data).unwrap();
        let p = path.to_str().unwrap();

        let exported = run(&["-q", "export", "--format", "jsonl", p]);
        assert_eq!(exported.status.code(), Some(2));
        let rows = exported.stdout.iter().filter(|&&b| b == b'\n').count();
        let filtered = run(&["-q", "filter", "--class", "standard", p]);
        assert_eq!(filtered.status.code(), Some(2));
        let mut library = Vec::new();
        let mut error = None;
        for item in pgnfen::Archive::open([&path]).unwrap().games() {
            match item {
                Ok(game) => library.extend_from_slice(game.raw()),
                Err(e) => error = Some(e),
            }
        }
        assert!(error.is_some(), "{p}");
        // Every game handed on is whole: it ends with its result, and
        // `filter` wrote exactly the library's games.
        let games = String::from_utf8(library.clone()).unwrap();
        let count = games.matches("[Event ").count();
        assert_eq!(rows, count, "{p}");
        assert_eq!(filtered.stdout, library, "{p}");
        // Replaying the moves keeps each game until its movetext ends: the
        // last whole game too.
        let replayed = run(&["-q", "filter", "--class", "standard", "--moves", "all", p]);
        assert_eq!(replayed.status.code(), Some(2));
        assert_eq!(replayed.stdout, library, "{p}: --moves");
        assert!(
            ["*", "1-0", "0-1"]
                .iter()
                .any(|marker| games.trim_end().ends_with(marker)),
            "{p}: {games:?}"
        );
        match expected {
            Some(expected) => assert_eq!(count, expected, "{p}"),
            None => assert!(count > 0 && count < 5000, "{p}: {count}"),
        }
    }
}

/// An input that fails at its first read (a gzip file damaged from its
/// start) after an undamaged one: the games of the one before reach every
/// front end (they were held, waiting for a batch or the next game).
#[test]
fn an_input_failing_at_once_keeps_the_games_of_the_inputs_before() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.pgn");
    std::fs::write(
        &good,
        "[Event \"a\"]\n\n1. e4 1-0\n\n[Event \"b\"]\n\n1. d4 *\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.pgn.gz");
    std::fs::write(
        &bad,
        b"\x1f\x8b\x08\0\0\0\0\0\0\x03\xff\xff\xff\xff\xff\xff",
    )
    .unwrap();
    let (g, b) = (good.to_str().unwrap(), bad.to_str().unwrap());
    let exported = run(&["-q", "export", "--format", "jsonl", g, b]);
    assert_eq!(exported.status.code(), Some(2));
    assert_eq!(exported.stdout.iter().filter(|&&c| c == b'\n').count(), 2);
    let games: Vec<_> = pgnfen::Archive::open([&good, &bad])
        .unwrap()
        .games()
        .collect();
    assert_eq!(games.iter().filter(|g| g.is_ok()).count(), 2);
    assert!(games.last().unwrap().is_err());
}
