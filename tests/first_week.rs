//! What a new user runs into in the first week (issue 24 items 3, 5, 7, 8, 9;
//! issue 19 item 11): each test runs the real binary on small files it writes.

mod common;

use std::path::Path;

use common::run;
use serde_json::Value;

fn write(dir: &Path, name: &str, text: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const TWO_GAMES: &str = "[Event \"a\"]\n[WhiteElo \"2600\"]\n[BlackElo \"2400\"]\n\n1. e4 *\n\n\
[Event \"b\"]\n[WhiteElo \"2100\"]\n\n1. d4 *\n";

// --- #24.3: a --tag naming a tag no game held ---------------------------------

#[test]
fn a_misspelled_tag_is_named_with_the_closest_tag_seen() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write(dir.path(), "games.pgn", TWO_GAMES.as_bytes());
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let template = format!("{}/{{class}}.pgn", out_dir.display());
    let kept = dir.path().join("kept.pgn").display().to_string();
    let csv = dir.path().join("rows.csv").display().to_string();
    for args in [
        vec!["filter", "--tag", "whiteelo>=2500", "-o", &kept, &pgn],
        vec!["stats", "--tag", "whiteelo>=2500", &pgn],
        vec!["split", "--tag", "whiteelo>=2500", "-o", &template, &pgn],
        vec!["export", "--tag", "whiteelo>=2500", "-o", &csv, &pgn],
    ] {
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("no game held the tag whiteelo") && err.contains("did you mean WhiteElo?"),
            "{args:?}: {err}"
        );
    }
    // Spelled right: no warning, and the game is kept.
    let out = run(&["filter", "--tag", "WhiteElo>=2500", &pgn]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[Event \"a\"]"));
    // A tag held only by games the class rules out still counts as seen.
    let out = run(&[
        "filter",
        "--class",
        "chess960",
        "--tag",
        "WhiteElo>=2500",
        &pgn,
    ]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    // Nothing close: the warning still comes, without a guess; -q silences it.
    let out = run(&["stats", "--tag", "Xyzzy=1", &pgn]);
    let err = stderr(&out);
    assert!(
        err.contains("no game held the tag Xyzzy") && !err.contains("did you mean"),
        "{err}"
    );
    let out = run(&["-q", "stats", "--tag", "Xyzzy=1", &pgn]);
    assert!(!stderr(&out).contains("Xyzzy"));
}

#[test]
fn a_tag_seen_only_after_another_expression_failed_is_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write(dir.path(), "games.pgn", TWO_GAMES.as_bytes());
    // WhiteElo fails for game b before BlackElo is looked at; BlackElo is held by a.
    let out = run(&[
        "stats",
        "--tag",
        "WhiteElo>=3000",
        "--tag",
        "BlackElo>=1",
        &pgn,
    ]);
    assert!(out.status.success());
    assert!(!stderr(&out).contains("no game held"), "{}", stderr(&out));
}

// --- #24.8: help that fits each command --------------------------------------

#[test]
fn help_of_man_completions_and_explain_shows_no_global_option() {
    for name in ["man", "completions", "explain"] {
        let out = run(&[name, "--help"]);
        assert!(out.status.success(), "{name}");
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in ["--threads", "--no-mmap", "--progress", "--quiet"] {
            assert!(!help.contains(flag), "{name} --help shows {flag}:\n{help}");
        }
        assert!(
            !help.contains("`check`"),
            "{name}: exit status of check\n{help}"
        );
        assert!(help.contains("Exit status: 0"), "{name}\n{help}");
    }
    // The commands that read input keep them, with their own exit statuses.
    let help = String::from_utf8_lossy(&run(&["filter", "--help"]).stdout).into_owned();
    assert!(
        help.contains("--threads") && help.contains("--no-mmap"),
        "{help}"
    );
    assert!(
        help.contains("Exit status: 0 on success; 2 on a usage or I/O error."),
        "{help}"
    );
    assert!(!help.contains("fen` an invalid"), "{help}");
    let help = String::from_utf8_lossy(&run(&["check", "--help"]).stdout).into_owned();
    assert!(help.contains("1 when an error was"), "{help}");
    // Still accepted (ignored) where they do not apply.
    assert!(run(&["-j", "2", "man"]).status.success());
    // The completion scripts offer them only after commands that read input.
    let bash = String::from_utf8(run(&["completions", "bash"]).stdout).unwrap();
    let opts = |cmd: &str| -> String {
        let at = bash.find(&format!("pgnfen__subcmd__{cmd})")).unwrap();
        let line = bash[at..].lines().find(|l| l.contains("opts=")).unwrap();
        line.to_string()
    };
    assert!(!opts("man").contains("--threads"), "{}", opts("man"));
    assert!(!opts("completions").contains("--no-mmap"));
    assert!(opts("filter").contains("--threads"));
}

#[test]
fn one_record_and_one_game_are_singular() {
    let out = common::run_stdin(&["fen"], b"not a fen\n");
    let err = stderr(&out);
    assert!(err.contains("1 record, 1 invalid"), "{err}");
    let out = common::run_stdin(
        &["convert", "--to", "shredder"],
        b"[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n*\n",
    );
    let err = stderr(&out);
    assert!(err.contains("1 game, 1 FEN tag written"), "{err}");
}

// --- #24.8 / #24.9: check's machine formats and the explain hint ---------------

const BAD_FEN: &[u8] = b"[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1\"]\n\n*\n";

#[test]
fn json_csv_and_sarif_carry_the_help_and_the_end_column() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write(dir.path(), "game.pgn", BAD_FEN);
    let out = run(&["check", "--format", "json", &pgn]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["column"], 49);
    assert_eq!(v["end_column"], 50, "one character at fault");
    assert!(
        v["help"]
            .as_str()
            .unwrap()
            .starts_with("write white pieces"),
        "{v}"
    );

    let out = run(&["check", "--format", "csv", &pgn]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("file,game,line,column,tag,code,severity,message,end_column,help")
    );
    assert!(lines.next().unwrap().contains(",50,\"write white pieces"));

    let out = run(&["check", "--format", "sarif", &pgn]);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &log["runs"][0]["results"][0];
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startColumn"].as_u64(), region["endColumn"].as_u64()),
        (Some(49), Some(50))
    );
    let help = result["properties"]["help"].as_str().unwrap();
    assert!(
        result["message"]["text"]
            .as_str()
            .unwrap()
            .ends_with(&format!("; help: {help}"))
    );
}

/// A tag's problem spans its whole value, escapes included: the spans of
/// SetUp, Variant and duplicate-tag problems had been counted in the raw
/// value's bytes and then mapped as if decoded, which failed on a value
/// with an escape and left an empty span (a one-character caret, an empty
/// SARIF region); escapes one after another (`\\\\`) were mapped wrong.
#[test]
fn a_tag_problem_spans_a_value_with_escapes_whole() {
    let pgn = b"[SetUp \"\\\"1\"]\n*\n\n[SetUp \"\\\\\\\\x\"]\n*\n\n\
                [SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K7 w - - 0 1\"]\n\
                [FEN \"8/8/8/8/8/8/8/\\\\K w - - 0 1\"]\n*\n";
    let out = common::run_stdin(&["check", "--format", "json"], pgn);
    let spans: Vec<(String, u64, u64, u64)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let n = |k: &str| v[k].as_u64().unwrap();
            (
                v["code"].as_str().unwrap().to_owned(),
                n("line"),
                n("column"),
                n("end_column"),
            )
        })
        .filter(|(code, ..)| code == "setup-value" || code == "duplicate-tag")
        .collect();
    let expected = [
        ("setup-value", 1, 9, 12),
        ("setup-value", 4, 9, 14),
        ("duplicate-tag", 9, 7, 34),
    ];
    let expected: Vec<(String, u64, u64, u64)> = expected
        .iter()
        .map(|&(c, l, a, b)| (c.to_owned(), l, a, b))
        .collect();
    assert_eq!(spans, expected);
}

#[test]
fn text_check_ends_with_a_hint_to_explain() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write(dir.path(), "game.pgn", BAD_FEN);
    let out = run(&["check", &pgn]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().last(),
        Some("For more about this problem, try `pgnfen explain fen-syntax`.")
    );
    // No problem shown, no hint (a warning not shown does not count).
    let clean = write(
        dir.path(),
        "clean.pgn",
        b"[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n",
    );
    let text = String::from_utf8(run(&["check", &clean]).stdout).unwrap();
    assert!(!text.contains("explain"), "{text}");
    let text = String::from_utf8(run(&["check", "--warnings", &clean]).stdout).unwrap();
    assert!(text.contains("pgnfen explain fen-without-setup"), "{text}");
}

// --- #24.9: pgnfen explain CODE -------------------------------------------------

#[test]
fn explain_prints_the_section_of_every_code_as_documented() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/codes.md"))
        .unwrap();
    let codes: Vec<&str> = pgnfen::Code::ALL.iter().map(|c| c.as_str()).collect();
    assert!(codes.contains(&"illegal-move"), "{codes:?}");
    for code in &codes {
        let out = run(&["explain", code]);
        assert!(out.status.success(), "{code}: {}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        let heading = format!("## `{code}`\n");
        assert!(text.starts_with(&heading), "{code}: {text}");
        // Exactly the section: the page holds it verbatim, and it stops at the next code.
        assert!(doc.contains(text.trim_end()), "{code}: not the page's text");
        assert_eq!(
            text.matches("\n## ").count(),
            0,
            "{code}: runs into another section"
        );
        assert!(text.contains("```"), "{code}: an example");
    }
    let out = run(&["explain", "fen-sintax"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean fen-syntax?"),
        "{}",
        stderr(&out)
    );
    let out = run(&["explain", "nonsense-that-is-far"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("fen-syntax, illegal-position"),
        "{}",
        stderr(&out)
    );
}

// --- #24.5: .zst outputs in independent frames ---------------------------------

/// About `n` bytes of games of several classes.
fn many_games(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 200);
    let mut i = 0u64;
    while out.len() < n {
        let head = match i % 3 {
            0 => String::new(),
            1 => "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n".into(),
            _ => "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n".into(),
        };
        out.extend_from_slice(
            format!("[Event \"game {i}\"]\n[WhiteElo \"{}\"]\n{head}\n1. e4 e5 2. Nf3 Nc6 {{ {i} }} *\n\n", 1500 + i % 1000)
                .as_bytes(),
        );
        i += 1;
    }
    out
}

fn tool(name: &str, args: &[&str]) -> Option<Vec<u8>> {
    let out = std::process::Command::new(name).args(args).output().ok()?;
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

#[test]
fn zst_outputs_are_frames_read_back_in_parallel_and_by_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(dir.path(), "games.pgn", &many_games(9 << 20));
    let zst = dir.path().join("kept.pgn.zst").display().to_string();
    let plain_out = dir.path().join("kept.pgn").display().to_string();
    for (output, threads) in [(&zst, "2"), (&plain_out, "1")] {
        let out = run(&[
            "-j",
            threads,
            "filter",
            "--class",
            "setup,chess960",
            "-o",
            output,
            &plain,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let want = std::fs::read(&plain_out).unwrap();
    assert!(want.len() > 4 << 20, "several frames' worth");
    // Independent frames: the partition planner (pgnfen.dask's) cuts the file
    // at frame bounds, which it does only for a file of several frames.
    let parts = pgnfen::partition::plan(&[&zst], 16 << 10).unwrap();
    assert!(parts.len() >= 3, "{} partitions", parts.len());
    // Read back in parallel by pgnfen: the same counts as the plain file.
    let stats =
        |file: &str, j: &str| common::json(&run(&["-j", j, "stats", "--format", "json", file]));
    assert_eq!(stats(&zst, "2"), stats(&plain_out, "1"));
    // And by the zstd tools, as one stream.
    let via_zstd = tool("zstd", &["-dc", &zst]).expect("zstd is installed");
    assert!(via_zstd == want, "zstd -d gives the games back");
    if let Some(via_pzstd) = tool("pzstd", &["-dc", "-p", "2", &zst]) {
        assert!(via_pzstd == want, "pzstd -d gives the games back");
    }
    // export and split write .zst the same way.
    let csv = dir.path().join("rows.csv.zst").display().to_string();
    assert!(run(&["export", "-o", &csv, &plain]).status.success());
    let rows = tool("zstd", &["-dc", &csv]).unwrap();
    assert_eq!(
        rows.iter().filter(|&&b| b == b'\n').count() as u64 - 1,
        stats(&plain, "2")["games"].as_u64().unwrap()
    );
    std::fs::create_dir(dir.path().join("by")).unwrap();
    let template = format!("{}/by/{{class}}.pgn.zst", dir.path().display());
    assert!(run(&["split", "-o", &template, &plain]).status.success());
    let standard = tool(
        "zstd",
        &[
            "-dc",
            &format!("{}/by/standard.pgn.zst", dir.path().display()),
        ],
    )
    .unwrap();
    assert!(standard.starts_with(b"[Event \"game 0\"]"));
}

// --- #24.7 and #19.11: encodings and the export edge cases ----------------------

/// A Latin-1 game (as old archives are written): é is the single byte 0xE9.
const LATIN1: &[u8] = b"[Event \"Hoogovens\"]\n[Site \"Wijk aan Zee\"]\n[White \"R\xe9ti, Richard\"]\n[Black \"Tartakower\"]\n[Opening \"D\xe9fense fran\xe7aise\"]\n\n1. e4 e6 *\n";

#[test]
fn a_latin1_file_is_exported_with_its_accents_intact() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write(dir.path(), "latin1.pgn", LATIN1);
    let jsonl = dir.path().join("rows.jsonl").display().to_string();
    let csv = dir.path().join("rows.csv").display().to_string();
    for (output, encoding) in [(&jsonl, "auto"), (&csv, "latin-1")] {
        let out = run(&["export", "--encoding", encoding, "-o", output, &pgn]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let row: Value = serde_json::from_slice(&std::fs::read(&jsonl).unwrap()).unwrap();
    assert_eq!(row["White"], "Réti, Richard");
    assert_eq!(row["Opening"], "Défense française");
    let csv_text = String::from_utf8(std::fs::read(&csv).unwrap()).unwrap();
    assert!(
        csv_text.contains("\"Réti, Richard\"") && csv_text.contains("Défense française"),
        "{csv_text}"
    );
    // Round trip: the exported text, written back as Latin-1, is the file's bytes.
    let back: Vec<u8> = row["White"]
        .as_str()
        .unwrap()
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    assert_eq!(back, b"R\xe9ti, Richard");
    // UTF-8 input is read as UTF-8 (not as Windows-1252 twice over).
    let utf8 = write(dir.path(), "utf8.pgn", "[White \"Réti\"]\n\n*\n".as_bytes());
    let out = run(&["export", &utf8]);
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["White"], "Réti");
    // --encoding utf-8 keeps the old behaviour (U+FFFD), and the raw bytes of
    // the games are never touched: filter copies them as they are.
    let out = run(&["export", "--encoding", "utf-8", &pgn]);
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["White"], "R\u{FFFD}ti, Richard");
    let out = run(&["filter", "--tag", "Event=Hoogovens", &pgn]);
    assert_eq!(out.stdout, LATIN1);
    let out = run(&["export", "--encoding", "ebcdic", &pgn]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn export_keeps_repeated_tags_unreadable_elos_and_distinct_names() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write(
        dir.path(),
        "edge.pgn",
        b"[Event \"first\"]\n[Event \"second\"]\n[WhiteElo \"2500?\"]\n[BlackElo \"?\"]\n\
[Na\xffme \"a\"]\n[Na\xfeme \"b\"]\n[Annotator \"x\"]\n[Annotator \"y\"]\n[Annotator \"z\"]\n\n1. e4 *\n",
    );
    for encoding in ["auto", "utf-8", "latin-1"] {
        let out = run(&["export", "--encoding", encoding, &pgn]);
        assert!(out.status.success(), "{}", stderr(&out));
        let line = String::from_utf8(out.stdout).unwrap();
        let row: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(row["Event"], "first");
        assert_eq!(row["WhiteElo"], Value::Null);
        let others = row["other_tags"].as_object().unwrap();
        assert_eq!(others["Event#2"], "second", "{encoding}: {line}");
        assert_eq!(
            others["WhiteElo"], "2500?",
            "an unreadable Elo is kept as written"
        );
        assert!(
            !others.contains_key("BlackElo"),
            "'?' is PGN's unknown, not lost data"
        );
        assert_eq!(
            (
                &others["Annotator"],
                &others["Annotator#2"],
                &others["Annotator#3"]
            ),
            (&"x".into(), &"y".into(), &"z".into())
        );
        // Two names that differ only in invalid bytes: two keys, each once in
        // the text (a JSON object with a key twice loses one value).
        let keys: Vec<&String> = others.keys().filter(|k| k.starts_with("Na")).collect();
        assert_eq!(keys.len(), 2, "{encoding}: {line}");
        assert_ne!(keys[0], keys[1]);
        let raw_keys = line.matches("\"Na").count();
        assert_eq!(raw_keys, 2, "{encoding}: {line}");
    }
    let out = run(&["export", "--encoding", "utf-8", &pgn]);
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["other_tags"]["Na\\xFFme"], "a");
}

#[test]
fn tags_all_past_its_column_limit_says_how_many_names_went_to_other_tags() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..138 {
        text.push_str(&format!("[T{i} \"v\"]\n"));
    }
    text.push_str("\n1. e4 *\n");
    let pgn = write(dir.path(), "wide.pgn", text.as_bytes());
    let out = run(&["-q", "export", "--tags", "all", &pgn]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--tags all makes at most 128 columns; 10 more tag names went to other_tags"),
        "{err}"
    );
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["other_tags"].as_object().unwrap().len(), 10);
    // Within the limit: no warning.
    let small = write(dir.path(), "small.pgn", b"[A \"1\"]\n\n*\n");
    assert!(!stderr(&run(&["export", "--tags", "all", &small])).contains("warning"));
}
