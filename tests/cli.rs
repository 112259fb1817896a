//! The real binary on the bundled samples and on hostile inputs.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{classes, json, run, run_piped, run_stdin};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn stats(path: &Path) -> serde_json::Value {
    json(&run(&["stats", "--format", "json", path.to_str().unwrap()]))
}

#[test]
fn stats_of_the_samples() {
    assert_eq!(classes(&stats(&sample("standard.pgn"))), [3, 0, 0, 0, 0, 0]);
    assert_eq!(classes(&stats(&sample("chess960.pgn"))), [0, 0, 3, 0, 0, 0]);
    assert_eq!(classes(&stats(&sample("crc.pgn"))), [0, 0, 0, 3, 0, 0]);
    assert_eq!(
        classes(&stats(&sample("malformed.pgn"))),
        [0, 1, 0, 0, 0, 6]
    );
    let mixed = stats(&sample("mixed.pgn"));
    assert_eq!(mixed["games"], 13);
    assert_eq!(classes(&mixed), [3, 1, 3, 3, 1, 2]);
    assert_eq!(stats(&sample("chess960.pgn"))["chess960_positions"]["0"], 1);
}

#[test]
fn stats_text_is_a_table() {
    let out = run(&["stats", sample("mixed.pgn").to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("chess960"), "{text}");
    assert!(text.contains("BBQNNRKR"), "{text}");
    assert!(text.contains("total"), "{text}");
}

#[test]
fn filter_splits_every_game_exactly_once() {
    let input = std::fs::read(sample("mixed.pgn")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for class in ["standard", "setup", "chess960", "crc", "other", "malformed"] {
        let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        let out = run(&[
            "filter",
            "-q",
            "--class",
            class,
            "-o",
            a.to_str().unwrap(),
            "--rest",
            b.to_str().unwrap(),
            sample("mixed.pgn").to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert_eq!(a.len() + b.len(), input.len(), "{class}");
        // Every game of A and B, in order, is a piece of the input.
        let kept = stats_of_bytes(&a);
        assert_eq!(
            kept["games"].as_u64().unwrap(),
            kept["classes"][class].as_u64().unwrap(),
            "{class}"
        );
    }
    // Keeping every class gives the input back, byte for byte.
    let out = run(&[
        "filter",
        "-q",
        "--class",
        "standard,setup,chess960,crc,other,malformed",
        sample("mixed.pgn").to_str().unwrap(),
    ]);
    assert_eq!(out.stdout, input);
}

fn stats_of_bytes(data: &[u8]) -> serde_json::Value {
    let out = run_stdin(&["stats", "--format", "json"], data);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn filter_by_chess960_position() {
    let out = run(&[
        "filter",
        "-q",
        "--class",
        "chess960",
        "--chess960-position",
        "0",
        sample("chess960.pgn").to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("[Event ").count(), 1);
    assert!(text.contains("BBQNNRKR"));
}

#[test]
fn convert_round_trips_and_changes_only_fen_values() {
    let input = std::fs::read(sample("chess960.pgn")).unwrap();
    let shredder = run(&[
        "convert",
        "-q",
        "--to",
        "shredder",
        sample("chess960.pgn").to_str().unwrap(),
    ])
    .stdout;
    let text = String::from_utf8(shredder.clone()).unwrap();
    assert!(
        text.contains(
            "[FEN \"rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - 4 11\"]"
        ),
        "{text}"
    );
    for (a, b) in String::from_utf8(input.clone())
        .unwrap()
        .lines()
        .zip(text.lines())
    {
        if a != b {
            assert!(
                a.starts_with("[FEN ") && b.starts_with("[FEN "),
                "{a} -> {b}"
            );
        }
    }
    let back = run_stdin(&["convert", "-q", "--to", "xfen"], &shredder).stdout;
    let xfen = String::from_utf8(back).unwrap();
    assert!(xfen.contains("2BNK1RR w Gkq - 4 11"));
    assert!(xfen.contains("BBQNNRKR w KQkq - 0 1"));
}

#[test]
fn convert_to_classic_fen_reports_lossy_castling() {
    let out = run(&[
        "convert",
        "--to",
        "fen",
        sample("chess960.pgn").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lossy-castling"), "{err}");
    assert!(err.contains("1 left unchanged"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("2BNK1RR w Gkq - 4 11"));
}

#[test]
fn convert_counts_every_fen_tag_past_those_a_header_keeps() {
    // 70 FEN tags a game: a header keeps 64, and the 6 past them are left
    // as they were, one report a game; the summary counts the tags, as the
    // output still holds them (the count had been one a game).
    let fen = "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11";
    let game = |n: usize| {
        let fens: String = (0..70).map(|_| format!("[FEN \"{fen}\"]\n")).collect();
        format!("[Event \"m{n}\"]\n{fens}\n*\n\n")
    };
    let input = game(1) + &game(2);
    let out = run_stdin(&["convert", "--to", "shredder"], input.as_bytes());
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("6 more FEN tag(s) in this game not read")
            .count(),
        2,
        "{err}"
    );
    assert!(
        err.contains("128 FEN tags written as shredder, 12 left unchanged"),
        "{err}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.matches(" w Gkq - 4 11").count(), 12);
    assert_eq!(stdout.matches(" w Gga - 4 11").count(), 128);
    // In a game of another variant its FEN tags are not pgnfen's to read,
    // and none is reported or counted, past the limit or not.
    let input = input.replace("[Event \"m1\"]", "[Event \"m1\"] [Variant \"Crazyhouse\"]");
    let out = run_stdin(&["convert", "--to", "shredder"], input.as_bytes());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("more FEN tag(s)").count(), 1, "{err}");
    assert!(
        err.contains("64 FEN tags written as shredder, 6 left unchanged"),
        "{err}"
    );
}

#[test]
fn repair_ends_its_lines_as_the_file_does_before_a_last_line_without_an_end() {
    // The FEN tag is the input's last line and has no line end: the tags
    // inserted before it end as the lines before it do (they had a bare \n
    // in a CRLF file).
    let fen = "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11";
    for eol in ["\r\n", "\n", "\r"] {
        let input = format!("[Event \"e\"]{eol}[FEN \"{fen}\"]");
        let out = run_stdin(
            &["convert", "-q", "--to", "shredder", "--repair"],
            input.as_bytes(),
        );
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!(
                "[Event \"e\"]{eol}[Variant \"Chess960\"]{eol}[SetUp \"1\"]{eol}[FEN \"{}\"]",
                fen.replace("Gkq", "Gga")
            ),
            "{eol:?}"
        );
    }
    // A FEN tag alone, on the input's only line: a line feed.
    let input = format!("[FEN \"{fen}\"]");
    let out = run_stdin(
        &["convert", "-q", "--to", "shredder", "--repair"],
        input.as_bytes(),
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN")
    );
}

#[test]
fn convert_places_a_problem_past_an_escape_as_check_does() {
    // A fault before an escape ('X'), and one that is an escaped quote:
    // `convert` had pointed at the value's start (column 7) whenever the
    // value held an escape.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("esc.pgn");
    std::fs::write(
        &path,
        "[Event \"c\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K2X w KQ - 0 \\\"1\"]\n\n*\n\
         [Event \"d\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K2R w \\\"KQ - 0 1\"]\n\n*\n",
    )
    .unwrap();
    let name = path.to_str().unwrap();
    let converted = run(&["convert", "--to", "xfen", "-o", "-", name]);
    let checked = run(&["check", name]);
    let convert_err = String::from_utf8_lossy(&converted.stderr);
    let check_out = String::from_utf8_lossy(&checked.stdout);
    for place in [
        format!("{name}:3:27: error[fen-syntax]"),
        format!("{name}:8:31: error[fen-syntax]"),
    ] {
        assert!(convert_err.contains(&place), "{place} in {convert_err}");
        assert!(check_out.contains(&place), "{place} in {check_out}");
    }
}

#[test]
fn inputs_without_a_final_line_end_do_not_run_into_the_next() {
    // Two files whose last game has no line end after it: written one after
    // the other, the second's header had run on into the first's movetext
    // (one game for every reader of the output). A line end goes between
    // them; a single input is copied as it is.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.pgn");
    let b = dir.path().join("b.pgn");
    std::fs::write(&a, "[Event \"a\"]\n\n1. e4 *\n\n[Event \"a2\"]\n\n1. c4 *").unwrap();
    std::fs::write(&b, "[Event \"b\"]\r\n\r\n1. d4 *").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let games = |out: &[u8]| json(&run_stdin(&["stats", "--format", "json"], out))["games"].clone();
    let joined =
        "[Event \"a\"]\n\n1. e4 *\n\n[Event \"a2\"]\n\n1. c4 *\n[Event \"b\"]\r\n\r\n1. d4 *";
    let filtered = run(&["filter", "-q", "--class", "standard", a, b]);
    assert_eq!(String::from_utf8(filtered.stdout).unwrap(), joined);
    let converted = run(&["convert", "-q", "--to", "shredder", a, b]);
    assert_eq!(String::from_utf8(converted.stdout.clone()).unwrap(), joined);
    assert_eq!(games(&converted.stdout), 3);
    // The line end goes to the output that got the last game: here the rest.
    let kept = dir.path().join("kept.pgn");
    let rest = dir.path().join("rest.pgn");
    let out = run(&[
        "filter",
        "-q",
        "--tag",
        "Event=a",
        "-o",
        kept.to_str().unwrap(),
        "--rest",
        rest.to_str().unwrap(),
        a,
        b,
    ]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        b"[Event \"a\"]\n\n1. e4 *\n\n"
    );
    assert_eq!(
        std::fs::read_to_string(&rest).unwrap(),
        "[Event \"a2\"]\n\n1. c4 *\n[Event \"b\"]\r\n\r\n1. d4 *"
    );
    let template = dir.path().join("{class}.pgn");
    assert!(
        run(&["split", "-q", "-o", template.to_str().unwrap(), a, b])
            .status
            .success()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("standard.pgn")).unwrap(),
        joined
    );
    // One input alone: not a byte added.
    let alone = run(&["filter", "-q", "--class", "standard", a]);
    assert_eq!(alone.stdout, std::fs::read(a).unwrap());
    // Header-only games whose files end `]\n`: a blank line goes between,
    // else the second header would be more tags of the first.
    let h1 = dir.path().join("h1.pgn");
    let h2 = dir.path().join("h2.pgn");
    std::fs::write(&h1, "[Event \"h1\"]\n[Result \"*\"]\n").unwrap();
    std::fs::write(&h2, "[Event \"h2\"]\r\n[Result \"*\"]").unwrap();
    let h3 = dir.path().join("h3.pgn");
    std::fs::write(&h3, "[Event \"h3\"]\r[Result \"*\"]\r").unwrap();
    let (h1, h2) = (h1.to_str().unwrap(), h2.to_str().unwrap());
    // Lone `\r` line ends: the blank line is a second `\r`, not a `\n`
    // that would only make `\r\n` of the first.
    let h3 = h3.to_str().unwrap();
    let out = run(&["filter", "-q", "--class", "standard", h3, h1]);
    assert_eq!(
        String::from_utf8(out.stdout.clone()).unwrap(),
        "[Event \"h3\"]\r[Result \"*\"]\r\r[Event \"h1\"]\n[Result \"*\"]\n"
    );
    assert_eq!(games(&out.stdout), 2);
    for args in [
        vec!["filter", "-q", "--class", "standard", h1, h2, h1],
        vec!["convert", "-q", "--to", "shredder", h1, h2, h1],
    ] {
        let out = run(&args);
        assert_eq!(
            String::from_utf8(out.stdout.clone()).unwrap(),
            "[Event \"h1\"]\n[Result \"*\"]\n\n[Event \"h2\"]\r\n[Result \"*\"]\n\n\
             [Event \"h1\"]\n[Result \"*\"]\n",
            "{args:?}"
        );
        assert_eq!(games(&out.stdout), 3, "{args:?}");
    }
}

#[test]
fn convert_repair_inserts_setup() {
    let input = b"[Event \"x\"]\r\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K -\"]\r\n\r\n1. Rh8+ *\r\n";
    let out = run_stdin(&["convert", "-q", "--to", "shredder", "--repair"], input);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "[Event \"x\"]\r\n[SetUp \"1\"]\r\n[FEN \"4k3/8/8/8/8/8/8/4K2R w H - 0 1\"]\r\n\r\n1. Rh8+ *\r\n"
    );
}

#[test]
fn check_reports_like_a_compiler() {
    let path = sample("malformed.pgn");
    let out = run(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let first = format!("{}:4:25: error[fen-syntax]: ", path.display());
    assert!(text.contains(&first), "{text}");
    assert!(
        text.contains("[FEN \"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]"),
        "{text}"
    );
    assert!(text.contains('^'), "{text}");
    assert!(text.contains("error[setup-without-fen]"), "{text}");
    assert!(
        !text.contains("warning[fen-without-setup]"),
        "warnings only with --warnings: {text}"
    );
    assert!(text.contains("7 games read"), "{text}");
    let with_warnings =
        String::from_utf8(run(&["check", "--warnings", path.to_str().unwrap()]).stdout).unwrap();
    assert!(
        with_warnings.contains("warning[fen-without-setup]"),
        "{with_warnings}"
    );
}

#[test]
fn check_json_and_csv() {
    let path = sample("malformed.pgn");
    let out = run(&[
        "check",
        "-q",
        "--warnings",
        "--format",
        "json",
        path.to_str().unwrap(),
    ]);
    let rows: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 7);
    for key in [
        "file", "game", "line", "column", "tag", "code", "severity", "message",
    ] {
        assert!(rows[0].get(key).is_some(), "{key}");
    }
    assert_eq!(rows[0]["line"], 4);
    assert_eq!(rows[0]["tag"], "FEN");
    let out = run(&[
        "check",
        "-q",
        "--warnings",
        "--format",
        "csv",
        path.to_str().unwrap(),
    ]);
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "file",
            "game",
            "line",
            "column",
            "tag",
            "code",
            "severity",
            "message",
            "end_column",
            "help"
        ]
    );
    assert_eq!(reader.records().count(), 7);
}

#[test]
fn check_exit_status_is_zero_without_errors() {
    let out = run(&["check", sample("standard.pgn").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn fen_command_text_json_and_exit_status() {
    let out = run(&[
        "fen",
        "--to",
        "shredder",
        "-r",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1\n"
    );
    assert_eq!(out.status.code(), Some(0));
    let input = std::fs::read(sample("positions.fen")).unwrap();
    let out = run_stdin(&["fen", "--format", "json"], &input);
    assert_eq!(out.status.code(), Some(1), "one record is invalid");
    let records: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(records.len(), 7);
    assert_eq!(records[0]["class"], "standard");
    assert_eq!(records[0]["chess960_position"], 518);
    assert_eq!(records[2]["fen"], serde_json::Value::Null);
    assert_eq!(
        records[2]["shredder"],
        "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - 4 11"
    );
    assert_eq!(records[4]["board"], "10x8");
    assert_eq!(records[6]["valid"], false);
    assert_eq!(records[6]["problems"][0]["code"], "fen-syntax");
}

#[test]
fn usage_and_io_errors_exit_2_naming_the_file() {
    let out = run(&["stats", "/no/such/file.pgn"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/file.pgn"));
    assert_eq!(run(&["filter"]).status.code(), Some(2));
    assert_eq!(run(&["convert", "--to", "nonsense"]).status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("x.pgn.gz");
    // gzip's magic bytes, then no valid stream (compression goes by content).
    std::fs::write(&bad, b"\x1f\x8bthis is not gzip").unwrap();
    let out = run(&["stats", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("x.pgn.gz"));
}

#[test]
fn filter_refuses_an_output_that_is_one_of_several_inputs() {
    // It would replace a.pgn by the games kept from both inputs, and lose
    // the games of a.pgn that were not kept.
    let dir = tempfile::tempdir().unwrap();
    let mixed = std::fs::read(sample("mixed.pgn")).unwrap();
    let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
    std::fs::write(&a, &mixed).unwrap();
    std::fs::write(&b, &mixed).unwrap();
    let (a_name, b_name) = (a.to_str().unwrap(), b.to_str().unwrap());
    for output in [["-o", a_name], ["--rest", b_name]] {
        let mut args = vec!["filter", "--class", "standard", a_name, b_name];
        args.extend(output);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{output:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("names one of the 2 inputs: the others would be merged into it"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read(&a).unwrap(), mixed);
    assert_eq!(std::fs::read(&b).unwrap(), mixed);
}

#[test]
fn check_refuses_csv_raw_without_a_csv_report() {
    // --csv-raw changes CSV cells only: beside another report it would do
    // nothing, silently.
    let mixed = sample("mixed.pgn");
    let m = mixed.to_str().unwrap();
    for format in ["text", "json", "github", "sarif"] {
        let out = run(&["check", "--csv-raw", "--format", format, m]);
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert!(out.stdout.is_empty(), "{format}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--csv-raw is for --format csv"),
            "{format}"
        );
    }
    let out = run(&["check", "-q", "--csv-raw", "--format", "csv", m]);
    assert_eq!(out.status.code(), Some(1), "the problems found");
    assert!(out.stdout.starts_with(b"file,game,line,column,"));
}

#[test]
fn failed_run_leaves_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("x.pgn.zst");
    // zstd's magic bytes, then no valid frame.
    std::fs::write(&bad, b"\x28\xb5\x2f\xfd[Event \"x\"]\n").unwrap();
    let out_path = dir.path().join("out.pgn");
    let out = run(&[
        "filter",
        "--class",
        "standard",
        "-o",
        out_path.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!out_path.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn closed_stdout_ends_quietly() {
    let big: Vec<u8> = std::fs::read(sample("mixed.pgn")).unwrap().repeat(3000);
    let all = "standard,setup,chess960,crc,other,malformed";
    let out = run_piped(&["filter", "-q", "--class", all], &big, true);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn closed_stdout_keeps_the_status_of_what_was_found() {
    // `check | head`: problems were reported before the output closed, so
    // the run fails as it would have run whole (1), quietly.
    let mixed: Vec<u8> = std::fs::read(sample("mixed.pgn")).unwrap().repeat(3000);
    let out = run_piped(&["check", "-q"], &mixed, true);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run_piped(&["check", "-q", "--format", "json"], &mixed, true);
    assert_eq!(out.status.code(), Some(1));
    // Only warnings: they fail the run with --deny-warnings alone.
    let warned = b"[Event \"w\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n*\n\n".repeat(20_000);
    let out = run_piped(&["check", "-q", "--warnings"], &warned, true);
    assert_eq!(out.status.code(), Some(0));
    let out = run_piped(&["check", "-q", "--deny-warnings"], &warned, true);
    assert_eq!(out.status.code(), Some(1));
    // `fen | head` after an invalid record; and a book of valid ones.
    let mut book = b"8/8/8/8/8/8/8/8 w - - 0 1\n".to_vec();
    book.extend(b"8/8/8/8/8/8/8/K6k w - - 0 1\n".repeat(50_000));
    let out = run_piped(&["fen", "-q"], &book, true);
    assert_eq!(out.status.code(), Some(1));
    let out = run_piped(&["fen", "-q"], &book[26..], true);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn same_output_with_one_or_two_threads_from_files_and_stdin() {
    let input: Vec<u8> = std::fs::read(sample("mixed.pgn")).unwrap().repeat(2000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    std::fs::write(&path, &input).unwrap();
    let p = path.to_str().unwrap();
    let a = run(&["-j1", "convert", "-q", "--to", "shredder", p]).stdout;
    let b = run(&["-j2", "convert", "-q", "--to", "shredder", p]).stdout;
    let c = run_stdin(&["-j2", "convert", "-q", "--to", "shredder"], &input).stdout;
    assert_eq!(a, b);
    assert_eq!(a, c);
    let s1 = run(&["-j1", "stats", "--format", "json", p]).stdout;
    let s2 = run(&["-j2", "stats", "--format", "json", p]).stdout;
    assert_eq!(s1, s2);
    let v: serde_json::Value = serde_json::from_slice(&s1).unwrap();
    assert_eq!(v["games"], 13 * 2000);
}

#[test]
fn hostile_inputs_lose_nothing() {
    let all = "standard,setup,chess960,crc,other,malformed";
    let mut cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\n\n  \n".to_vec(),
        b"\xEF\xBB\xBF[Event \"bom\"]\r\n\r\n1. e4 *\r\n".to_vec(),
        b"[Event \"nul\"]\n[FEN \"8/8/8/8\0/8/8/8/8 w - - 0 1\"]\n\n1. e4\0 *\n".to_vec(),
        b"[Event \"cut".to_vec(),
    ];
    let mut comment = b"[Event \"c\"]\n\n1. e4 {".to_vec();
    comment.extend(std::iter::repeat_n(b'x', 10 << 20));
    comment.extend_from_slice(b"\n[Event \"swallowed\"]\n");
    cases.push(comment);
    let mut tag = b"[Event \"".to_vec();
    tag.extend(std::iter::repeat_n(b'y', 100 << 10));
    tag.extend_from_slice(b"\"]\n[FEN \"junk\"]\n\n*\n");
    cases.push(tag);
    let junk: Vec<u8> = (0..1_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    cases.push(junk);
    for input in &cases {
        for threads in ["-j1", "-j2"] {
            let out = run_stdin(&[threads, "filter", "-q", "--class", all], input);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let blank_only = input.iter().all(|b| b.is_ascii_whitespace());
            if !blank_only {
                assert_eq!(out.stdout.len(), input.len());
                assert!(out.stdout == *input);
            }
            let out = run_stdin(&[threads, "check", "--warnings", "--format", "json"], input);
            assert!(matches!(out.status.code(), Some(0 | 1)));
        }
    }
}

#[test]
fn compressed_standard_input_is_recognised() {
    let input = std::fs::read(sample("mixed.pgn")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&input).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(&input[..], 3).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&input).unwrap();
    let bz = bz.finish().unwrap();
    for packed in [gz, zst, bz] {
        let out = run_stdin(
            &[
                "filter",
                "-q",
                "--class",
                "standard,setup,chess960,crc,other,malformed",
            ],
            &packed,
        );
        assert!(out.status.success());
        assert_eq!(out.stdout, input);
    }
}

#[test]
fn a_standard_error_that_cannot_be_written_is_no_panic() {
    // `2>/dev/full`: the summary and reports could not be written, and
    // `eprintln!` panicked (exit status 101) after the output was committed.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kept.pgn");
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let mixed = sample("mixed.pgn");
    let malformed = sample("malformed.pgn");
    for (args, code) in [
        (
            vec![
                "filter",
                "--class",
                "standard",
                "-o",
                out.to_str().unwrap(),
                mixed.to_str().unwrap(),
            ],
            0,
        ),
        (
            vec![
                "convert",
                "--to",
                "fen",
                "-o",
                "/dev/null",
                sample("chess960.pgn").to_str().unwrap(),
            ],
            0,
        ),
        (vec!["check", malformed.to_str().unwrap()], 1),
        (vec!["stats", "--nope"], 2),
    ] {
        let status = common::bin()
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(full())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(code), "{args:?}");
    }
    assert!(out.exists());
}

#[test]
fn filter_without_a_selection_names_every_way_to_select() {
    let out = run(&["filter", sample("mixed.pgn").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--speed or --moves"), "{err}");
    // `--moves` alone is a selection.
    let out = run(&[
        "filter",
        "-q",
        "--moves",
        "first",
        sample("mixed.pgn").to_str().unwrap(),
    ]);
    assert!(out.status.success());
}

#[test]
fn filter_replaces_both_outputs_or_neither() {
    // The rest cannot be written (a full disk): the kept games must not have
    // replaced the input they were read from.
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    std::fs::copy(sample("mixed.pgn"), &games).unwrap();
    let before = std::fs::read(&games).unwrap();
    let g = games.to_str().unwrap();
    let out = run(&[
        "filter",
        "--class",
        "standard",
        "-o",
        g,
        "--rest",
        "/dev/full",
        g,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/dev/full"));
    assert_eq!(std::fs::read(&games).unwrap(), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn every_way_an_input_can_end_keeps_the_next_inputs_games_apart() {
    // Header-only and movetext games, with each line end, ending with none,
    // one or two line ends, written one after the other: the output read
    // back holds as many games as the inputs (the oracle is pgnfen's own
    // reading of the inputs, one by one).
    let dir = tempfile::tempdir().unwrap();
    let count = |path: &str| -> u64 {
        json(&run(&["stats", "--format", "json", path]))["games"]
            .as_u64()
            .unwrap()
    };
    let mut n = 0;
    for game in [
        "[Event \"x\"]|[Result \"*\"]",
        "[Event \"x\"]||1. e4 *",
        "[Event \"x\"]||{only a comment}",
    ] {
        for end in ["\n", "\r\n", "\r"] {
            for tail in 0..3 {
                let text = format!("{}{}", game.replace('|', end), end.repeat(tail));
                n += 1;
                let a = dir.path().join(format!("a{n}.pgn"));
                std::fs::write(&a, &text).unwrap();
                let a = a.to_str().unwrap();
                let one = count(a);
                let out = dir.path().join(format!("out{n}.pgn"));
                let o = out.to_str().unwrap();
                let kept = run(&[
                    "filter",
                    "-q",
                    "--class",
                    "standard,malformed",
                    "-o",
                    o,
                    a,
                    a,
                    a,
                ]);
                assert!(kept.status.success());
                assert_eq!(count(o), 3 * one, "{text:?}");
                let converted = run(&["convert", "-q", "--to", "fen", "-o", o, a, a]);
                assert!(converted.status.success());
                assert_eq!(count(o), 2 * one, "{text:?}");
            }
        }
    }
}

/// Dialects are named in a message as in prose, not by their flag values.
#[test]
fn a_castling_prefix_names_the_dialect_it_cannot_be_written_in() {
    let record = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w sKQkq - 0 1";
    for (to, name) in [("fen", "classic FEN"), ("shredder", "Shredder-FEN")] {
        let out = run(&["fen", "--to", to, "-r", record]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "the castling prefix 's' can only be written in X-FEN, not in {name};"
            )),
            "{err}"
        );
        assert_eq!(
            out.stdout,
            format!("{record}\n").as_bytes(),
            "left as it was"
        );
    }
}

/// PGN text under a Parquet name would fail in the first Parquet reader that
/// opens it: refused before anything is read or written, on every command
/// that writes PGN (case and a compression ending aside).
#[test]
fn pgn_outputs_named_parquet_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/mixed.pgn");
    let input = input.to_str().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    for args in [
        vec![
            "filter".to_string(),
            "--class".into(),
            "standard".into(),
            "-o".into(),
            at("x.parquet"),
        ],
        vec![
            "filter".into(),
            "--class".into(),
            "standard".into(),
            "--rest".into(),
            at("r.Parquet.zst"),
        ],
        vec![
            "convert".into(),
            "--to".into(),
            "fen".into(),
            "-o".into(),
            at("c.PARQUET"),
        ],
        vec!["split".into(), "-o".into(), at("{class}.parquet.gz")],
    ] {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.push(input);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("writes PGN text, which no Parquet reader reads"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // Export writes Parquet under that name.
    let out = run(&["export", "-q", "-o", &at("h.parquet"), input]);
    assert!(out.status.success());
}
