//! `--tag EXPR` through the real binary: which games `filter` keeps, `--rest`
//! rebuilding the input, `stats --tag`, and malformed expressions.

mod common;

use std::path::{Path, PathBuf};

use common::{json, run, run_stdin};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

/// Games with known tags; the Event tag names each game (`g0`..).
fn games() -> Vec<String> {
    [
        "[Event \"g0\"]\n[WhiteElo \"2500\"]\n[Date \"2024.01.01\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n",
        "[Event \"g1\"]\n[WhiteElo \"900\"]\n[Date \"2023.12.31\"]\n[Result \"0-1\"]\n\n1. d4 0-1\n",
        // No WhiteElo, no Date.
        "[Event \"g2\"]\n[Result \"*\"]\n\n*\n",
        // Escaped quote in a value; two pairs on one line.
        "[Event \"g3\"] [White \"Smith \\\"Jr\\\"\"]\n[WhiteElo \"2600\"]\n\n1. c4 *\n",
        // A duplicate WhiteElo: the first counts.
        "[Event \"g4\"]\n[WhiteElo \"1000\"]\n[WhiteElo \"3000\"]\n[TimeControl \"600+0\"]\n\n*\n",
        // A non-number Elo compares as bytes; a Chess960 game.
        "[Event \"g5\"]\n[WhiteElo \"?\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n*\n",
        "[Event \"Rated Classical game\"]\n[Date \"2024.06.01\"]\n[TimeControl \"1800+0\"]\n\n1. e4 *\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The indices of the games `filter` keeps with these expressions (through
/// `stats --format json` per kept game would be slower: count game starts).
fn kept(exprs: &[&str]) -> Vec<usize> {
    let games = games();
    let input = games.concat();
    let mut args = vec!["filter", "-q"];
    for e in exprs {
        args.push("--tag");
        args.push(e);
    }
    let out = run_stdin(&args, input.as_bytes());
    assert!(
        out.status.success(),
        "{exprs:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Kept games are copied whole and in order: find each one.
    let mut at = 0;
    let mut kept = Vec::new();
    for (i, g) in games.iter().enumerate() {
        if text[at..].starts_with(g.as_str()) {
            kept.push(i);
            at += g.len();
        }
    }
    assert_eq!(at, text.len(), "{exprs:?}: output is not whole games");
    kept
}

#[test]
fn filter_keeps_the_games_whose_tags_match() {
    // `?` is not a number, so it compares byte by byte, and "?" > "2500"
    // (add `WhiteElo~^[0-9]` to leave unrated players out).
    assert_eq!(kept(&["WhiteElo>=2500"]), [0, 3, 5]);
    assert_eq!(kept(&["WhiteElo>=2500", "WhiteElo~^[0-9]"]), [0, 3]);
    assert_eq!(kept(&["WhiteElo<2500"]), [1, 4]);
    // `?` is not a number: byte order, and "?" > "2000".
    assert_eq!(kept(&["WhiteElo>2000"]), [0, 3, 5]);
    assert_eq!(kept(&["WhiteElo!=900"]), [0, 2, 3, 4, 5, 6]);
    assert_eq!(kept(&["Date>=2024.01.01"]), [0, 6]);
    assert_eq!(kept(&["Result=1-0"]), [0]);
    assert_eq!(kept(&["Event~Classical"]), [6]);
    assert_eq!(kept(&["Event~^g[0-2]$"]), [0, 1, 2]);
    assert_eq!(kept(&["Event!~^g"]), [6]);
    assert_eq!(kept(&["TimeControl=600+0"]), [4]);
    assert_eq!(kept(&["Variant!~960"]), [0, 1, 2, 3, 4, 6]);
    assert_eq!(kept(&["Variant~960"]), [5]);
    assert_eq!(kept(&[r#"White=Smith "Jr""#]), [3]);
    assert_eq!(kept(&["White!=Smith"]), [0, 1, 2, 3, 4, 5, 6]);
    // All must hold.
    assert_eq!(kept(&["WhiteElo>=900", "Date<2024"]), [1]);
    // Tag names are case-sensitive.
    assert_eq!(kept(&["whiteelo>=0"]), Vec::<usize>::new());
}

#[test]
fn tags_and_classes_combine() {
    let input = games().concat();
    let out = run_stdin(
        &["filter", "-q", "--class", "chess960", "--tag", "WhiteElo~."],
        input.as_bytes(),
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), games()[5]);
    let out = run_stdin(
        &["filter", "-q", "--class", "standard", "--tag", "Event~^g5"],
        input.as_bytes(),
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn kept_and_rest_rebuild_the_input() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["mixed.pgn", "standard.pgn", "malformed.pgn", "chess960.pgn"] {
        let input = std::fs::read(sample(name)).unwrap();
        for expr in [
            "Date>=1900",
            "Event~(?i)chess",
            "White!~a",
            "Result=1-0",
            "Round<3",
            "Missing=x",
        ] {
            let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
            let out = run(&[
                "filter",
                "-q",
                "--tag",
                expr,
                "-o",
                a.to_str().unwrap(),
                "--rest",
                b.to_str().unwrap(),
                sample(name).to_str().unwrap(),
            ]);
            assert!(out.status.success(), "{name} {expr}");
            let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
            assert_eq!(a.len() + b.len(), input.len(), "{name} {expr}");
            // Kept and rest are in input order: taking each game of the input
            // (by the spans of `pgnfen index`) from the front of one of them
            // uses both up exactly, so the two rebuild the input byte for byte.
            let index = run(&["index", sample(name).to_str().unwrap()]);
            let (mut ra, mut rb) = (&a[..], &b[..]);
            for line in String::from_utf8(index.stdout).unwrap().lines() {
                let g: serde_json::Value = serde_json::from_str(line).unwrap();
                let (o, l) = (
                    g["offset"].as_u64().unwrap() as usize,
                    g["length"].as_u64().unwrap() as usize,
                );
                let game = &input[o..o + l];
                if ra.starts_with(game) {
                    ra = &ra[l..];
                } else {
                    assert!(
                        rb.starts_with(game),
                        "{name} {expr}: game at {o} in neither output"
                    );
                    rb = &rb[l..];
                }
            }
            assert!(ra.is_empty() && rb.is_empty(), "{name} {expr}");
            let games = |bytes: &[u8]| {
                json(&run_stdin(&["stats", "--format", "json"], bytes))["games"]
                    .as_u64()
                    .unwrap()
            };
            assert_eq!(games(&a) + games(&b), games(&input), "{name} {expr}");
        }
    }
}

#[test]
fn stats_counts_only_matching_games() {
    let input = games().concat();
    let v = json(&run_stdin(
        &["stats", "--format", "json", "--tag", "WhiteElo>=2500"],
        input.as_bytes(),
    ));
    assert_eq!(v["games"], 3);
    assert_eq!(v["unmatched"], 4);
    for class in ["standard", "setup", "chess960", "crc", "other", "malformed"] {
        assert!(v["classes"][class].is_u64(), "{class}");
    }
    let v = json(&run_stdin(&["stats", "--format", "json"], input.as_bytes()));
    assert!(v.get("unmatched").is_none());
    let out = run_stdin(&["stats", "--tag", "Event~^g"], input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1 game read did not match --tag and is not counted"),
        "{text}"
    );
}

#[test]
fn malformed_expressions_are_usage_errors() {
    for (expr, caret) in [
        ("WhiteElo>>2500", "          ^^"),
        ("WhiteElo 2500", "          ^"),
        ("=2500", "  ^"),
        ("Event~(unclosed", "        ^"),
        ("WhiteElo", "          ^"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out_path = dir.path().join("out.pgn");
        let out = run(&[
            "filter",
            "--tag",
            expr,
            "-o",
            out_path.to_str().unwrap(),
            sample("mixed.pgn").to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{expr}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("\n  {expr}\n{caret}")),
            "{expr}: {err}"
        );
        assert!(!out_path.exists(), "{expr}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

#[test]
fn filter_needs_something_to_select() {
    let out = run(&["filter", sample("mixed.pgn").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--class, --chess960-position, --tag, --speed or --moves")
    );
}

#[test]
fn chess960_positions_need_the_chess960_class() {
    let out = run(&[
        "filter",
        "--class",
        "standard",
        "--chess960-position",
        "518",
        sample("mixed.pgn").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not include chess960"));
    let out = run(&[
        "filter",
        "--chess960-position",
        "960",
        sample("mixed.pgn").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0 to 959") && !err.contains("0..960"), "{err}");
    // The value quoted once (by the flag parser), and an empty item named as
    // the other lists name it.
    assert!(
        err.contains("invalid value '960' for '--chess960-position <N[,N...]>': not a Chess960"),
        "{err}"
    );
    let out = run(&["filter", "--chess960-position", "518,", "-"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("an empty item in the list (a comma too many?)"),
        "{err}"
    );
    // A position list alone keeps only the Chess960 games from those arrays.
    let out = run(&[
        "filter",
        "-q",
        "--chess960-position",
        "0",
        sample("chess960.pgn").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let v = json(&run_stdin(&["stats", "--format", "json"], &out.stdout));
    assert_eq!(v["games"], 1);
    assert_eq!(v["chess960_positions"]["0"], 1);
    // Every selection given must hold: with another class named beside
    // chess960, a game of that class has no number and is not kept.
    let mut input = std::fs::read(sample("mixed.pgn")).unwrap();
    input.extend(std::fs::read(sample("chess960.pgn")).unwrap());
    let both = run_stdin(
        &[
            "filter",
            "-q",
            "--class",
            "standard,chess960",
            "--chess960-position",
            "0",
        ],
        &input,
    );
    let alone = run_stdin(&["filter", "-q", "--chess960-position", "0"], &input);
    assert!(both.status.success() && alone.status.success());
    assert_eq!(both.stdout, alone.stdout);
    let v = json(&run_stdin(&["stats", "--format", "json"], &both.stdout));
    assert_eq!(v["games"], v["classes"]["chess960"]);
    assert_eq!(v["games"], v["chess960_positions"]["0"]);
    assert!(v["games"].as_u64().unwrap() >= 2, "{v}");
}

/// The white back rank of Chess960 start position `n` (Scharnagl numbering).
fn chess960_rank(n: usize) -> String {
    let mut rank = [' '; 8];
    let (n, b1) = (n / 4, n % 4);
    rank[2 * b1 + 1] = 'B';
    let (n, b2) = (n / 4, n % 4);
    rank[2 * b2] = 'B';
    let (n, q) = (n / 6, n % 6);
    let free = |rank: &[char; 8]| -> Vec<usize> { (0..8).filter(|&i| rank[i] == ' ').collect() };
    rank[free(&rank)[q]] = 'Q';
    let knights = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ][n];
    let f = free(&rank);
    rank[f[knights.0]] = 'N';
    rank[f[knights.1]] = 'N';
    let f = free(&rank);
    rank[f[0]] = 'R';
    rank[f[1]] = 'K';
    rank[f[2]] = 'R';
    rank.iter().collect()
}

#[test]
fn stats_text_says_what_it_leaves_out() {
    let mut input = String::new();
    for n in 0..12 {
        let white = chess960_rank(n);
        let fen = format!(
            "{}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1",
            white.to_lowercase()
        );
        input.push_str(&format!(
            "[Event \"{n}\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*\n\n"
        ));
    }
    // A Chess960 game from a middlegame position: no start array.
    input.push_str("[Event \"m\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w - - 0 30\"]\n\n*\n");
    let v = json(&run_stdin(&["stats", "--format", "json"], input.as_bytes()));
    assert_eq!(v["classes"]["chess960"], 13, "{v}");
    assert_eq!(
        v["chess960_positions"].as_object().unwrap().len(),
        12,
        "{v}"
    );
    let out = run_stdin(&["stats"], input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("the 10 most common of 12 distinct"), "{text}");
    assert!(
        text.contains("1 Chess960 game not from a start array"),
        "{text}"
    );
    // The ten listed: position numbers 0..11, each with its back rank.
    let listed = (0..12)
        .filter(|&n| text.contains(&chess960_rank(n)))
        .count();
    assert_eq!(listed, 10, "{text}");
}

#[test]
fn summaries_have_thousands_separators() {
    let game = "[Event \"x\"]\n\n1. e4 *\n\n";
    let input = game.repeat(1234);
    let out = run_stdin(&["filter", "--class", "standard"], input.as_bytes());
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kept 1,234 of 1,234 games"), "{err}");
    let out = run_stdin(&["stats"], input.as_bytes());
    assert!(String::from_utf8_lossy(&out.stdout).contains("1,234"));
}
