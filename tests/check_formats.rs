//! `check --format github|sarif|csv` and `--deny-warnings`: every problem that
//! `--format json` reports appears once in each CI format, at the same place;
//! the SARIF log validates against the official SARIF 2.1.0 schema; the workflow
//! commands survive the characters GitHub asks to escape.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{bin, run, run_stdin};
use serde_json::Value;

/// One problem as every format must place it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Placed {
    file: String,
    line: u64,
    column: u64,
    code: String,
    severity: String,
    message: String,
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The inputs compared: the bundled samples and the 158 cases of
/// tests/data/malformed-cases.pgn (every problem code several times).
fn inputs() -> Vec<String> {
    let mut files: Vec<String> = ["chess960", "crc", "malformed", "mixed", "standard"]
        .iter()
        .map(|s| format!("samples/{s}.pgn"))
        .collect();
    files.push("tests/data/malformed-cases.pgn".into());
    files
}

fn check(args: &[&str]) -> std::process::Output {
    bin()
        .current_dir(manifest())
        .arg("check")
        .args(args)
        .output()
        .expect("pgnfen runs")
}

fn from_json(stdout: &[u8]) -> Vec<Placed> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Placed {
                file: v["file"].as_str().unwrap().into(),
                line: v["line"].as_u64().unwrap(),
                column: v["column"].as_u64().unwrap(),
                code: v["code"].as_str().unwrap().into(),
                severity: v["severity"].as_str().unwrap().into(),
                message: v["message"].as_str().unwrap().into(),
            }
        })
        .collect()
}

/// Reverses GitHub's escaping of workflow command values.
fn unescape(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Parses `::error file=F,line=L,col=C,title=CODE::MESSAGE` as the Actions
/// runner does: the command, then comma-separated `key=value` properties up to
/// the first `::`, then the message.
fn parse_github_line(line: &str) -> Placed {
    let rest = line.strip_prefix("::").expect("a workflow command");
    let (command, rest) = rest.split_once(' ').expect("properties");
    let (props, message) = rest.split_once("::").expect("a message");
    assert!(!message.contains('\n') && !message.contains('\r'));
    let mut file = None;
    let (mut l, mut c, mut title) = (None, None, None);
    for prop in props.split(',') {
        let (k, v) = prop.split_once('=').expect("key=value");
        let v = unescape(v);
        match k {
            "file" => file = Some(v),
            "line" => l = Some(v.parse().unwrap()),
            "col" => c = Some(v.parse().unwrap()),
            "title" => title = Some(v),
            other => panic!("unexpected property {other} in {line}"),
        }
    }
    assert!(matches!(command, "error" | "warning"), "{line}");
    Placed {
        file: file.expect("file="),
        line: l.expect("line="),
        column: c.expect("col="),
        code: title.expect("title="),
        severity: command.into(),
        message: unescape(message),
    }
}

fn from_github(stdout: &[u8]) -> Vec<Placed> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(parse_github_line)
        .collect()
}

/// Undoes the percent-encoding of a SARIF artifact URI.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn from_sarif(log: &Value) -> Vec<Placed> {
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["ruleId"].as_str().unwrap();
            let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], id, "ruleIndex points at the rule of ruleId");
            let loc = &r["locations"][0]["physicalLocation"];
            Placed {
                // An absolute name is a `file://` URI, a relative one a path.
                file: {
                    let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
                    percent_decode(uri.strip_prefix("file://").unwrap_or(uri))
                },
                line: loc["region"]["startLine"].as_u64().unwrap(),
                column: loc["region"]["startColumn"].as_u64().unwrap(),
                code: id.into(),
                severity: r["level"].as_str().unwrap().into(),
                // The message ends with the problem's own advice, also given
                // alone in the result's properties.
                message: {
                    let text = r["message"]["text"].as_str().unwrap();
                    match r["properties"]["help"].as_str() {
                        Some(help) => text
                            .strip_suffix(&format!("; help: {help}"))
                            .expect("the help ends the message")
                            .into(),
                        None => text.into(),
                    }
                },
            }
        })
        .collect()
}

/// Validates `log` against tests/data/sarif-schema-2.1.0.json with Python's
/// `jsonschema` (the reference validator); only the ignored test below calls
/// it, since it needs that Python package (.ci/run installs it).
fn validate_sarif(log: &[u8]) {
    let probe = Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output();
    assert!(
        matches!(&probe, Ok(o) if o.status.success()),
        "python3 with jsonschema is needed to validate SARIF (pip install jsonschema)"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.sarif");
    std::fs::write(&path, log).unwrap();
    let script = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
cls = jsonschema.Draft7Validator
errors = list(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(log))
for e in errors[:5]:
    print(list(e.absolute_path), e.message)
sys.exit(1 if errors else 0)
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(manifest().join("tests/data/sarif-schema-2.1.0.json"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "SARIF log does not validate:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn github_and_sarif_report_what_json_reports() {
    let files = inputs();
    let mut args: Vec<&str> = vec!["--warnings", "--format"];
    let mut all = Vec::new();
    for format in ["json", "github", "sarif"] {
        args.push(format);
        args.extend(files.iter().map(String::as_str));
        let out = check(&args);
        args.truncate(2);
        assert_eq!(out.status.code(), Some(1), "{format}: errors were found");
        // The summary goes to standard error in the machine formats.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("games read;"), "{format}: {stderr}");
        all.push(out.stdout);
    }
    let json = from_json(&all[0]);
    let github = from_github(&all[1]);
    let sarif = from_sarif(&serde_json::from_slice(&all[2]).unwrap());
    assert!(
        json.len() > 100,
        "the inputs hold many problems: {}",
        json.len()
    );
    assert!(json.iter().any(|p| p.severity == "warning"));
    assert_eq!(github, json, "github lines, in order");
    assert_eq!(sarif, json, "SARIF results, in order");
}

/// The problems of a CSV report (`--csv-raw`: cells as they are), in order.
fn from_csv(stdout: &[u8]) -> Vec<Placed> {
    let mut reader = csv::Reader::from_reader(stdout);
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (file, line, column) = (at("file"), at("line"), at("column"));
    let (code, severity, message) = (at("code"), at("severity"), at("message"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            Placed {
                file: r[file].into(),
                line: r[line].parse().unwrap(),
                column: r[column].parse().unwrap(),
                code: r[code].into(),
                severity: r[severity].into(),
                message: r[message].into(),
            }
        })
        .collect()
}

#[test]
fn csv_reports_what_json_reports_past_its_writers_restarts() {
    // The CSV rows go through one writer that starts again with an empty
    // buffer every megabyte: 30,000 problems make about 5 MB of rows.
    let dir = tempfile::tempdir().unwrap();
    let dense = dir.path().join("dense.pgn");
    std::fs::write(&dense, "[SetUp \"1\"]\n\n*\n\n".repeat(30_000)).unwrap();
    let mut files = inputs();
    files.push(dense.to_str().unwrap().to_string());
    let mut reports = Vec::new();
    for format in ["json", "csv"] {
        let mut args = vec!["--warnings", "--format", format];
        if format == "csv" {
            args.push("--csv-raw");
        }
        args.extend(files.iter().map(String::as_str));
        let out = check(&args);
        assert_eq!(out.status.code(), Some(1), "{format}: errors were found");
        reports.push(out.stdout);
    }
    assert!(
        reports[1].len() > 4 << 20,
        "{} bytes of CSV",
        reports[1].len()
    );
    let json = from_json(&reports[0]);
    assert!(json.len() > 30_000, "{} problems", json.len());
    assert_eq!(from_csv(&reports[1]), json, "CSV rows, in order");
}

#[test]
fn sarif_rules_cover_every_code_with_help() {
    let out = check(&["--format", "sarif", "samples/standard.pgn"]);
    assert_eq!(out.status.code(), Some(0));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "pgnfen");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    // Every code of the documentation's table is a rule, with its three texts.
    let readme = std::fs::read_to_string(manifest().join("docs/codes.md")).unwrap();
    for id in &ids {
        assert!(
            readme.contains(&format!("| `{id}` |")),
            "{id} is a documented code"
        );
    }
    assert_eq!(ids.len(), pgnfen::Code::ALL.len());
    for r in rules {
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(!r[key]["text"].as_str().unwrap().is_empty(), "{r}");
        }
    }
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn sarif_and_github_escape_file_names_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    // A name with the characters a workflow property must escape, and a
    // space that a URI must; the '%' piece puts a '%' into the message.
    let path = dir.path().join("book, part 2: 50%.pgn");
    std::fs::write(
        &path,
        "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbn%/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n*\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let json = from_json(&run(&["check", "--format", "json", p]).stdout);
    assert_eq!(json.len(), 1);
    assert!(json[0].message.contains('%'), "{:?}", json[0]);

    let out = run(&["check", "--format", "github", p]);
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        line.contains("%2C part 2%3A 50%25.pgn,line=3,col="),
        "{line}"
    );
    assert!(line.starts_with("::error file="), "{line}");
    assert_eq!(from_github(&out.stdout), json);

    let out = run(&["check", "--format", "sarif", p]);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"]
        .as_str()
        .unwrap();
    assert!(uri.ends_with("book%2C%20part%202%3A%2050%25.pgn"), "{uri}");
    assert_eq!(from_sarif(&log), json);
}

/// A SARIF result names its file by a URI made of the path's own bytes: a
/// name that is not UTF-8, or that holds a control character, is shown
/// replaced or escaped in messages, but its URI is that of the very file.
#[test]
fn sarif_uris_are_made_of_the_paths_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let game = "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*\n";
    for (name, uri) in [
        (&b"caf\xE9.pgn"[..], "caf%E9.pgn"),
        (&b"a\x1B[31mb.pgn"[..], "a%1B%5B31mb.pgn"),
    ] {
        std::fs::write(dir.path().join(OsStr::from_bytes(name)), game).unwrap();
        let check = |format: &str| {
            bin()
                .current_dir(dir.path())
                .args(["check", "--format", format])
                .arg(OsStr::from_bytes(name))
                .output()
                .unwrap()
        };
        let out = check("sarif");
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let log: Value = serde_json::from_slice(&out.stdout).unwrap();
        let result = &log["runs"][0]["results"][0];
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            uri
        );
        // The name in the other formats stays the one shown to people.
        let out = check("json");
        let shown: Value =
            serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
        assert!(!shown["file"].as_str().unwrap().contains('\x1b'), "{shown}");
    }
}

/// The SARIF logs of the tests above, checked against the SARIF 2.1.0 schema.
#[test]
#[ignore = "needs python3 with jsonschema"]
fn sarif_logs_validate_against_the_schema() {
    let mut args = vec!["--warnings", "--format", "sarif"];
    let files = inputs();
    args.extend(files.iter().map(String::as_str));
    validate_sarif(&check(&args).stdout);
    validate_sarif(&check(&["--format", "sarif", "samples/standard.pgn"]).stdout);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book, part 2: 50%.pgn");
    std::fs::write(
        &path,
        "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbn%/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n*\n",
    )
    .unwrap();
    validate_sarif(&run(&["check", "--format", "sarif", path.to_str().unwrap()]).stdout);
    // With the run's notes as the invocation's notifications, after results.
    let words = dir.path().join("words.txt");
    std::fs::write(&words, "no games here\n").unwrap();
    let noted = run(&[
        "check",
        "--format",
        "sarif",
        "samples/malformed.pgn",
        words.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&noted.stdout).contains("toolExecutionNotifications"));
    validate_sarif(&noted.stdout);
}

/// What the run warns about beside the problems (an input in which no tag
/// line is found) reaches a CI service too: a `::warning::` annotation, a
/// notification of the SARIF log's run; standard error shows it as ever.
/// `--quiet`, which silences the warnings, leaves them out.
#[test]
fn ci_formats_give_the_runs_notes() {
    let dir = tempfile::tempdir().unwrap();
    let words = dir.path().join("notes, 100%.txt");
    std::fs::write(&words, "no games here\n").unwrap();
    let empty = dir.path().join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let (words, empty) = (words.to_str().unwrap(), empty.to_str().unwrap());
    let note = format!("{words}: no PGN tag line found");
    let empty_note = format!("{empty}: no PGN tag line found (it holds no text, so no game)");

    let github = check(&["--format", "github", "samples/malformed.pgn", words, empty]);
    let out = String::from_utf8(github.stdout).unwrap();
    let annotations: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("::warning::"))
        .collect();
    // The message's `%` escaped as the runner wants it.
    assert_eq!(
        annotations,
        [
            format!("::warning::{}", note.replace('%', "%25")),
            format!("::warning::{}", empty_note)
        ]
    );
    assert!(
        out.lines().any(|l| l.starts_with("::error file=")),
        "the problems as before"
    );
    assert!(String::from_utf8_lossy(&github.stderr).contains(&format!("pgnfen: warning: {note}")));

    let sarif = check(&["--format", "sarif", "samples/malformed.pgn", words, empty]);
    let log: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let run = &log["runs"][0];
    assert!(!run["results"].as_array().unwrap().is_empty());
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    let texts: Vec<&str> = invocation["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            assert_eq!(n["level"], "warning");
            n["message"]["text"].as_str().unwrap()
        })
        .collect();
    assert_eq!(texts, [note.as_str(), empty_note.as_str()]);

    // Without notes, no invocation; under --quiet, none either.
    let clean = check(&["--format", "sarif", "samples/standard.pgn"]);
    let log: Value = serde_json::from_slice(&clean.stdout).unwrap();
    assert!(log["runs"][0].get("invocations").is_none());
    for format in ["sarif", "github"] {
        let quiet = bin()
            .current_dir(manifest())
            .args(["--quiet", "check", "--format", format, words])
            .output()
            .unwrap();
        let out = String::from_utf8(quiet.stdout).unwrap();
        assert!(!out.contains("no PGN tag line"), "{out}");
    }
}

const WARNING_ONLY: &str = "[Event \"w\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. Kd2 *\n";
const CLEAN: &str = "[Event \"c\"]\n\n1. e4 *\n";
const ERROR: &str = "[Event \"e\"]\n[SetUp \"1\"]\n\n1. e4 *\n";

#[test]
fn deny_warnings_sets_the_exit_status() {
    for (input, args, status, printed) in [
        (WARNING_ONLY, &["check"][..], 0, 0),
        (WARNING_ONLY, &["check", "--warnings"][..], 0, 1),
        (WARNING_ONLY, &["check", "--deny-warnings"][..], 1, 1),
        (
            WARNING_ONLY,
            &["check", "--deny-warnings", "--format", "json"][..],
            1,
            1,
        ),
        (
            WARNING_ONLY,
            &["check", "--deny-warnings", "--format", "github"][..],
            1,
            1,
        ),
        (CLEAN, &["check", "--deny-warnings"][..], 0, 0),
        (
            CLEAN,
            &["check", "--deny-warnings", "--format", "sarif"][..],
            0,
            0,
        ),
        (ERROR, &["check"][..], 1, 1),
        (
            ERROR,
            &["check", "--deny-warnings", "--format", "github"][..],
            1,
            1,
        ),
    ] {
        let out = run_stdin(args, input.as_bytes());
        assert_eq!(out.status.code(), Some(status), "{args:?} on {input:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let count = match args.last() {
            Some(&"json") | Some(&"github") => stdout.lines().count(),
            Some(&"sarif") => {
                let log: Value = serde_json::from_str(&stdout).unwrap();
                log["runs"][0]["results"].as_array().unwrap().len()
            }
            _ => {
                stdout.matches("[fen-without-setup]").count()
                    + stdout.matches("[setup-without-fen]").count()
            }
        };
        assert_eq!(count, printed, "{args:?} on {input:?}: {stdout}");
    }
    // With --deny-warnings a warning is a failure in GitHub's terms too: still a
    // `::warning` (it is one), and the exit status fails the step.
    let out = run_stdin(
        &["check", "--deny-warnings", "--format", "github"],
        WARNING_ONLY.as_bytes(),
    );
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(
        line.starts_with("::warning file=<stdin>,line=2,col=7,title=fen-without-setup::"),
        "{line}"
    );
}

#[test]
fn summary_counts_read_like_english() {
    let out = run_stdin(&["check"], ERROR.as_bytes());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("\n1 game read; 1 with errors, 0 with warnings"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  setup-without-fen    error    1\n"),
        "{stdout}"
    );
    // Warnings counted but not listed: the summary says how to list them.
    let warned = "[Event \"a\"]\n[SetUp \"1\"]\n\
                  [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\"]\n\n*\n";
    let out = run_stdin(&["check"], warned.as_bytes());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let read = stdout.lines().find(|l| l.contains(" read; ")).unwrap();
    assert!(
        read.starts_with("1 game read; 0 with errors, 1 with warnings ("),
        "{read}"
    );
    assert!(read.ends_with("s); --warnings lists them"), "{read}");
    let out = run_stdin(&["check", "--warnings"], warned.as_bytes());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains("--warnings lists"), "{stdout}");

    let many = ERROR.repeat(1234);
    let out = run_stdin(&["check", "--format", "json"], many.as_bytes());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("1,234 games read; 1,234 with errors, 0 with warnings"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  setup-without-fen    error    1,234\n"),
        "{stderr}"
    );
    // Machine output keeps plain numbers.
    let last = String::from_utf8(out.stdout).unwrap();
    assert!(last.lines().last().unwrap().contains("\"game\":1234"));
}

#[test]
fn a_failing_input_prints_no_partial_sarif_document_to_parse() {
    let missing = Path::new("no/such/file.pgn");
    let out = run(&["check", "--format", "sarif", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("no/such/file.pgn"), "{stderr}");
}

/// The `check --format json` lines of `path`, parsed.
fn json_lines(path: &Path, extra: &[&str]) -> Vec<Value> {
    let mut cmd = bin();
    cmd.args(["check", "--format", "json"])
        .args(extra)
        .arg(path);
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .chain(
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter(|l| l.starts_with('{'))
                .collect::<Vec<_>>(),
        )
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The column of byte `at` of `line` as it is shown: UTF-8 with U+FFFD for
/// each invalid sequence (Python's `decode('utf-8', 'replace')` agrees).
fn shown_column(line: &[u8], at: usize) -> u64 {
    String::from_utf8_lossy(&line[..at]).chars().count() as u64 + 1
}

#[test]
fn columns_count_bytes_that_are_not_utf8_as_one_character_each() {
    let dir = tempfile::tempdir().unwrap();
    // Windows-1252 quotes and a stray continuation byte before the fault,
    // in a comment (a --moves finding) and in a tag line (a FEN finding),
    // on a short line and on one longer than the 4 KiB a header keeps.
    let moves = b"1. e4 {\xb1 Kasparov\x92s \x93idea\x94} e5 2. Ke3 *".to_vec();
    let short = b"[Event \"\x93Open\x94 \x96 Caf\xe9\"] [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KX3 - 0 1\"]".to_vec();
    let mut long = b"[Annotator \"".to_vec();
    for _ in 0..1500 {
        long.extend_from_slice(b"\x93\xe9\xc3\xa9\xe6\xbc\xa2x");
    }
    long.extend_from_slice(
        b"\"] [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KX3 - 0 1\"]",
    );
    for (line, needle, extra) in [
        (&moves, &b"Ke3"[..], &["--moves", "all"][..]),
        (&short, &b"X3"[..], &[][..]),
        (&long, &b"X3"[..], &[][..]),
    ] {
        let path = dir.path().join("game.pgn");
        let mut text = b"[Event \"e\"]\n\n".to_vec();
        if line.starts_with(b"1.") {
            text.extend_from_slice(line);
        } else {
            text = line.clone();
            text.extend_from_slice(b"\n\n*");
        }
        text.push(b'\n');
        std::fs::write(&path, &text).unwrap();
        let at = line
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap();
        let found: Vec<Value> = json_lines(&path, extra)
            .into_iter()
            .filter(|v| v["code"] == "illegal-move" || v["code"] == "fen-syntax")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["column"], shown_column(line, at), "{}", found[0]);
        // The GitHub and CSV formats give the same column.
        let github = bin()
            .args(["check", "--format", "github"])
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        let github = String::from_utf8_lossy(&github.stdout).into_owned()
            + &String::from_utf8_lossy(&github.stderr);
        assert!(
            github.contains(&format!(",col={},", shown_column(line, at))),
            "{github}"
        );
    }
}

#[test]
fn fen_columns_count_characters_and_its_listing_shows_controls_escaped() {
    let record = "4k3/8/8/8/8/8/8/4K3 w - - c0 \"漢字\"; 0bad;";
    let out = run(&["fen", "--format", "json", "-r", record]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let at = record.find("0bad").unwrap();
    assert_eq!(
        v["problems"][0]["column"],
        record[..at].chars().count() as u64 + 1,
        "{v}"
    );
    // The text report on standard error says the same column.
    let out = run(&["fen", "-r", record]);
    let column = record[..at].chars().count() + 1;
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!(":1:{column}: error")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A listing line cannot act on the terminal: control characters escaped.
    let book = b"\x1b[2K\x1b[1Gsetup\t4k3/8/8/8/8/8/8/4K3 w - - 0 1\n# note \x1b[2J\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\n";
    let out = run_stdin(&["-q", "fen"], book);
    let listing = String::from_utf8(out.stdout).unwrap();
    assert!(!listing.contains('\x1b'), "{listing:?}");
    assert_eq!(
        listing,
        "malformed\t\\u{1b}[2K\\u{1b}[1Gsetup\\t4k3/8/8/8/8/8/8/4K3 w - - 0 1\n# note \\u{1b}[2J\nsetup\t4k3/8/8/8/8/8/8/4K3 w - - 0 1\n"
    );
    // A rewritten book keeps its bytes.
    let out = run_stdin(&["-q", "fen", "--to", "xfen"], book);
    assert_eq!(out.stdout, book);
}

#[test]
fn quoted_values_in_messages_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.pgn");
    let text = format!(
        "[SetUp \"{}\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 {}\"]\n\n*\n",
        "y".repeat(100_000),
        "z".repeat(5_000)
    );
    std::fs::write(&path, text).unwrap();
    let found = json_lines(&path, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    for v in found {
        let message = v["message"].as_str().unwrap();
        assert!(message.len() < 400 && message.contains('…'), "{message}");
    }
}

/// The summary lines of `check`'s text output: the line of games, then each
/// code with its count.
fn summary_of(stderr_and_stdout: &[u8]) -> (String, Vec<(String, u64)>) {
    let text = String::from_utf8_lossy(stderr_and_stdout);
    let games = text
        .lines()
        .find(|l| l.contains(" games read; "))
        .map(|l| l.split(" (").next().unwrap_or(l).to_string())
        .expect("a summary line");
    let counts = text
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let (code, severity, n) = (words.next()?, words.next()?, words.next()?);
            if !matches!(severity, "error" | "warning") || words.next().is_some() {
                return None;
            }
            Some((code.to_string(), n.replace(',', "").parse().ok()?))
        })
        .collect();
    (games, counts)
}

/// A game whose problems are all warnings is only counted when warnings are
/// not shown (its messages are never written): the summary must count what
/// `check --warnings` counts, and what `stats` counts, code by code.
#[test]
fn warnings_counted_unshown_are_the_warnings_shown() {
    let mut warnings_seen = 0;
    for file in inputs() {
        let quiet = check(&[&file]);
        let shown = check(&["--warnings", &file]);
        let both = |o: &std::process::Output| [o.stdout.clone(), o.stderr.clone()].concat();
        let (games, counts) = summary_of(&both(&quiet));
        assert_eq!(
            (games.clone(), counts.clone()),
            summary_of(&both(&shown)),
            "{file}"
        );
        let stats = bin()
            .current_dir(manifest())
            .args(["stats", "--format", "json", &file])
            .output()
            .expect("pgnfen runs");
        let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
        let mut by_stats: Vec<(String, u64)> = stats["problems"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, n)| n.as_u64() != Some(0))
            .map(|(c, n)| (c.clone(), n.as_u64().unwrap()))
            .collect();
        let mut by_check = counts.clone();
        by_stats.sort();
        by_check.sort();
        assert_eq!(by_check, by_stats, "{file}");
        warnings_seen += counts
            .iter()
            .filter(|(c, _)| {
                [
                    "fen-without-setup",
                    "missing-variant",
                    "missing-clocks",
                    "noncanonical",
                ]
                .contains(&c.as_str())
            })
            .count();
    }
    // The inputs hold every warning code: the test compares something.
    assert!(warnings_seen >= 4, "{warnings_seen}");
}

#[test]
fn each_games_problems_come_in_the_order_of_the_file() {
    // The classification finds a SetUp problem before a Variant problem; the
    // report lists them by line and column, as a compiler does.
    let mut games_with_several = 0;
    for file in inputs() {
        let json = check(&["--warnings", "--format", "json", &file]);
        let lines: Vec<Value> = String::from_utf8(json.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for game in lines.chunk_by(|a, b| a["game"] == b["game"]) {
            let places: Vec<(u64, u64)> = game
                .iter()
                .map(|p| (p["line"].as_u64().unwrap(), p["column"].as_u64().unwrap()))
                .collect();
            assert!(
                places.is_sorted(),
                "{file}, game {}: {places:?}",
                game[0]["game"]
            );
            games_with_several += usize::from(places.len() > 1);
        }
    }
    assert!(games_with_several >= 5, "{games_with_several}");
    // The case the audit found: Variant on line 2, SetUp on line 3.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("order.pgn");
    std::fs::write(
        &path,
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\n*\n",
    )
    .unwrap();
    let out = check(&["--format", "json", path.to_str().unwrap()]);
    let codes: Vec<String> = from_json(&out.stdout).into_iter().map(|p| p.code).collect();
    assert_eq!(codes, ["variant-without-fen", "setup-without-fen"]);
}

/// The README's table of problem codes, kept by hand, names every code.
#[test]
fn the_readme_lists_every_problem_code() {
    let readme = std::fs::read_to_string(manifest().join("README.md")).unwrap();
    for code in pgnfen::Code::ALL {
        assert!(
            readme.contains(&format!("| `{}` |", code.as_str())),
            "README.md's table of problem codes lacks {}",
            code.as_str()
        );
    }
}
