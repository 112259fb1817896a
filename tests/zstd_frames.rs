//! zstd files of many frames (pzstd's, the lichess database's) are decoded
//! frame by frame on the worker threads: every command must give exactly what
//! it gives on the plain file, and a damaged frame must be a clean error.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::bin;

/// Where the test archive's games come from.
#[derive(Clone, Copy)]
enum Games {
    /// The repository's samples and test files, repeated to ~3 MB (frames of
    /// 256 KB then cut games, comments and CRLF pairs everywhere).
    Repository,
    /// The corpus's PGN files (~30 MB; the folder `PGNFEN_CORPUS` names).
    Corpus,
}

/// The games of `from` concatenated into one plain file in `dir`.
fn archive(dir: &Path, from: Games) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = match from {
        Games::Repository => vec![
            manifest.join("samples"),
            manifest.join("tests/data"),
            manifest.join("tests/data/edge"),
        ],
        Games::Corpus => {
            let root =
                PathBuf::from(std::env::var_os("PGNFEN_CORPUS").expect("needs PGNFEN_CORPUS"));
            vec![root.join("real"), root.join("generated")]
        }
    };
    let mut files = Vec::new();
    for d in dirs {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "pgn") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut all = Vec::new();
    for f in files {
        all.extend(std::fs::read(f).unwrap());
    }
    if let Games::Repository = from {
        let once = all.clone();
        while all.len() < 3 << 20 {
            all.extend_from_slice(&once);
        }
    }
    let path = dir.join("all.pgn");
    std::fs::write(&path, all).unwrap();
    path
}

/// pzstd's layout, made here: frames of `frame` input bytes, each announced by
/// a 12-byte skippable frame holding its compressed size.
fn pzstd_like(data: &[u8], frame: usize, announce: bool) -> Vec<u8> {
    frames(data, frame, announce, false)
}

/// Frames of `frame` input bytes, announced or not, declaring their size or
/// not (`cat a.zst b.zst` of files compressed by `zstd` declares it).
fn frames(data: &[u8], frame: usize, announce: bool, sized: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for part in data.chunks(frame) {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
        enc.include_checksum(true).unwrap();
        if sized {
            enc.set_pledged_src_size(Some(part.len() as u64)).unwrap();
        }
        std::io::Write::write_all(&mut enc, part).unwrap();
        let compressed = enc.finish().unwrap();
        if announce {
            out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
            out.extend_from_slice(&4u32.to_le_bytes());
            out.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        }
        out.extend(compressed);
    }
    out
}

fn pgnfen(args: &[&str]) -> std::process::Output {
    bin().args(args).output().unwrap()
}

/// Everything the commands say about `input` with `-j threads`, the name of
/// the input replaced by `NAME` (outputs to files read back).
fn results(input: &Path, threads: &str, dir: &Path) -> Vec<(String, Vec<u8>)> {
    let name = input.to_str().unwrap();
    let kept = dir.join("kept.pgn");
    let rest = dir.join("rest.pgn");
    let converted = dir.join("conv.pgn");
    let k = kept.to_str().unwrap();
    let r = rest.to_str().unwrap();
    let c = converted.to_str().unwrap();
    let mut out = Vec::new();
    let runs: Vec<(&str, Vec<&str>, Option<&Path>)> = vec![
        ("stats", vec!["stats", "--format", "json", name], None),
        (
            "filter",
            vec!["filter", "--class", "standard", "-o", k, "--rest", r, name],
            Some(&kept),
        ),
        ("filter rest", vec![], Some(&rest)),
        (
            "filter tag",
            vec!["filter", "--tag", "WhiteElo>=2000", name],
            None,
        ),
        (
            "convert",
            vec!["convert", "--to", "shredder", "-o", c, name],
            Some(&converted),
        ),
        ("check", vec!["check", "--format", "json", name], None),
    ];
    for (what, args, file) in runs {
        if !args.is_empty() {
            let mut full = vec!["-q", "-j", threads];
            full.extend(args);
            let o = pgnfen(&full);
            assert!(
                o.status.code().is_some_and(|c| c <= 1),
                "{what} on {name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let text = String::from_utf8_lossy(&o.stdout).replace(name, "NAME");
            out.push((what.to_string(), text.into_bytes()));
        }
        if let Some(f) = file {
            out.push((format!("{what} file"), std::fs::read(f).unwrap()));
        }
    }
    out
}

fn assert_same(a: &[(String, Vec<u8>)], b: &[(String, Vec<u8>)], label: &str) {
    assert_eq!(a.len(), b.len());
    for ((what, x), (_, y)) in a.iter().zip(b) {
        assert!(
            x == y,
            "{label}: `{what}` differs ({} vs {} bytes)",
            x.len(),
            y.len()
        );
    }
}

#[test]
fn many_frames_give_the_plain_results() {
    frames_give_the_plain_results(Games::Repository, false);
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn many_frames_of_the_corpus_give_the_plain_results() {
    frames_give_the_plain_results(Games::Corpus, false);
}

#[test]
#[ignore = "needs pzstd"]
fn a_file_written_by_pzstd_gives_the_plain_results() {
    frames_give_the_plain_results(Games::Repository, true);
}

/// Every command on `from`'s games as zstd archives of many frames (and, with
/// `pzstd`, as the real pzstd writes them) gives what it gives on the plain file.
fn frames_give_the_plain_results(from: Games, pzstd: bool) {
    let dir = tempfile::tempdir().unwrap();
    let plain = archive(dir.path(), from);
    let data = std::fs::read(&plain).unwrap();
    let mut archives = Vec::new();
    // Small frames (cut anywhere: inside games, comments, CRLF pairs): with
    // pzstd's announcements; with neither announcements nor sizes (read by the
    // sequential decoder); with sizes only (the frames are walked).
    for (frame, announce, sized) in [
        (256 << 10, true, false),
        (1_000_003, false, false),
        (777_777, false, true),
    ] {
        let path = dir.path().join(format!("f{frame}.pgn.zst"));
        std::fs::write(&path, frames(&data, frame, announce, sized)).unwrap();
        archives.push(path);
    }
    if pzstd {
        // The real pzstd (.ci/run installs Debian's zstd package).
        let pz = dir.path().join("pzstd.pgn.zst");
        let made = Command::new("pzstd")
            .args(["-q", "-p2", "-1", "-f", "-o"])
            .arg(&pz)
            .arg(&plain)
            .status()
            .expect("pzstd runs (apt-get install zstd)");
        assert!(made.success());
        archives = vec![pz];
    }
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let expected = results(&plain, "1", &out);
    assert_same(&expected, &results(&plain, "2", &out), "plain -j2");
    for archive in &archives {
        for threads in ["1", "2", "3"] {
            let got = results(archive, threads, &out);
            assert_same(
                &expected,
                &got,
                &format!("{} -j{threads}", archive.display()),
            );
        }
    }
}

#[test]
fn a_damaged_frame_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let game = b"[Event \"e\"]\n[Site \"s\"]\n\n1. e4 { note } e5 2. Nf3 Nc6 1-0\n\n";
    let mut data = Vec::new();
    let mut i = 0u64;
    while data.len() < 3 << 20 {
        data.extend_from_slice(game);
        data.extend_from_slice(format!("{{ {} }}\n\n", i * 7919 % 100_003).as_bytes());
        i += 1;
    }
    let good = pzstd_like(&data, 128 << 10, true);
    let plain = dir.path().join("plain.pgn");
    std::fs::write(&plain, &data).unwrap();
    let whole = dir.path().join("whole.pgn.zst");
    std::fs::write(&whole, &good).unwrap();
    let count = |p: &Path, j: &str| {
        let o = pgnfen(&[
            "-q",
            "-j",
            j,
            "stats",
            "--format",
            "json",
            p.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["games"].clone()
    };
    assert_eq!(count(&whole, "2"), count(&plain, "1"));

    // A frame in the middle with damaged bytes.
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 16] {
        *b ^= 0x5A;
    }
    let corrupt = dir.path().join("corrupt.pgn.zst");
    std::fs::write(&corrupt, &bad).unwrap();
    // Cut in the middle of a frame.
    let truncated = dir.path().join("truncated.pgn.zst");
    std::fs::write(&truncated, &good[..good.len() * 2 / 3]).unwrap();
    // Bytes that are no frame after the last frame.
    let mut tail = good.clone();
    tail.extend_from_slice(b"[Event \"not compressed\"]\n");
    let tailed = dir.path().join("tail.pgn.zst");
    std::fs::write(&tailed, &tail).unwrap();

    for (path, says) in [
        (&corrupt, "zstd frame at byte"),
        (&truncated, "truncated"),
        (&tailed, "not zstd data"),
    ] {
        for j in ["1", "2"] {
            let kept = dir.path().join("kept.pgn");
            let k = kept.to_str().unwrap();
            for args in [
                vec!["stats"],
                vec!["filter", "--class", "standard", "-o", k],
            ] {
                let mut full = vec!["-q", "-j", j];
                full.extend(&args);
                full.push(path.to_str().unwrap());
                let o = pgnfen(&full);
                let err = String::from_utf8_lossy(&o.stderr);
                assert_eq!(o.status.code(), Some(2), "{args:?} -j{j}: {err}");
                assert!(
                    err.contains(path.to_str().unwrap()) && !err.contains("panicked"),
                    "{err}"
                );
                assert!(err.contains(says), "{args:?} -j{j}: {err}");
                assert!(!kept.exists(), "a failed filter left its output");
            }
        }
    }
}

#[test]
fn a_pzstd_file_on_standard_input_is_decoded_too() {
    // Standard input keeps the sequential decoder; pzstd's leading skippable
    // frame must still be recognised as zstd (it once was read as text).
    let dir = tempfile::tempdir().unwrap();
    let plain = archive(dir.path(), Games::Repository);
    let data = std::fs::read(&plain).unwrap();
    let packed = pzstd_like(&data, 64 << 10, true);
    let from_stdin = common::run_stdin(&["stats", "--format", "json", "-"], &packed);
    let direct = pgnfen(&["stats", "--format", "json", plain.to_str().unwrap()]);
    assert_eq!(common::json(&from_stdin), common::json(&direct));
}

/// A file of many frames cut short (a download that stopped): the frames
/// before the cut are read out whatever how far ahead the parallel reader
/// walked, and give what the same bytes give from a pipe, where they are
/// decoded in turn.
#[test]
fn a_cut_file_of_many_frames_hands_on_every_whole_frame_as_a_pipe_does() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..30_000)
        .map(|i| format!("[Event \"{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"))
        .collect();
    let frames: Vec<u8> = text
        .as_bytes()
        .chunks(text.len() / 40 + 1)
        .flat_map(|piece| zstd::encode_all(piece, 1).unwrap())
        .collect();
    for fraction in [0.3, 0.6, 0.75] {
        let cut = &frames[..(frames.len() as f64 * fraction) as usize];
        let path = dir.path().join("cut.pgn.zst");
        std::fs::write(&path, cut).unwrap();
        let from_file = bin()
            .args(["-q", "convert", "--to", "shredder"])
            .arg(&path)
            .output()
            .unwrap();
        let from_pipe = common::run_stdin(&["-q", "convert", "--to", "shredder", "-"], cut);
        assert_eq!(from_file.status.code(), Some(2));
        assert_eq!(from_pipe.status.code(), Some(2));
        assert_eq!(from_file.stdout, from_pipe.stdout, "{fraction}");
        // Nearly all of the text before the cut: all but the game it cut.
        let written = from_file.stdout.len();
        assert!(text.as_bytes().starts_with(&from_file.stdout));
        let readable = zstd::stream::read::Decoder::new(cut)
            .map(|mut d| {
                let mut out = Vec::new();
                let _ = std::io::Read::read_to_end(&mut d, &mut out);
                out.len()
            })
            .unwrap();
        assert!(
            written + 64 > readable && written <= readable,
            "{fraction}: {written} of {readable}"
        );
    }
}
