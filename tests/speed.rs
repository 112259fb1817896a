//! Time controls and speed (docs/speed.md) through the real binary: `--speed` on
//! filter, split, stats and export, `{speed}` in split's template, the stats
//! table and JSON, and the export columns against the library's reader.

mod common;

use std::path::{Path, PathBuf};

use common::{json, run};
use pgnfen::speed::{Clock, Speed};

/// One game per value (`None`: no TimeControl tag), each with a class of its
/// own now and then, so that speed and class selections cross.
const VALUES: [Option<&str>; 24] = [
    Some("300+3"),
    Some("60+0"),
    Some("15"),
    Some("10+0.1"),
    Some("900+10"),
    Some("40/5400+30:1800+30"),
    Some("1/86400"),
    Some("-"),
    Some("*60"),
    Some("?"),
    Some("G/90"),
    Some("5 min"),
    Some("3|2"),
    Some("0/300"),
    Some("180 + 2"),
    Some("３００+３"),
    Some("300+3+1"),
    None,
    Some("29.999"),
    Some("30"),
    Some("1500"),
    Some("86400"),
    Some("1800"),
    Some(""),
];

/// The Chess960 start array 0 (BBQNNRKR), for a game of another class.
const CHESS960: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1";

/// The games of the fixture, each exactly as written to the file.
fn games() -> Vec<String> {
    VALUES
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let mut g = format!("[Event \"g{i}\"]\n");
            if i % 3 == 1 {
                g.push_str(&format!(
                    "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{CHESS960}\"]\n"
                ));
            }
            if let Some(v) = value {
                g.push_str(&format!("[TimeControl \"{v}\"]\n"));
            }
            // CRLF in one game: bytes are copied, never rewritten.
            if i == 4 {
                g.push_str("\r\n1. e4 e5 *\r\n\r\n");
            } else {
                g.push_str("\n1. e4 e5 *\n\n");
            }
            g
        })
        .collect()
}

fn fixture(dir: &Path) -> PathBuf {
    let path = dir.join("speeds.pgn");
    std::fs::write(&path, games().concat()).unwrap();
    path
}

fn speed_of(i: usize) -> Speed {
    Speed::of(VALUES[i].map(str::as_bytes))
}

fn class_of(i: usize) -> &'static str {
    if i % 3 == 1 { "chess960" } else { "standard" }
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_fixture_covers_every_speed() {
    for speed in Speed::ALL {
        assert!(
            (0..VALUES.len()).any(|i| speed_of(i) == speed),
            "{speed} has no game"
        );
    }
}

#[test]
fn filter_speed_splits_the_input_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let games = games();
    for speed in Speed::ALL {
        let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        let out = run(&[
            "filter",
            "-q",
            "--speed",
            speed.as_str(),
            "-o",
            a.to_str().unwrap(),
            "--rest",
            b.to_str().unwrap(),
            input.to_str().unwrap(),
        ]);
        ok(&out);
        let (mut kept, mut rest) = (String::new(), String::new());
        for (i, g) in games.iter().enumerate() {
            if speed_of(i) == speed {
                &mut kept
            } else {
                &mut rest
            }
            .push_str(g);
        }
        assert_eq!(std::fs::read_to_string(&a).unwrap(), kept, "{speed}");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), rest, "{speed}");
    }
}

#[test]
fn speed_class_and_tag_selections_all_hold() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let out = run(&[
        "filter",
        "-q",
        "--class",
        "standard",
        "--speed",
        "classical,correspondence",
        "--tag",
        "Event!=g6",
        input.to_str().unwrap(),
    ]);
    ok(&out);
    let want: String = games()
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            class_of(i) == "standard"
                && matches!(speed_of(i), Speed::Classical | Speed::Correspondence)
                && i != 6
        })
        .map(|(_, g)| g.as_str())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    // --speed alone is a selection.
    ok(&run(&[
        "filter",
        "-q",
        "--speed",
        "unknown",
        input.to_str().unwrap(),
    ]));
}

#[test]
fn bad_speeds_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    for command in ["filter", "stats", "export"] {
        let out = run(&[command, "--speed", "hyperbullet", input.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("ultrabullet"), "{command}: {err}");
    }
    let out = run(&["split", "-o", "out.pgn", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("{speed}"));
    // An empty item of a list is named as such, not as a missing value.
    for (flag, list) in [
        ("--speed", "blitz,"),
        ("--speed", ",rapid"),
        ("--speed", "bullet,,blitz"),
    ] {
        let out = run(&["stats", flag, list, input.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{flag} {list}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("an empty item in the list of '{flag} <"))
                && !err.contains("none was supplied"),
            "{flag} {list}: {err}"
        );
    }
}

fn stats_speeds(args: &[&str]) -> Vec<u64> {
    let mut all = vec!["stats", "--format", "json"];
    all.extend_from_slice(args);
    let v = json(&run(&all));
    let speeds = v["speeds"].as_object().unwrap();
    // All seven keys, in order.
    let keys: Vec<&str> = speeds.keys().map(String::as_str).collect();
    assert_eq!(keys, Speed::ALL.map(Speed::as_str));
    Speed::ALL
        .iter()
        .map(|s| speeds[s.as_str()].as_u64().unwrap())
        .collect()
}

#[test]
fn stats_counts_speeds() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let want: Vec<u64> = Speed::ALL
        .iter()
        .map(|s| (0..VALUES.len()).filter(|&i| speed_of(i) == *s).count() as u64)
        .collect();
    assert_eq!(stats_speeds(&[input.to_str().unwrap()]), want);
    // --speed counts only those games; the others are unmatched.
    let v = json(&run(&[
        "stats",
        "--format",
        "json",
        "--speed",
        "blitz,rapid",
        input.to_str().unwrap(),
    ]));
    let blitz_rapid = want[Speed::Blitz.index()] + want[Speed::Rapid.index()];
    assert_eq!(v["games"].as_u64(), Some(blitz_rapid));
    assert_eq!(
        v["unmatched"].as_u64(),
        Some(VALUES.len() as u64 - blitz_rapid)
    );
    assert_eq!(v["speeds"]["unknown"].as_u64(), Some(0));
    // The text report's note on the others names the flags given, and only them.
    let unmatched = VALUES.len() as u64 - blitz_rapid;
    for (flags, named) in [
        (&["--speed", "blitz,rapid"][..], "--speed"),
        (
            &["--speed", "blitz,rapid", "--tag", "Event!=none"][..],
            "--tag and --speed",
        ),
    ] {
        let mut args = vec!["stats"];
        args.extend_from_slice(flags);
        args.push(input.to_str().unwrap());
        let text = String::from_utf8(run(&args).stdout).unwrap();
        let note = format!("{unmatched} games read did not match {named} and are not counted");
        assert!(text.contains(&note), "{note:?} in\n{text}");
    }
    // The text report: a row per speed, a column per class with games.
    let out = run(&["stats", input.to_str().unwrap()]);
    ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text
        .lines()
        .find(|l| l.starts_with("speed "))
        .unwrap_or_else(|| panic!("no speed table:\n{text}"));
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["speed", "standard", "chess960", "total", "%"]
    );
    for speed in Speed::ALL {
        let row = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(speed.as_str()))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        let in_class = |class: &str| {
            (0..VALUES.len())
                .filter(|&i| speed_of(i) == speed && class_of(i) == class)
                .count()
                .to_string()
        };
        assert_eq!(cells[1], in_class("standard"), "{row}");
        assert_eq!(cells[2], in_class("chess960"), "{row}");
        assert_eq!(cells[3], want[speed.index()].to_string(), "{row}");
    }
}

#[test]
fn split_by_speed_counts_equal_stats() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let speeds = stats_speeds(&[input.to_str().unwrap()]);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let template = format!("{}/{{speed}}.pgn", out_dir.display());
    ok(&run(&[
        "split",
        "-q",
        "-o",
        &template,
        input.to_str().unwrap(),
    ]));
    let games = games();
    for speed in Speed::ALL {
        let path = out_dir.join(format!("{speed}.pgn"));
        let n = speeds[speed.index()];
        if n == 0 {
            assert!(!path.exists(), "{speed}: no games, no file");
            continue;
        }
        let have = std::fs::read_to_string(&path).unwrap();
        let want: String = (0..games.len())
            .filter(|&i| speed_of(i) == speed)
            .map(|i| games[i].as_str())
            .collect();
        assert_eq!(have, want, "{speed}");
        let counted = stats_speeds(&[path.to_str().unwrap()]);
        assert_eq!(counted[speed.index()], n, "{speed}");
    }
}

#[test]
fn split_by_speed_and_class_with_selections() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    let template = format!("{}/{{speed}}-{{class}}.pgn", dir.path().display());
    ok(&run(&[
        "split",
        "-q",
        "--speed",
        "classical,unknown",
        "--class",
        "chess960",
        "-o",
        &template,
        input.to_str().unwrap(),
    ]));
    let games = games();
    let mut files = 0;
    for speed in Speed::ALL {
        for class in ["standard", "chess960"] {
            let path = dir.path().join(format!("{speed}-{class}.pgn"));
            let want: String = (0..games.len())
                .filter(|&i| {
                    speed_of(i) == speed
                        && class_of(i) == class
                        && class == "chess960"
                        && matches!(speed, Speed::Classical | Speed::Unknown)
                })
                .map(|i| games[i].as_str())
                .collect();
            if want.is_empty() {
                assert!(!path.exists(), "{}", path.display());
            } else {
                assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
                files += 1;
            }
        }
    }
    assert_eq!(files, 2);
    // Without {speed} in the name, --speed still selects: one file per class.
    let template = format!("{}/only-{{class}}.pgn", dir.path().display());
    ok(&run(&[
        "split",
        "-q",
        "--speed",
        "blitz",
        "-o",
        &template,
        input.to_str().unwrap(),
    ]));
    let want: String = (0..games.len())
        .filter(|&i| speed_of(i) == Speed::Blitz && class_of(i) == "standard")
        .map(|i| games[i].as_str())
        .collect();
    let have = std::fs::read_to_string(dir.path().join("only-standard.pgn")).unwrap();
    assert_eq!(have, want);
}

/// The first TimeControl value of a game's header lines, raw.
fn time_control(game: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(game);
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("[TimeControl \"") {
            return rest.strip_suffix("\"]").map(|v| v.as_bytes().to_vec());
        }
    }
    None
}

/// Exports `path` as JSON lines and checks each row's speed columns against
/// the reader on the game's own TimeControl value; returns the rows.
fn export_matches_reader(path: &Path) -> usize {
    let out = run(&["export", "-q", "--format", "jsonl", path.to_str().unwrap()]);
    ok(&out);
    let data = std::fs::read(path).unwrap();
    let mut rows = 0;
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let row: serde_json::Value = serde_json::from_slice(line).unwrap();
        let offset = row["offset"].as_u64().unwrap() as usize;
        let length = row["length"].as_u64().unwrap() as usize;
        // The TimeControl column holds the first value, unescaped; the model
        // reads it from the bytes as a cross-check of the column.
        let tc = row["TimeControl"].as_str().map(|s| s.as_bytes().to_vec());
        if !data[offset..offset + length].contains(&b'\\') {
            assert_eq!(tc, time_control(&data[offset..offset + length]), "{row}");
        }
        let clock = Clock::of(tc.as_deref());
        let speed = (clock.speed != Speed::Unknown).then(|| clock.speed.as_str());
        assert_eq!(row["speed"].as_str(), speed, "{row}");
        assert_eq!(row["time_base"].as_f64(), clock.base, "{row}");
        assert_eq!(row["time_increment"].as_f64(), clock.increment, "{row}");
        rows += 1;
    }
    rows
}

#[test]
fn export_columns_equal_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(dir.path());
    assert_eq!(export_matches_reader(&input), VALUES.len());
    // The columns follow chess960_position.
    let out = run(&["export", "-q", "--format", "csv", input.to_str().unwrap()]);
    ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text.lines().next().unwrap();
    assert!(
        header.starts_with(
            "file,game,offset,length,line,class,chess960_position,speed,time_base,time_increment,variant,"
        ),
        "{header}"
    );
    // Values: 10+0.1 is a float pair; `-` has a speed and no clock.
    let first = text.lines().nth(4).unwrap();
    assert!(first.contains(",ultrabullet,10.0,0.1,"), "{first}");
    let dash = text.lines().nth(8).unwrap();
    assert!(dash.contains(",correspondence,,,"), "{dash}");
    // --speed selects the rows.
    let out = run(&[
        "export",
        "-q",
        "--format",
        "jsonl",
        "--speed",
        "correspondence",
        input.to_str().unwrap(),
    ]);
    ok(&out);
    let rows: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let want = (0..VALUES.len())
        .filter(|&i| speed_of(i) == Speed::Correspondence)
        .count();
    assert_eq!(rows.len(), want);
    assert!(rows.iter().all(|r| r["speed"] == "correspondence"));
}

/// The corpus's PGN files (`PGNFEN_CORPUS`).
fn corpus_files() -> Vec<PathBuf> {
    let corpus = PathBuf::from(std::env::var_os("PGNFEN_CORPUS").expect("PGNFEN_CORPUS is set"));
    let mut files = Vec::new();
    for sub in ["real", "generated", "generated/edge"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
            .collect();
        paths.sort();
        files.extend(paths);
    }
    assert!(!files.is_empty());
    files
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn corpus_export_columns_equal_the_reader() {
    let mut rows = 0;
    for path in corpus_files() {
        rows += export_matches_reader(&path);
    }
    assert!(rows > 1000, "{rows}");
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn corpus_filter_and_split_by_speed_agree_with_stats() {
    let dir = tempfile::tempdir().unwrap();
    // The real files only: an edge file (an unterminated comment) would
    // swallow the files after it once they are joined.
    let files: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("real")))
        .collect();
    let mut input = Vec::new();
    for f in &files {
        input.extend_from_slice(&std::fs::read(f).unwrap());
    }
    let joined = dir.path().join("all.pgn");
    std::fs::write(&joined, &input).unwrap();
    let joined = joined.to_str().unwrap();
    let speeds = stats_speeds(&[joined]);
    assert!(speeds[Speed::Unknown.index()] < speeds.iter().sum::<u64>());
    // filter --speed X -o A --rest B: A and B rebuild the input, game by game.
    let rows: Vec<serde_json::Value> = {
        let out = run(&[
            "export", "-q", "--format", "jsonl", "--tags", "Event", joined,
        ]);
        ok(&out);
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    };
    for speed in [Speed::Classical, Speed::Blitz, Speed::Unknown] {
        let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        ok(&run(&[
            "filter",
            "-q",
            "--speed",
            speed.as_str(),
            "-o",
            a.to_str().unwrap(),
            "--rest",
            b.to_str().unwrap(),
            joined,
        ]));
        let (kept, rest) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let (mut ka, mut kb) = (0, 0);
        let mut rebuilt = Vec::with_capacity(input.len());
        for row in &rows {
            let len = row["length"].as_u64().unwrap() as usize;
            let name = (speed != Speed::Unknown).then(|| speed.as_str());
            if row["speed"].as_str() == name {
                rebuilt.extend_from_slice(&kept[ka..ka + len]);
                ka += len;
            } else {
                rebuilt.extend_from_slice(&rest[kb..kb + len]);
                kb += len;
            }
        }
        assert_eq!((ka, kb), (kept.len(), rest.len()), "{speed}");
        assert!(rebuilt == input, "{speed}: the input is not rebuilt");
    }
    // split -o '{speed}.pgn': each file's games are that speed's count.
    let out_dir = dir.path().join("split");
    std::fs::create_dir(&out_dir).unwrap();
    let template = format!("{}/{{speed}}.pgn", out_dir.display());
    ok(&run(&["split", "-q", "-o", &template, joined]));
    for speed in Speed::ALL {
        let path = out_dir.join(format!("{speed}.pgn"));
        let n = if path.exists() {
            json(&run(&["stats", "--format", "json", path.to_str().unwrap()]))["games"]
                .as_u64()
                .unwrap()
        } else {
            0
        };
        assert_eq!(n, speeds[speed.index()], "{speed}");
    }
}
