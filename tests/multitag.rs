//! The real binary on tag lines that hold several tag pairs
//! (`[SetUp "1"] [FEN "..."]`): every pair of the line is read.

mod common;

use common::{classes, json, run, run_stdin};
use std::path::Path;

/// The example of the bug report: SetUp and FEN on one line.
const M2: &str = "[SetUp \"1\"] [FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn check_finds_the_fen_of_a_second_pair() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m2.pgn", M2);
    let out = run(&["check", &p]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("error["), "{text}");
    assert!(!text.contains("setup-without-fen"), "{text}");
    assert!(text.contains("1 game read; 0 with errors"), "{text}");
    // nothing at all, warnings included
    let out = run(&["check", "-q", "--warnings", "--format", "json", &p]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn stats_says_setup() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m2.pgn", M2);
    let v = json(&run(&["stats", "--format", "json", &p]));
    assert_eq!(v["games"], 1);
    assert_eq!(classes(&v), [0, 1, 0, 0, 0, 0]);
    assert_eq!(v["problems"], serde_json::json!({}));
    let text = String::from_utf8(run(&["stats", &p]).stdout).unwrap();
    let setup = text.lines().find(|l| l.starts_with("setup")).unwrap();
    assert_eq!(setup.split_whitespace().nth(1), Some("1"), "{text}");
}

#[test]
fn three_pairs_and_a_variant_on_one_line() {
    let input = "[Event \"a\"] [Variant \"Chess960\"] [SetUp \"1\"] \
                 [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n*\n";
    let v = json(&run_stdin(&["stats", "--format", "json"], input.as_bytes()));
    assert_eq!(classes(&v), [0, 0, 1, 0, 0, 0]);
    assert_eq!(v["chess960_positions"]["0"], 1);
}

#[test]
fn check_points_into_the_later_pair() {
    let input = "[Event \"x\"] [SetUp \"1\"] \
                 [FEN \"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n*\n";
    let out = run_stdin(&["check"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    // the `9` of the FEN value, on line 1
    assert!(text.contains("<stdin>:1:49: error[fen-syntax]: "), "{text}");
    assert!(!text.contains("setup-without-fen"), "{text}");
}

#[test]
fn names_of_later_pairs_separate_header_only_games() {
    // Round is held by the first header (second pair): the blank line and
    // `[Round "2"]` start a new game.
    let input = "[Event \"a\"] [Round \"1\"]\n\n[Round \"2\"] [Event \"b\"]\n\n[Event \"c\"]\n";
    let v = json(&run_stdin(&["stats", "--format", "json"], input.as_bytes()));
    assert_eq!(v["games"], 3);
}

#[test]
fn convert_rewrites_the_fen_of_a_later_pair() {
    let input = "[Event \"x\"] [SetUp \"1\"] [FEN \"4k3/8/8/8/8/8/8/4K2R w K -\"] junk\n\n*\n";
    let out = run_stdin(&["convert", "-q", "--to", "shredder"], input.as_bytes());
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "[Event \"x\"] [SetUp \"1\"] [FEN \"4k3/8/8/8/8/8/8/4K2R w H - 0 1\"] junk\n\n*\n"
    );
}
