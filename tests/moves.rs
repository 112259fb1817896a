//! `--moves first|all`: the mainline replayed from the start position, judged
//! against python-chess (fixtures of scripts/moves_referee.py), in every report
//! format, through `stats` and `filter`, across chunk boundaries, and on
//! hostile movetext.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{json, run, run_stdin};
use pgnfen::pipeline::Input;
use proptest::prelude::*;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/moves")
        .join(name)
}

/// What python-chess found in each game of the referee fixture: `None` for a
/// game whose moves all play, else the first failing ply and its move.
fn expected() -> BTreeMap<u64, Option<(u64, String)>> {
    let text = std::fs::read_to_string(data("referee.expected")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let game = f[0].parse().unwrap();
            let e = (f[1] != "pass").then(|| (f[1].parse().unwrap(), f[2].to_string()));
            (game, e)
        })
        .collect()
}

/// The illegal moves `check --moves all --format json` reports, by game.
fn reported(stdout: &[u8]) -> BTreeMap<u64, (u64, String)> {
    let mut out = BTreeMap::new();
    for line in stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        assert_eq!(v["code"], "illegal-move", "only move problems: {v}");
        assert!(v["tag"].is_null());
        let game = v["game"].as_u64().unwrap();
        let previous = out.insert(
            game,
            (
                v["ply"].as_u64().unwrap(),
                v["move"].as_str().unwrap().to_string(),
            ),
        );
        assert!(previous.is_none(), "two illegal moves in game {game}");
    }
    out
}

#[test]
fn the_first_failing_ply_agrees_with_python_chess() {
    let expected = expected();
    let path = data("referee.pgn");
    let out = run(&[
        "check",
        "--moves",
        "all",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let got = reported(&out.stdout);
    let illegal = expected.values().filter(|e| e.is_some()).count();
    assert!(
        illegal > 40 && illegal < expected.len() - 100,
        "a fixture of both kinds"
    );
    for (game, e) in &expected {
        assert_eq!(got.get(game), e.as_ref(), "game {game}");
    }
    assert_eq!(got.len(), illegal);
}

#[test]
fn first_mode_agrees_on_the_first_ply_only() {
    let expected = expected();
    let path = data("referee.pgn");
    let out = run(&[
        "check",
        "--moves",
        "first",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    let got = reported(&out.stdout);
    for (game, e) in &expected {
        let first = e.as_ref().filter(|(ply, _)| *ply == 1);
        assert_eq!(got.get(game), first, "game {game}");
    }
}

#[test]
fn stats_counts_the_replays() {
    let expected = expected();
    let path = data("referee.pgn");
    let v = json(&run(&[
        "stats",
        "--moves",
        "all",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]));
    let illegal = expected.values().filter(|e| e.is_some()).count() as u64;
    assert_eq!(v["moves"]["checked"], expected.len() as u64);
    assert_eq!(v["moves"]["illegal"], illegal);
    assert_eq!(v["moves"]["not_checked"], 0);
    assert_eq!(v["problems"]["illegal-move"], illegal);
    // Without --moves no movetext is read: no key, no count.
    let v = json(&run(&["stats", "--format", "json", path.to_str().unwrap()]));
    assert!(v.get("moves").is_none());
    assert!(v["problems"].get("illegal-move").is_none());
    let text = run(&["stats", "--moves", "all", path.to_str().unwrap()]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "moves: {} checked, {illegal} with an illegal move, 0 not checked",
            expected.len()
        )),
        "{text}"
    );
}

/// The library run with tiny chunks: most games cross a chunk boundary, so
/// their replay is finished by the merger; the results must not change.
#[test]
fn games_across_chunks_are_judged_the_same() {
    let expected = expected();
    let input = [Input::from_arg(data("referee.pgn").to_str().unwrap())];
    for (target, max) in [(64, 256), (1000, 4000), (1 << 20, 4 << 20)] {
        let mut options = pgnfen::check::Options {
            moves: Some(pgnfen::moves::MovesMode::All),
            ..Default::default()
        };
        options.run.threads = 2;
        options.run.chunk_sizes = (target, max);
        let mut got = BTreeMap::new();
        let mut lines = BTreeMap::new();
        let summary = pgnfen::check::run(&input, &options, |d| {
            let f = d.finding;
            got.insert(
                d.game,
                (u64::from(f.ply.unwrap()), f.move_text.clone().unwrap()),
            );
            lines.insert(d.game, (d.line, f.column));
            Ok(())
        })
        .unwrap();
        assert_eq!(summary.games, expected.len() as u64);
        assert_eq!(summary.moves_checked, expected.len() as u64);
        for (game, e) in &expected {
            assert_eq!(got.get(game), e.as_ref(), "game {game}, chunks {target}");
        }
        // Lines and columns do not depend on the chunks either.
        if target == 64 {
            let text = std::fs::read_to_string(data("referee.pgn")).unwrap();
            let all: Vec<&str> = text.split('\n').collect();
            for (game, (line, column)) in &lines {
                let (ply, mv) = &got[game];
                let at: String = all[*line as usize - 1].chars().skip(column - 1).collect();
                assert!(
                    at.starts_with(mv.as_str()),
                    "game {game} ply {ply}: {at:?} {mv}"
                );
            }
        }
    }
}

const GAMES: &str = r#"[Event "standard, fine"]

1. e4 e5 2. Nf3 Nc6 *

[Event "final position"]
[SetUp "1"]
[FEN "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"]

1. e4 e5 2. Nf3 Nc6 *

[Event "variation and null move are not judged"]

1. e4 (1. Ke3 Ke6) e5 2. Nf3 -- 3. Ke3 *

[Event "not checked: capablanca"]
[Variant "Capablanca"]
[SetUp "1"]
[FEN "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"]

1. Ke3 *

"#;

#[test]
fn every_format_reports_the_move() {
    let out = run_stdin(&["check", "--moves", "all"], GAMES.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("<stdin>:9:4: error[illegal-move]: illegal move \"e4\" at ply 1"),
        "{text}"
    );
    assert!(text.contains("standard start position"), "{text}");
    assert!(
        text.contains("9 | 1. e4 e5 2. Nf3 Nc6 *\n  |    ^^"),
        "{text}"
    );
    assert!(
        text.contains("note: position before the move: r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
        "{text}"
    );
    assert!(text.contains("4 games read; 1 with errors"), "{text}");

    let out = run_stdin(
        &["check", "--moves", "all", "--format", "json"],
        GAMES.as_bytes(),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["game"], 2);
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(9), Some(4))
    );
    assert!(v["tag"].is_null());
    assert_eq!(
        (v["ply"].as_u64(), v["move"].as_str()),
        (Some(1), Some("e4"))
    );
    assert_eq!(
        v["position"],
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    );

    let out = run_stdin(
        &["check", "--moves", "all", "--format", "csv"],
        GAMES.as_bytes(),
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next(),
        Some("file,game,line,column,tag,code,severity,message,end_column,help")
    );
    let row = rows.next().unwrap();
    assert!(
        row.starts_with("<stdin>,2,9,4,,illegal-move,error,"),
        "{row}"
    );

    let out = run_stdin(
        &["check", "--moves", "all", "--format", "github"],
        GAMES.as_bytes(),
    );
    let gh = String::from_utf8(out.stdout).unwrap();
    assert!(
        gh.starts_with("::error file=<stdin>,line=9,col=4,title=illegal-move::illegal move"),
        "{gh}"
    );

    let out = run_stdin(
        &["check", "--moves", "all", "--format", "sarif"],
        GAMES.as_bytes(),
    );
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "illegal-move");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        9
    );
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(rules.iter().any(|r| r["id"] == "illegal-move"));

    // The Capablanca game is not checked; the others are.
    let v = json(&run_stdin(
        &["stats", "--moves", "all", "--format", "json"],
        GAMES.as_bytes(),
    ));
    assert_eq!(
        v["moves"],
        serde_json::json!({"checked": 3, "illegal": 1, "not_checked": 1})
    );
}

#[test]
fn without_moves_nothing_is_replayed() {
    let out = run_stdin(&["check"], GAMES.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_values_are_usage_errors() {
    let out = run_stdin(&["check", "--moves", "some"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn filter_sends_illegal_games_to_the_rest_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let input = std::fs::read(data("referee.pgn")).unwrap();
    let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
    let out = run(&[
        "filter",
        "--moves",
        "all",
        "-o",
        a.to_str().unwrap(),
        "--rest",
        b.to_str().unwrap(),
        data("referee.pgn").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Games are whole and in order in each output: merging them back by game
    // order rebuilds the input.
    let games = |bytes: &[u8]| -> Vec<Vec<u8>> {
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        text.split("[Event ")
            .filter(|g| !g.is_empty())
            .map(|g| format!("[Event {g}").into_bytes())
            .collect()
    };
    let all = games(&input);
    let (kept, rest) = (games(&a), games(&b));
    let expected = expected();
    assert_eq!(
        rest.len(),
        expected.values().filter(|e| e.is_some()).count()
    );
    let (mut k, mut r) = (kept.iter(), rest.iter());
    let mut rebuilt = Vec::new();
    for (i, game) in all.iter().enumerate() {
        let illegal = expected[&(i as u64 + 1)].is_some();
        let next = if illegal { r.next() } else { k.next() };
        assert_eq!(next, Some(game), "game {}", i + 1);
        rebuilt.extend_from_slice(next.unwrap());
    }
    assert_eq!(rebuilt, input);
    assert_eq!(a.len() + b.len(), input.len());

    // The same through the library with tiny chunks (games wait for their
    // movetext across chunks before their destination is known).
    let (a2, b2) = (dir.path().join("a2.pgn"), dir.path().join("b2.pgn"));
    let mut options = pgnfen::filter::Options {
        output: Some(a2.clone()),
        rest: Some(b2.clone()),
        moves: Some(pgnfen::moves::MovesMode::All),
        ..Default::default()
    };
    options.run.chunk_sizes = (100, 400);
    options.run.threads = 2;
    let summary = pgnfen::filter::run(
        &[Input::from_arg(data("referee.pgn").to_str().unwrap())],
        &options,
    )
    .unwrap();
    assert_eq!(summary.kept as usize, kept.len());
    assert_eq!(std::fs::read(&a2).unwrap(), a);
    assert_eq!(std::fs::read(&b2).unwrap(), b);
}

#[test]
fn filter_moves_combines_with_a_class() {
    let out = run_stdin(
        &["filter", "--moves", "first", "--class", "setup"],
        GAMES.as_bytes(),
    );
    assert!(out.status.success());
    // The only setup game has an illegal first move: nothing is kept.
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Hostile movetext: a problem or a pass, never a panic, in bounded memory.
/// The `moves` object of `stats --moves all --format json` on `input`.
fn move_counts(input: &[u8]) -> serde_json::Value {
    let out = run_stdin(&["stats", "--moves", "all", "--format", "json"], input);
    json(&out)["moves"].clone()
}

#[test]
fn text_without_a_tag_line_is_one_game_whose_moves_are_replayed() {
    // Lines of moves, then an illegal one: found, where it stands.
    let mut input = "Nf3 Nf6 Ng1 Ng8\n".repeat(1000).into_bytes();
    input.extend_from_slice(b"2. Ke3 *\n");
    let out = run_stdin(&["check", "--moves", "all", "--format", "json"], &input);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["game"].as_u64(), v["line"].as_u64(), v["column"].as_u64()),
        (Some(1), Some(1001), Some(4))
    );
    assert_eq!(
        (v["ply"].as_u64(), v["move"].as_str()),
        (Some(4001), Some("Ke3"))
    );
    assert_eq!(
        move_counts(b"1. e4 e5 2. Nf3 *\n"),
        serde_json::json!({"checked": 1, "illegal": 0, "not_checked": 0})
    );
    // A byte order mark glued to the first move is not part of it.
    assert_eq!(
        move_counts(b"\xEF\xBB\xBFe4 e5 2. Nf3 *\n"),
        serde_json::json!({"checked": 1, "illegal": 0, "not_checked": 0})
    );
    let out = run_stdin(
        &["check", "--moves", "all", "--format", "json"],
        b"\xEF\xBB\xBFKz9 *\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["ply"].as_u64(), v["move"].as_str(), v["column"].as_u64()),
        (Some(1), Some("Kz9"), Some(1))
    );
    // A U+FEFF that starts a later line is a character of it (only the
    // input's own byte order mark takes no column), whether the replay runs
    // on a worker or on the merger, with one worker or two.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("feff.pgn");
    for (input, column) in [
        (&b"[Event \"p\"]\n\n1. e4 e5\n\xEF\xBB\xBF2. Kz9 *\n"[..], 5),
        (&b"[Event \"p\"]\n\n\xEF\xBB\xBF1. e4 e5 2. Kz9 *\n"[..], 14),
        (&b"\xEF\xBB\xBF1. e4 e5\n\xEF\xBB\xBF2. Kz9 *\n"[..], 5),
    ] {
        std::fs::write(&file, input).unwrap();
        for threads in ["1", "2"] {
            let out = run(&[
                "-j",
                threads,
                "check",
                "--moves",
                "all",
                "--format",
                "json",
                file.to_str().unwrap(),
            ]);
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                (v["move"].as_str(), v["column"].as_u64()),
                (Some("Kz9"), Some(column)),
                "{input:?} -j{threads}"
            );
        }
    }
    // Larger than a chunk and than the pieces the reader hands on: its start
    // was passed on before its end showed it to be movetext, and the moves
    // are still replayed from the first, from a file or a pipe, with one
    // worker or two. An illegal move at its end, at its start, or past what
    // the replay holds (8 MiB: not checked, and `check` says so).
    let dir = tempfile::tempdir().unwrap();
    let lines = |n: usize| "Nf3 Nf6 Ng1 Ng8\n".repeat(n).into_bytes();
    let at_end = [lines(300_000), b"2. Ke3 *\n".to_vec()].concat();
    let at_start = [b"1. Ke3\n".to_vec(), lines(600_000), b"*\n".to_vec()].concat();
    let past_budget = [lines(600_000), b"Ke3 *\n".to_vec()].concat();
    for (name, input, found) in [
        ("at_end.pgn", &at_end, Some((300_001, 4, 1_200_001))),
        ("at_start.pgn", &at_start, Some((1, 4, 1))),
        ("past_budget.pgn", &past_budget, None),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, input).unwrap();
        let file = path.to_str().unwrap();
        for args in [
            vec!["check", "--moves", "all", "--format", "json", "-j1", file],
            vec!["check", "--moves", "all", "--format", "json", "-j2", file],
            vec![
                "check",
                "--moves",
                "all",
                "--format",
                "json",
                "--no-mmap",
                file,
            ],
            vec!["check", "--moves", "all", "--format", "json", "-"],
        ] {
            let out = if args.last() == Some(&"-") {
                run_stdin(&args, input)
            } else {
                run(&args)
            };
            let stderr = String::from_utf8_lossy(&out.stderr);
            match found {
                Some((line, column, ply)) => {
                    assert_eq!(out.status.code(), Some(1), "{name} {args:?}: {stderr}");
                    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                    assert_eq!(
                        (v["line"].as_u64(), v["column"].as_u64(), v["ply"].as_u64()),
                        (Some(line), Some(column), Some(ply)),
                        "{name} {args:?}"
                    );
                    assert_eq!(v["move"], "Ke3");
                }
                None => {
                    assert_eq!(out.status.code(), Some(0), "{name} {args:?}: {stderr}");
                    assert!(out.stdout.is_empty(), "{name} {args:?}");
                    assert!(
                        stderr.contains("note: 1 game was not replayed to the end"),
                        "{name} {args:?}: {stderr}"
                    );
                }
            }
        }
    }
    assert_eq!(
        move_counts(&past_budget),
        serde_json::json!({"checked": 0, "illegal": 0, "not_checked": 1})
    );
    assert_eq!(
        move_counts(&lines(300_000)),
        serde_json::json!({"checked": 1, "illegal": 0, "not_checked": 0})
    );
    // Text before the first tag line belongs to the first game, but is no movetext.
    assert_eq!(
        move_counts(b"Ke3 garbage\n[Event \"a\"]\n\n1. e4 *\n"),
        serde_json::json!({"checked": 1, "illegal": 0, "not_checked": 0})
    );
}

#[test]
fn a_game_beyond_the_replay_budget_is_not_checked() {
    // 9.6 MB of movetext: the moves past 8 MiB are not judged, so the game is
    // counted as not checked rather than as passed; `first` still checks it.
    let mut input = b"[Event \"long\"]\n\n".to_vec();
    input.extend_from_slice("Nf3 Nf6 Ng1 Ng8 ".repeat(600_000).as_bytes());
    input.extend_from_slice(b"Ke3 *\n");
    assert_eq!(
        move_counts(&input),
        serde_json::json!({"checked": 0, "illegal": 0, "not_checked": 1})
    );
    let out = run_stdin(&["stats", "--moves", "first", "--format", "json"], &input);
    assert_eq!(json(&out)["moves"]["checked"], 1);
    // `check` says so; its report in JSON lines stays clean, the note going
    // to standard error with the summary.
    let out = run_stdin(&["check", "--moves", "all"], &input);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("note: 1 game was not replayed to the end"),
        "{text}"
    );
    let out = run_stdin(&["check", "--moves", "all", "--format", "json"], &input);
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not replayed to the end"));
    // A game replayed whole gets no such note.
    let out = run_stdin(&["check", "--moves", "all"], b"[Event \"e\"]\n\n1. e4 *\n");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("note:"));
}

#[test]
fn hostile_movetext() {
    let mut input = Vec::new();
    input.extend_from_slice(b"[Event \"long token\"]\n\n1. ");
    input.extend(std::iter::repeat_n(b'N', 1 << 20));
    input.extend_from_slice(b" *\n\n[Event \"nul\"]\n\n1. e4 \0\0 e5 N\0 *\n\n");
    input.extend_from_slice(b"[Event \"deep\"]\n\n1. e4 ");
    input.extend(std::iter::repeat_n(b'(', 100_000));
    input.extend_from_slice(b" e5 *\n\n");
    input.extend_from_slice(b"[Event \"unterminated variation\"]\n\n1. e4 ( e5 2. Ke3\n\n");
    // Last: an unterminated comment runs to the end of the input.
    input.extend_from_slice(
        b"[Event \"unterminated comment\"]\n\n1. e4 { e5 2. Ke3\n\n[Event \"x\"]\n1. Ke3 *\n",
    );
    let out = run_stdin(&["check", "--moves", "all", "--format", "json"], &input);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let problems: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let games: Vec<u64> = problems
        .iter()
        .map(|p| p["game"].as_u64().unwrap())
        .collect();
    // The long token and the NUL bytes are not SAN; the unterminated
    // variation and comment swallow the rest of their game (the comment, the
    // rest of the input: the last tag line is inside it).
    assert_eq!(games, [1, 2]);
    assert!(problems[0]["move"].as_str().unwrap().len() < 100);
    assert_eq!(
        (problems[1]["ply"].as_u64(), problems[1]["move"].as_str()),
        (Some(3), Some("N\\0"))
    );
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn the_corpus_replays_without_panics() {
    // The real archives and the generated files (variants, malformed, edge cases).
    let mut files: Vec<PathBuf> = ["real", "generated"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(common::corpus(dir)).unwrap())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    assert!(files.len() > 40, "{} PGN files in the corpus", files.len());
    for f in files {
        let out = run(&[
            "check",
            "--moves",
            "all",
            "--format",
            "json",
            f.to_str().unwrap(),
        ]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", f.display());
    }
}

/// (ply, line, column) of the illegal move `check --moves all` finds in the
/// one game of `path` (`None`: none found), the run's counts of games
/// checked and not replayed to the end, with these chunk sizes.
fn tagless_verdict(
    path: &Path,
    (target, max): (usize, usize),
    threads: usize,
    mmap: bool,
) -> (Option<(u64, u64, usize)>, u64, u64) {
    let mut options = pgnfen::check::Options {
        moves: Some(pgnfen::moves::MovesMode::All),
        ..Default::default()
    };
    options.run.threads = threads;
    options.run.chunk_sizes = (target, max);
    options.run.mmap = mmap;
    options.run.notes = false;
    let mut found = None;
    let summary = pgnfen::check::run(&[Input::File(path.to_path_buf())], &options, |d| {
        if d.finding.code.as_str() == "illegal-move" {
            found = Some((u64::from(d.finding.ply.unwrap()), d.line, d.finding.column));
        }
        Ok(())
    })
    .unwrap();
    (found, summary.moves_checked, summary.moves_unfinished)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// An input without a tag line is one game, all movetext, known as such
    /// only at its end: with chunks from 16 bytes on (so that its start was
    /// handed on long before), one or two workers, mapped or read, it is
    /// replayed from its first move, and the illegal move is found where it
    /// stands, as with one chunk for all.
    #[test]
    fn a_tagless_input_is_replayed_whatever_the_chunks(
        moves in 1usize..400,
        illegal in proptest::option::of(0usize..400),
        breaks in proptest::collection::vec(0u8..4, 400),
        target in 16usize..2000,
        threads in 1usize..=2,
        mmap: bool,
    ) {
        // Knights out and back: always legal; `Ke3` never is (the king is
        // on e1 or e8 and e2/e7 hold pawns).
        let dance = ["Nf3", "Nf6", "Ng1", "Ng8"];
        let mut text = String::new();
        let (mut line, mut column, mut expected) = (1u64, 1usize, None);
        for i in 0..moves {
            let word = if illegal == Some(i) { "Ke3" } else { dance[i % 4] };
            if illegal == Some(i) {
                expected = Some((i as u64 + 1, line, column));
            }
            text.push_str(word);
            column += word.len();
            // A space, a line end (LF or CRLF) or a comment after each move.
            let sep = match breaks[i] {
                0 => " ",
                1 => "\n",
                2 => "\r\n",
                _ => " {a\nb} ",
            };
            text.push_str(sep);
            match breaks[i] {
                0 => column += 1,
                1 | 2 => (line, column) = (line + 1, 1),
                _ => (line, column) = (line + 1, 4),
            }
            if expected.is_some() {
                break;
            }
        }
        text.push_str("*\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tagless.pgn");
        std::fs::write(&path, &text).unwrap();
        let whole = tagless_verdict(&path, (1 << 20, 8 << 20), 1, false);
        prop_assert_eq!(whole, (expected, 1, 0));
        let cut = tagless_verdict(&path, (target, target * 4), threads, mmap);
        prop_assert_eq!(cut, whole, "chunks {}", target);
    }
}
