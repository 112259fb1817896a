//! Peak memory on hostile headers: every command must stay well under 100 MiB
//! however a header is built (tens of thousands of pairs on one line, a
//! million tag lines in one game, megabyte-long values and lines).
//!
//! Peak resident memory is read from the kernel (`wait4`'s resource usage of
//! the child, see `common::peak_kib`), so no outside tool is needed.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::peak_kib;

/// The bound every run must stay under.
const LIMIT_KIB: u64 = 100 * 1024;

const FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn write(dir: &Path, name: &str, build: impl FnOnce(&mut dyn Write)) -> PathBuf {
    let path = dir.join(name);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    build(&mut f);
    f.flush().unwrap();
    path
}

/// The hostile files.
fn hostile(dir: &Path) -> Vec<PathBuf> {
    vec![
        // 20,000 SetUp pairs on one line (289 KB): was 5.5 GiB, 11 GiB for check.
        write(dir, "setup-pairs.pgn", |f| {
            writeln!(f, "[Event \"x\"]").unwrap();
            for _ in 0..20_000 {
                write!(f, "[SetUp \"n\"] ").unwrap();
            }
            write!(f, "\n\n1. e4 *\n").unwrap();
        }),
        // The same with values that all differ (a duplicate-tag each).
        write(dir, "setup-pairs-differ.pgn", |f| {
            writeln!(f, "[Event \"x\"]").unwrap();
            for i in 0..20_000 {
                write!(f, "[SetUp \"{i}\"] ").unwrap();
            }
            write!(f, "\n\n1. e4 *\n").unwrap();
        }),
        // 5,000 FEN pairs on one line (334 KB): was 1.6 GiB.
        write(dir, "fen-pairs.pgn", |f| {
            writeln!(f, "[Event \"x\"]").unwrap();
            for _ in 0..5_000 {
                write!(f, "[FEN \"{FEN}\"] ").unwrap();
            }
            write!(f, "\n\n1. e4 *\n").unwrap();
        }),
        // One game of 1 M SetUp lines (17 MB): was 320-490 MiB.
        write(dir, "setup-lines.pgn", |f| {
            writeln!(f, "[Event \"x\"]").unwrap();
            for _ in 0..1_000_000 {
                writeln!(f, "[SetUp \"n\"]").unwrap();
            }
            write!(f, "\n1. e4 *\n").unwrap();
        }),
        // One game of 300,000 FEN lines, all different.
        write(dir, "fen-lines.pgn", |f| {
            writeln!(f, "[Event \"x\"]\n[SetUp \"1\"]").unwrap();
            for i in 0..300_000 {
                writeln!(f, "[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 {}\"]", i + 1).unwrap();
            }
            write!(f, "\n1. e4 *\n").unwrap();
        }),
        // 20,000 games whose FEN has a 10,000-character castling field: was
        // 145 MiB for check.
        write(dir, "long-castling.pgn", |f| {
            let castling = "K".repeat(10_000);
            for _ in 0..20_000 {
                write!(
                    f,
                    "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w {castling} - 0 1\"]\n\n1. e4 *\n\n"
                )
                .unwrap();
            }
        }),
        // A 20 MB tag line (longer than the largest chunk).
        write(dir, "long-line.pgn", |f| {
            write!(f, "[Event \"x\"]\n[FEN \"").unwrap();
            let block = [b'p'; 1 << 16];
            for _ in 0..(20 << 20) / block.len() {
                f.write_all(&block).unwrap();
            }
            write!(f, "\"]\n\n1. e4 *\n").unwrap();
        }),
        // A 6 MB line of 2,000 pairs with 3 KB values, all different.
        write(dir, "long-values.pgn", |f| {
            writeln!(f, "[Event \"x\"]").unwrap();
            for i in 0..2_000 {
                write!(f, "[Variant \"{i}{}\"] ", "v".repeat(3_000)).unwrap();
            }
            write!(f, "\n\n1. e4 *\n").unwrap();
        }),
    ]
}

#[test]
fn every_command_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let files = hostile(dir.path());
    let out = dir.path().join("out.pgn");
    let out = out.to_str().unwrap();
    let template = format!("{}/{{class}}.pgn", dir.path().display());
    let parquet = dir.path().join("out.parquet");
    let parquet = parquet.to_str().unwrap();
    let csv = dir.path().join("out.csv");
    let csv = csv.to_str().unwrap();
    let mut failures = Vec::new();
    for file in &files {
        let f = file.to_str().unwrap();
        let runs: Vec<Vec<&str>> = vec![
            vec!["stats", f],
            vec!["stats", "--tag", "Event=x", f],
            vec!["check", "--warnings", f],
            vec!["check", "--format", "json", f],
            vec!["convert", "--to", "shredder", "-o", out, f],
            vec![
                "filter",
                "--class",
                "standard",
                "-o",
                out,
                "--rest",
                "/dev/null",
                f,
            ],
            vec!["filter", "--tag", "SetUp=n", "-o", out, f],
            vec!["split", "-o", &template, f],
            vec!["index", f],
            // Batches and row groups are cut by bytes too: a batch of 16,384
            // rows of 10,000-letter FENs held 160 MB (peak 220 MiB).
            vec!["export", "-o", parquet, f],
            vec!["export", "-o", csv, f],
        ];
        for args in runs {
            let (kib, code) = peak_kib(&args);
            println!("{:>8} KiB  exit {code:?}  {}", kib, args.join(" "));
            assert!(matches!(code, Some(0 | 1)), "{args:?}: exit {code:?}");
            if kib >= LIMIT_KIB {
                failures.push(format!("{args:?}: {kib} KiB"));
            }
        }
    }
    assert!(failures.is_empty(), "over {LIMIT_KIB} KiB: {failures:#?}");
}

/// Problem counts stay exact when the findings are not all listed.
#[test]
fn counts_stay_exact_past_the_kept_tags() {
    let dir = tempfile::tempdir().unwrap();
    let files = hostile(dir.path());
    let differ = files[1].to_str().unwrap();
    let out = common::run(&["stats", "--format", "json", differ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["problems"]["duplicate-tag"], 19_999);
    assert_eq!(v["classes"]["malformed"], 1);
    let out = common::run(&["check", differ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("duplicate-tag        error    19,999"),
        "{text}"
    );
    assert!(text.contains("more duplicate tags in this game, not listed one by one"));
    assert_eq!(out.status.code(), Some(1));
    // Columns on the 240 KB line (kept as windows) still count from the line
    // start: each points just after an opening quote, at the value of a pair.
    let out = common::run(&["check", "--format", "json", differ]);
    let line = std::fs::read_to_string(differ).unwrap();
    let line = line.lines().nth(1).unwrap().as_bytes();
    let rows: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 64, "63 kept duplicates and one for the rest");
    for (i, row) in rows.iter().enumerate() {
        let col = row["column"].as_u64().unwrap() as usize;
        assert_eq!(line[col - 2], b'"', "row {i}: column {col}");
        let want = format!("{}\"]", i + 1);
        assert!(
            line[col - 1..].starts_with(want.as_bytes()),
            "row {i}: column {col}"
        );
    }
    // Same values: no duplicate-tag at all, however many.
    let out = common::run(&["stats", "--format", "json", files[0].to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["problems"].get("duplicate-tag").is_none(), "{v}");
}

/// A FEN value longer than a chunk can hold is not read at all: the game is
/// malformed, and every command says why (not "empty FEN", which is what
/// the classifier sees of it).
#[test]
fn a_fen_value_too_long_to_read_is_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "long-fen.pgn", |f| {
        write!(f, "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"").unwrap();
        for _ in 0..6_000_000 {
            f.write_all(b"8/").unwrap();
        }
        write!(f, "\"]\n\n*\n").unwrap();
    });
    let path = path.to_str().unwrap();
    let said = "error[fen-syntax]: the FEN value is too long to read";
    let out = common::run(&["check", path]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said), "{}", &text[..text.len().min(300)]);
    let out = common::run(&["convert", "--to", "shredder", "-o", "/dev/null", path]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("error[fen-syntax]: FEN left unchanged: the FEN value is too long to read"),
        "{}",
        &text[..text.len().min(300)]
    );
    let out = common::run(&["stats", "--format", "json", path]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["classes"]["malformed"], 1, "{v}");
}

/// Each `.xz` output has an encoder of its own, which takes its memory as
/// its dictionary fills: a `split` by class of the 1 GB benchmark archive
/// took 191 MiB (six files at 32 MiB), one into every class and speed could
/// take 1.3 GiB. With more than two outputs each encoder is smaller.
#[test]
fn a_split_into_several_xz_files_stays_within_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    // Four speeds, about 6 MB of games each (more than preset 3's dictionary).
    let input = write(dir.path(), "games.pgn", |w| {
        for i in 0..300_000u64 {
            let tc = ["60+0", "300+0", "900+10", "-"][(i % 4) as usize];
            let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            writeln!(
                w,
                "[Event \"{i}\"]\n[White \"{x:x}\"]\n[Black \"{:x}\"]\n[TimeControl \"{tc}\"]\n\n1. e4 e5 *\n",
                x.rotate_left(17)
            )
            .unwrap();
        }
    });
    let template = dir.path().join("out/{speed}.pgn.xz");
    assert_eq!(split_within_the_bound(&template, &input), (4, 300_000));
}

/// A `split` into every class and speed writes 42 `.zst` files at once. Each
/// had its own compression threads and 2 MiB frames, with their buffers
/// kept for the next frames: 250 to 370 MiB, more as the input grew (133
/// MiB for 100 MB). The threads are now shared and the frames smaller.
#[test]
fn a_split_into_many_zst_files_stays_within_the_bound() {
    split_every_class_and_speed("zst", 110 << 20);
}

/// The same into `.bz2` files: each encoder at bzip2's default level takes
/// about 5 MB once its 600 kB block is full, 215 MB for the 42 (found by an
/// audit); past two outputs they compress at level 1. About 1 MB of games
/// goes to each file, more than a default block.
#[test]
fn a_split_into_many_bz2_files_stays_within_the_bound() {
    split_every_class_and_speed("bz2", 45 << 20);
}

/// `split` of about `bytes` of games, of every class and speed, into
/// `{speed}-{class}.pgn.ENDING`: 42 files, within the bound.
fn split_every_class_and_speed(ending: &str, bytes: usize) {
    let dir = tempfile::tempdir().unwrap();
    // The sample's 13 games (every class) under each of the seven speeds.
    let sample =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/mixed.pgn")).unwrap();
    let speeds = ["15+0", "60+0", "300+0", "900+10", "3600+30", "-", "?"];
    let copies: Vec<String> = speeds
        .iter()
        .map(|tc| sample.replace("[Event ", &format!("[TimeControl \"{tc}\"]\n[Event ")))
        .collect();
    let rounds = bytes / copies.iter().map(String::len).sum::<usize>();
    let input = write(dir.path(), "games.pgn", |w| {
        for _ in 0..rounds {
            for copy in &copies {
                w.write_all(copy.as_bytes()).unwrap();
            }
        }
    });
    let template = dir
        .path()
        .join(format!("out/{{speed}}-{{class}}.pgn.{ending}"));
    let games = (rounds * 13 * 7) as u64;
    assert_eq!(split_within_the_bound(&template, &input), (42, games));
}

/// Runs `split -o TEMPLATE INPUT` (TEMPLATE in a folder of its own), holds
/// its peak memory within the bound, and reads the files back: how many
/// there are and how many games they hold.
fn split_within_the_bound(template: &Path, input: &Path) -> (usize, u64) {
    let (kib, code) = peak_kib(&[
        "split",
        "-o",
        template.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    println!("{kib} KiB");
    assert_eq!(code, Some(0));
    assert!(kib < LIMIT_KIB, "{kib} KiB");
    let outputs: Vec<String> = std::fs::read_dir(template.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_owned())
        .collect();
    let mut args = vec!["stats", "--format", "json"];
    args.extend(outputs.iter().map(String::as_str));
    let v: serde_json::Value = serde_json::from_slice(&common::run(&args).stdout).unwrap();
    (outputs.len(), v["games"].as_u64().unwrap())
}

/// `--moves` wraps the job: its results' weight (check's findings) had been
/// lost, so the per-chunk budget never held, and `check --moves all` of a
/// million games that are all problems peaked at 131 MiB with 2 workers and
/// 230 with 4.
#[test]
fn check_with_moves_keeps_its_results_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "problems.pgn", |w| {
        for _ in 0..400_000 {
            w.write_all(
                b"[Event \"x\"]\n[SetUp \"1\"]\n\
                  [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq - 0 1\"]\n\n1. e4 *\n\n",
            )
            .unwrap();
        }
    });
    let f = input.to_str().unwrap();
    for args in [
        vec!["-j", "4", "check", "--moves", "all", f],
        vec![
            "-j", "4", "check", "--moves", "first", "--format", "json", f,
        ],
    ] {
        let (kib, code) = peak_kib(&args);
        println!("{kib:>8} KiB  exit {code:?}  {}", args.join(" "));
        assert_eq!(code, Some(1), "{args:?}");
        assert!(kib < LIMIT_KIB, "{args:?}: {kib} KiB");
    }
}

/// The members of a zip are read into buffers sized by the size each
/// declares, and small ones travel in batches: a batch had counted their
/// bytes but held 4 KiB for each, so `check` of 50,000 one-game members
/// peaked at 155 MiB. The central directory is walked a member at a time,
/// not held whole: 600,000 one-game members took 11 to 15 MiB (2026-12-03;
/// 149 MiB when it was held).
#[test]
fn a_zip_of_many_small_members_stays_within_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..50_000 {
        zip.start_file(format!("m{i:06}.pgn"), options).unwrap();
        zip.write_all(
            b"[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n",
        )
        .unwrap();
    }
    zip.finish().unwrap();
    let f = path.to_str().unwrap();
    for args in [
        vec!["check", f],
        vec!["check", "--format", "sarif", f],
        vec!["fen", "--format", "json", f],
        vec!["stats", f],
    ] {
        let (kib, code) = peak_kib(&args);
        println!("{kib:>8} KiB  exit {code:?}  {}", args.join(" "));
        assert!(matches!(code, Some(0 | 1)), "{args:?}: exit {code:?}");
        assert!(kib < LIMIT_KIB / 2, "{args:?}: {kib} KiB");
    }
}

/// A multi-frame zstd file whose later frame declares no size (`zstd -c a >
/// all.zst; cmd | zstd >> all.zst`) had that frame's compressed bytes read
/// whole before it was found too big for its reservation and streamed: a
/// 279 MB frame took 300 MiB. Such a frame is now streamed unread.
#[test]
fn an_unsized_frame_after_sized_ones_is_streamed_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("joined.pgn.zst");
    let mut file = std::fs::File::create(&path).unwrap();
    // A small frame that declares its size, as `zstd file` writes.
    let head = b"[Event \"head\"]\n\n1. e4 *\n\n".repeat(1000);
    file.write_all(&zstd::bulk::compress(&head, 1).unwrap())
        .unwrap();
    // A frame of unknown size, as `zstd` writes from a pipe: one game whose
    // comment is 64 MB of random letters (about 48 MB compressed).
    let mut encoder = zstd::stream::Encoder::new(&mut file, 1).unwrap();
    encoder.include_contentsize(false).unwrap();
    encoder.write_all(b"[Event \"tail\"]\n\n1. e4 {").unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut block = vec![0u8; 1 << 20];
    for _ in 0..64 {
        for b in block.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
                [(x >> 58) as usize];
        }
        encoder.write_all(&block).unwrap();
    }
    encoder.write_all(b"} *\n").unwrap();
    encoder.finish().unwrap();
    drop(file);
    let p = path.to_str().unwrap();
    let (kib, code) = peak_kib(&["stats", p]);
    println!("{kib} KiB");
    assert_eq!(code, Some(0));
    assert!(kib < 48 * 1024, "{kib} KiB");
    let out = common::run(&["stats", "--format", "json", p]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["games"], 1001);
}
