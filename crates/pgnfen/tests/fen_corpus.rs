//! The FEN model against the corpus (`PGNFEN_CORPUS`): `positions.fen` record by record
//! against `positions.expected.jsonl`, and the class counts of `real/*.epd`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use pgnfen::fen::{VariantHint, analyse, report};
use serde_json::Value;

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

/// Input lines listed in the repository's `tests/known-disagreements.txt` (line, then a tab and the reason).
fn known_disagreements() -> BTreeSet<String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/known-disagreements.txt");
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeSet::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            println!("known disagreement: {l}");
            l.split('\t').next().unwrap_or(l).to_owned()
        })
        .collect()
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn positions_fen_matches_expectations() {
    let dir = corpus();
    let fens = std::fs::read(dir.join("generated/positions.fen")).expect("positions.fen");
    let expected = std::fs::read_to_string(dir.join("generated/positions.expected.jsonl"))
        .expect("positions.expected.jsonl");
    let known = known_disagreements();
    let mut fen_lines: Vec<&[u8]> = lines(&fens).collect();
    if fen_lines.last() == Some(&&b""[..]) {
        fen_lines.pop();
    }
    let exp_lines: Vec<&str> = expected.lines().collect();
    assert_eq!(fen_lines.len(), exp_lines.len());
    let (mut agree, mut skipped) = (0usize, 0usize);
    let mut failures = Vec::new();
    for (line, exp) in fen_lines.iter().zip(&exp_lines) {
        let exp: Value = serde_json::from_str(exp).expect("json line");
        let input = String::from_utf8_lossy(line);
        let analysis = analyse(line, VariantHint::StandardLike);
        let got = serde_json::to_value(report(&input, &analysis, None)).expect("serializes");
        let mut diffs = Vec::new();
        for key in [
            "valid",
            "class",
            "board",
            "chess960_position",
            "fen",
            "xfen",
            "shredder",
        ] {
            if got[key] != exp[key] {
                diffs.push(format!("{key}: got {} expected {}", got[key], exp[key]));
            }
        }
        // In order, repeats included: the order is the one the record is
        // judged in (docs/codes.md).
        let codes = |v: &Value, nested: bool| -> Vec<String> {
            v["problems"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| {
                    if nested {
                        p["code"].as_str()
                    } else {
                        p.as_str()
                    }
                })
                .map(str::to_owned)
                .collect()
        };
        let (gc, ec) = (codes(&got, true), codes(&exp, false));
        if gc != ec {
            diffs.push(format!(
                "problems: got {gc:?} expected {ec:?} ({:?})",
                got["problems"]
            ));
        }
        if diffs.is_empty() {
            agree += 1;
        } else if known.contains(input.as_ref()) {
            skipped += 1;
        } else {
            failures.push(format!("{input}\n    {}", diffs.join("\n    ")));
        }
    }
    let counted = fen_lines.len() - skipped;
    println!(
        "positions.fen: {agree} of {counted} records agree ({skipped} known disagreements not counted)"
    );
    for f in failures.iter().take(40) {
        println!("DISAGREE {f}");
    }
    assert!(failures.is_empty(), "{} records disagree", failures.len());
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn real_epd_class_counts() {
    let dir = corpus();
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("expected.json")).expect("expected.json"),
    )
    .expect("json");
    let mut checked = 0;
    for (key, exp) in expected.as_object().expect("object") {
        if !(key.starts_with("real/") && key.ends_with(".epd")) {
            continue;
        }
        let bytes = std::fs::read(dir.join(key)).expect("epd file");
        let mut classes: BTreeMap<String, u64> = BTreeMap::new();
        for line in lines(&bytes).filter(|l| !l.is_empty()) {
            let a = analyse(line, VariantHint::StandardLike);
            *classes.entry(a.class.as_str().to_owned()).or_default() += 1;
        }
        for (class, n) in exp["classes"].as_object().expect("classes") {
            let got = classes.get(class).copied().unwrap_or(0);
            assert_eq!(Some(got), n.as_u64(), "{key}: class {class}");
        }
        println!("{key}: class counts agree");
        checked += 1;
    }
    assert!(checked > 0);
}
