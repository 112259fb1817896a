//! The repository's own test files (tests/data/), checked against what they
//! declare: each edge-case file's name ends in its number of games (`-3g`), and
//! each game of `malformed-cases.pgn` opens its movetext with
//! `{expect: CODE,...}`, every code `check --warnings` must report for it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{json, run};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

#[test]
fn every_edge_case_file_holds_the_games_its_name_says() {
    let mut files = 0;
    for entry in std::fs::read_dir(data().join("edge")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let games: u64 = name
            .rsplit('-')
            .next()
            .and_then(|n| n.strip_suffix('g'))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no -Ng suffix"));
        let v = json(&run(&["stats", "--format", "json", path.to_str().unwrap()]));
        assert_eq!(v["games"].as_u64(), Some(games), "{name}");
        files += 1;
    }
    assert!(files >= 20, "{files} edge-case files");
}

#[test]
fn every_malformed_case_reports_exactly_its_expected_codes() {
    let path = data().join("malformed-cases.pgn");
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    // Each case starts with its Event tag; a case without `{expect:...}`
    // expects no problem at all.
    let expected: Vec<BTreeSet<String>> = text
        .split("\n[Event ")
        .map(|game| match game.find("{expect:") {
            Some(i) => {
                let rest = &game[i + 8..];
                rest[..rest.find('}').unwrap()]
                    .split(',')
                    .map(|c| c.trim().to_owned())
                    .filter(|c| !c.is_empty())
                    .collect()
            }
            None => BTreeSet::new(),
        })
        .collect();
    assert_eq!(expected.len(), 158);
    let out = run(&[
        "check",
        "--warnings",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let mut found: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let game = v["game"].as_u64().unwrap() as usize;
        found
            .entry(game)
            .or_default()
            .insert(v["code"].as_str().unwrap().to_owned());
    }
    for (i, want) in expected.iter().enumerate() {
        let got = found.remove(&(i + 1)).unwrap_or_default();
        assert_eq!(&got, want, "game {}", i + 1);
    }
    assert!(
        found.is_empty(),
        "problems in games without expectations: {found:?}"
    );
}
