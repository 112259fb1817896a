//! `pgnfen split`: one file per class, each equal to `filter --class C`.

mod common;

use std::path::{Path, PathBuf};

use common::run;

const CLASSES: [&str; 6] = ["standard", "setup", "chess960", "crc", "other", "malformed"];

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn filter_class(class: &str, input: &Path) -> Vec<u8> {
    let out = run(&["filter", "-q", "--class", class, input.to_str().unwrap()]);
    assert!(out.status.success());
    out.stdout
}

/// Splits `input` with `template` (in a fresh folder) and compares every file
/// with `filter --class`; returns the folder.
fn split_matches_filter(input: &Path, ending: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let template = format!("{}/{{class}}.pgn{ending}", dir.path().display());
    let out = run(&["split", "-o", &template, input.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut total = 0;
    for class in CLASSES {
        let path = dir.path().join(format!("{class}.pgn{ending}"));
        let want = filter_class(class, input);
        if want.is_empty() {
            assert!(!path.exists(), "{class}: no games, no file");
            continue;
        }
        let have = if ending.is_empty() {
            std::fs::read(&path).unwrap()
        } else {
            // pgnfen reads compressed input: filtering every class back out
            // gives the decompressed bytes.
            let out = run(&[
                "filter",
                "-q",
                "--class",
                &CLASSES.join(","),
                path.to_str().unwrap(),
            ]);
            assert!(out.status.success());
            out.stdout
        };
        assert_eq!(have, want, "{class}");
        total += have.len();
    }
    assert_eq!(total as u64, std::fs::metadata(input).unwrap().len());
    dir
}

#[test]
fn each_file_is_the_filter_of_its_class() {
    for name in ["mixed.pgn", "malformed.pgn", "standard.pgn", "crc.pgn"] {
        split_matches_filter(&sample(name), "");
    }
}

#[test]
fn compressed_templates_compress() {
    let dir = split_matches_filter(&sample("mixed.pgn"), ".zst");
    let bytes = std::fs::read(dir.path().join("standard.pgn.zst")).unwrap();
    // pzstd's layout: a skippable frame announcing the first zstd frame.
    assert_eq!(
        &bytes[..4],
        &[0x50, 0x2A, 0x4D, 0x18],
        "skippable frame magic"
    );
    assert_eq!(&bytes[12..16], &[0x28, 0xB5, 0x2F, 0xFD], "zstd magic");
    let dir = split_matches_filter(&sample("mixed.pgn"), ".gz");
    let bytes = std::fs::read(dir.path().join("crc.pgn.gz")).unwrap();
    assert_eq!(&bytes[..2], &[0x1F, 0x8B], "gzip magic");
}

#[test]
fn class_and_tag_restrict_what_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let template = format!("{}/{{class}}.pgn", dir.path().display());
    let out = run(&[
        "split",
        "--class",
        "chess960,crc",
        "--tag",
        "Event!~(?i)gothic",
        "-o",
        &template,
        sample("mixed.pgn").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["chess960.pgn", "crc.pgn"]);
    let crc = std::fs::read_to_string(dir.path().join("crc.pgn")).unwrap();
    assert!(!crc.to_lowercase().contains("gothic"), "{crc}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(not written)"), "{err}");
}

#[test]
fn bad_templates_and_folders_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // A folder of the template that is a file (kept outside `dir`, which must stay empty).
    let other = tempfile::tempdir().unwrap();
    let file = other.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    for (template, message) in [
        (
            format!("{}/out.pgn", dir.path().display()),
            "has neither {class} nor {speed}; write e.g.",
        ),
        (
            format!("{}/{{class.pgn", dir.path().display()),
            "has neither {class} nor {speed} (a placeholder's closing brace is missing)",
        ),
        (
            format!("{}/{{Speed}}-{{class}}.pgn", dir.path().display()),
            "has {Speed}, which is no placeholder (did you mean {speed}?)",
        ),
        (
            format!("{}/{{file}}-{{class}}.pgn", dir.path().display()),
            "has {file}, which is no placeholder; the placeholders are {class} and {speed}",
        ),
        (
            format!("{}/{{class}}.pgn", file.display()),
            "is not a folder",
        ),
    ] {
        let out = run(&[
            "split",
            "-o",
            &template,
            sample("mixed.pgn").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{template}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
        assert!(!err.contains(".pgn."), "no temporary name: {err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
    // A missing input: nothing written (nor any folder created) either.
    let template = format!("{}/{{class}}.pgn", dir.path().display());
    let out = run(&["split", "-o", &template, "/nonexistent/x.pgn"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let nested = format!("{}/new/{{class}}.pgn", dir.path().display());
    let out = run(&["split", "-o", &nested, "/nonexistent/x.pgn"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // A bad expression: a usage error before anything is read or created.
    let out = run(&[
        "split",
        "--tag",
        "Elo>>1",
        "-o",
        &template,
        sample("mixed.pgn").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn split_creates_the_folders_its_template_names() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = sample("mixed.pgn");
    // `a/b/{class}.pgn` relative to the working folder, neither folder there.
    let out = common::bin()
        .current_dir(dir.path())
        .args(["split", "-o", "a/b/{class}.pgn", mixed.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let folder = dir.path().join("a/b");
    let mut total = 0;
    for class in CLASSES {
        let path = folder.join(format!("{class}.pgn"));
        let want = filter_class(class, &mixed);
        assert_eq!(path.exists(), !want.is_empty(), "{class}");
        if path.exists() {
            assert_eq!(std::fs::read(&path).unwrap(), want, "{class}");
            total += want.len();
        }
    }
    assert_eq!(total as u64, std::fs::metadata(&mixed).unwrap().len());
    // A folder per class: only the folders of classes that got games remain.
    let out = common::bin()
        .current_dir(dir.path())
        .args([
            "split",
            "--class",
            "chess960,crc,setup",
            "-o",
            "by/{class}/games.pgn",
            mixed.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut made: Vec<String> = std::fs::read_dir(dir.path().join("by"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    made.sort();
    let mut want: Vec<&str> = ["chess960", "crc", "setup"]
        .into_iter()
        .filter(|c| !filter_class(c, &mixed).is_empty())
        .collect();
    want.sort();
    assert_eq!(made, want);
    // A path through a file is no folder: a usage error, nothing written.
    let file = dir.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    let template = format!("{}/sub/{{class}}.pgn", file.display());
    let out = run(&["split", "-o", &template, mixed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a folder"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn every_class_and_speed_at_once_under_a_low_soft_limit_of_open_files() {
    use std::os::unix::process::CommandExt;
    // One game of each class in each speed: 42 outputs open at once, more
    // than a soft limit of 30 open files allows; the hard limit allows them,
    // and split raises the soft one.
    let headers = [
        "",
        "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n",
        "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n",
        "[Variant \"Capablanca\"]\n[SetUp \"1\"]\n[FEN \"rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1\"]\n",
        "[Variant \"Atomic\"]\n",
        "[SetUp \"1\"]\n",
    ];
    let clocks = ["15", "60", "300", "600", "1800", "-", "?"];
    let mut pgn = String::new();
    for header in headers {
        for clock in clocks {
            pgn += &format!("[Event \"e\"]\n{header}[TimeControl \"{clock}\"]\n\n*\n\n");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("all.pgn");
    std::fs::write(&input, pgn).unwrap();
    let mut cmd = common::bin();
    cmd.args(["-q", "split", "-o"])
        .arg(dir.path().join("out/{class}-{speed}.pgn"))
        .arg(&input);
    // SAFETY: getrlimit and setrlimit are async-signal-safe, as the child's
    // code between fork and exec must be.
    unsafe {
        cmd.pre_exec(|| {
            let mut limit: libc::rlimit = std::mem::zeroed();
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            limit.rlim_cur = 30;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_dir(dir.path().join("out")).unwrap().count();
    assert_eq!(written, 42);
}
