//! The scanner over the corpus (the folder `PGNFEN_CORPUS` names): game
//! counts against `expected.json`, the same events whatever the piece sizes,
//! and the speculative cut of the pipeline.

#[path = "scan_util.rs"]
mod util;

use std::path::{Path, PathBuf};

use util::*;

/// The corpus folder named by `PGNFEN_CORPUS` (outside the repository); the
/// tests that need it are ignored unless asked for, and fail without it.
fn corpus() -> PathBuf {
    let dir = PathBuf::from(
        std::env::var_os("PGNFEN_CORPUS")
            .expect("this test needs PGNFEN_CORPUS (the corpus folder)"),
    );
    assert!(
        dir.join("expected.json").is_file(),
        "{}: not the corpus folder",
        dir.display()
    );
    dir
}

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read corpus dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            pgn_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "pgn") {
            out.push(p);
        }
    }
}

fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut ps = Vec::new();
    pgn_files(root, &mut ps);
    ps.into_iter()
        .map(|p| {
            let key = p
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            let data = std::fs::read(&p).expect("read corpus file");
            (key, data)
        })
        .collect()
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn game_counts_match_expected() {
    let root = corpus();
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("expected.json")).expect("expected.json"))
            .expect("expected.json parses");
    let mut bad = Vec::new();
    let mut n = 0;
    let mut total = 0;
    for (key, data) in files(&root) {
        let got = games(&scan_whole(&data));
        total += got;
        n += 1;
        let want = expected[&key]["games"].as_u64();
        if want != Some(got as u64) {
            bad.push(format!("{key}: scanned {got}, expected {want:?}"));
        }
        // The edge files carry their count in the name: `...-3g.pgn`.
        if let Some(name) = key.strip_prefix("generated/edge/") {
            let digits = name
                .trim_end_matches("g.pgn")
                .rsplit('-')
                .next()
                .unwrap_or("");
            let want: usize = digits.parse().expect("edge file name ends in -Ng.pgn");
            if want != got {
                bad.push(format!("{key}: scanned {got}, name says {want}"));
            }
        }
    }
    println!(
        "scan_corpus: {n} .pgn files, {total} games, {} disagreements",
        bad.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn events_do_not_depend_on_piece_sizes() {
    let root = corpus();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut n = 0;
    for (key, data) in files(&root) {
        let whole = scan_whole(&data);
        assert_eq!(scan_pieces(&data, || 7), whole, "{key}: 7-byte pieces");
        for _ in 0..3 {
            let max = 1 + rng.below(5000);
            let mut r = Rng(rng.next_u64() | 1);
            assert_eq!(
                scan_pieces(&data, || 1 + r.below(max) as usize),
                whole,
                "{key}: random pieces up to {max}"
            );
        }
        if data.len() <= 300_000 {
            assert_eq!(scan_pieces(&data, || 1), whole, "{key}: 1-byte pieces");
        }
        n += 1;
    }
    println!("piece sizes: {n} files give the same events whole, in 7-byte and random pieces");
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn speculative_cuts_agree() {
    let root = corpus();
    let mut all = CutStats::default();
    let mut real = CutStats::default();
    for (key, data) in files(&root) {
        let cuts = cut_points(&data);
        let st = check_cuts(&data, &cuts);
        if st.rescan > 0 {
            println!(
                "{key}: {} cuts, {} NewGame, {} SameGame, {} Rescan",
                st.cuts, st.new_game, st.same_game, st.rescan
            );
        }
        all.add(&st);
        if key.starts_with("real/") {
            real.add(&st);
        }
    }
    println!("speculative cuts, all files: {all:?}");
    println!(
        "speculative cuts, real/: {real:?} (Rescan {:.4} %)",
        100.0 * real.rescan as f64 / real.cuts.max(1) as f64
    );
}
