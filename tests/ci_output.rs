//! What `check` and `export` write for CI and spreadsheets
//! (docs/ci-output.md): memory bounded however dense the problems, in every
//! format; nothing a name or a value holds can start a GitHub workflow
//! command, drive a terminal or run as a spreadsheet formula.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{bin, peak_kib};

/// A value holding an OSC (window title) and a CSI (colour) sequence.
const EVIL_VALUE: &str = "2\u{1b}]0;TITLE\u{7}\u{1b}[31mRED";
/// The same as every format shows it.
const EVIL_SHOWN: &str = "2\\u{1b}]0;TITLE\\u{7}\\u{1b}[31mRED";

#[test]
fn check_memory_stays_bounded_on_a_file_of_problems_only() {
    // 8 MB of games that are each a problem (SetUp "1" without a FEN), half a
    // million problems. When memory grew with the problems, 20 MB of them took
    // 8 GB in SARIF and 450-900 MB in the other formats: at 8 MB that is still
    // 180 MiB or more in every format, against the 100 MiB allowed here.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dense.pgn");
    let game = b"[SetUp \"1\"]\n\n*\n\n";
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for _ in 0..(8 << 20) / game.len() {
        f.write_all(game).unwrap();
    }
    f.flush().unwrap();
    drop(f);
    let file = path.to_str().unwrap();
    let mut failures = Vec::new();
    for format in ["text", "json", "csv", "github", "sarif"] {
        for threads in ["2", "8"] {
            let (kib, code) = peak_kib(&["-j", threads, "check", "--format", format, file]);
            assert_eq!(code, Some(1), "{format} -j{threads}: errors found");
            if kib >= 100 * 1024 {
                failures.push(format!("{format} -j{threads}: {} MiB", kib / 1024));
            }
        }
    }
    assert!(failures.is_empty(), "over 100 MiB: {failures:?}");
}

#[test]
fn sarif_streams_the_same_log_as_a_document() {
    // Results written as found must still make one valid log, with the results
    // in input order, for 0, 1 and many results.
    let dir = tempfile::tempdir().unwrap();
    for n in [0usize, 1, 3] {
        let path = dir.path().join(format!("g{n}.pgn"));
        let mut text = String::from("[Event \"ok\"]\n\n*\n\n");
        for i in 0..n {
            text.push_str(&format!("[SetUp \"{}\"]\n\n*\n\n", i + 2));
        }
        std::fs::write(&path, text).unwrap();
        let out = bin()
            .args(["check", "--format", "sarif"])
            .arg(&path)
            .output()
            .unwrap();
        let log: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON document");
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 15);
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), n);
        for (i, r) in results.iter().enumerate() {
            let text = r["message"]["text"].as_str().unwrap();
            assert!(text.contains(&format!("\"{}\"", i + 2)), "{text}");
        }
    }
}

/// A zip whose only member has this name and data that cannot be inflated.
fn corrupt_zip(path: &Path, member: &str) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    zip.start_file(
        member,
        zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated),
    )
    .unwrap();
    zip.write_all(&b"[Event \"x\"]\n[SetUp \"1\"]\n\n*\n\n".repeat(200))
        .unwrap();
    zip.finish().unwrap();
    let mut bytes = std::fs::read(path).unwrap();
    // The compressed data follows the 30-byte local header and the name.
    let data = 30 + member.len();
    for b in &mut bytes[data + 4..data + 24] {
        *b ^= 0x5a;
    }
    std::fs::write(path, bytes).unwrap();
}

/// Every line of `stream` that starts a workflow command is one of pgnfen's
/// annotations (`::error file=` / `::warning file=` / `::warning::`), and no other line holds
/// the runner's older form of a command, `##[NAME]`, which it finds anywhere
/// in a line (only when the line is no command of the newer form).
fn only_own_commands(stream: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(stream);
    // The runner splits on LF; a lone CR must not hide a second line either.
    for line in text.split(['\n', '\r']) {
        let t = line.trim_start();
        // (`::warning::MESSAGE`: a warning about a whole input, as "no PGN tag line found".)
        let own = t.starts_with("::error file=")
            || t.starts_with("::warning file=")
            || t.starts_with("::warning::");
        if t.starts_with("::") && !own {
            return Err(format!("a workflow command of its own: {line:?}"));
        }
        if !t.starts_with("::") && line.contains("##[") {
            return Err(format!("a workflow command of the older form: {line:?}"));
        }
    }
    Ok(())
}

/// A file name and a zip member name that hold the runner's older form of
/// a command, `##[error]`, quoted in warnings and errors on standard error
/// (where it would act anywhere in the line) and in the reports.
#[test]
fn names_cannot_start_commands_of_the_older_form_either() {
    let dir = tempfile::tempdir().unwrap();
    let bin_file = dir.path().join("##[error]bin.pgn");
    std::fs::write(&bin_file, "no tag line here\n").unwrap();
    let bad_fen = dir.path().join("##[add-mask]fen.pgn");
    std::fs::write(&bad_fen, "[SetUp \"2\"]\n\n*\n").unwrap();
    let zip = dir.path().join("book.zip");
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&zip).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        z.start_file("##[stop-commands]tok", options).unwrap();
        z.write_all(b"not a game\n").unwrap();
        z.finish().unwrap();
    }
    let missing = dir.path().join("nosuch##[error]x.pgn");
    for format in ["github", "text", "csv", "json", "sarif"] {
        for input in [&bin_file, &bad_fen, &zip, &missing] {
            let out = bin()
                .args(["check", "--warnings", "--format", format])
                .arg(input)
                .output()
                .unwrap();
            only_own_commands(&out.stdout).unwrap_or_else(|e| panic!("{format}: {e}"));
            only_own_commands(&out.stderr).unwrap_or_else(|e| panic!("{format}: {e}"));
        }
    }
    let out = bin().args(["stats", "-q"]).arg(&missing).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nosuch#\\u{23}[error]x.pgn"), "{stderr}");
}

/// Arguments quoted back in usage errors, clap's and pgnfen's own: a file
/// a glob names that begins with `-` (`*.pgn` in a repository), a flag's
/// value, a tag expression, a template, a subcommand.
#[test]
fn arguments_quoted_in_usage_errors_hold_no_command_of_the_older_form() {
    let dir = tempfile::tempdir().unwrap();
    let dashed = dir.path().join("--x##[error]Injected.pgn");
    std::fs::write(&dashed, "").unwrap();
    let dashed_name = dashed.file_name().unwrap();
    let runs: [&[&std::ffi::OsStr]; 8] = [
        &[
            "check".as_ref(),
            "--format".as_ref(),
            "github".as_ref(),
            dashed_name,
        ],
        &[
            "check".as_ref(),
            "--moves".as_ref(),
            "##[warning]m".as_ref(),
            "x".as_ref(),
        ],
        &[
            "-j".as_ref(),
            "##[error]".as_ref(),
            "check".as_ref(),
            "x".as_ref(),
        ],
        &["##[error]sub".as_ref()],
        &["explain".as_ref(), "##[error]x".as_ref()],
        &[
            "split".as_ref(),
            "-o".as_ref(),
            "##[error]{x}".as_ref(),
            "x".as_ref(),
        ],
        &[
            "export".as_ref(),
            "--tags".as_ref(),
            "##[error]".as_ref(),
            "x".as_ref(),
        ],
        &[
            "filter".as_ref(),
            "--tag".as_ref(),
            "White~##[error](".as_ref(),
            "x".as_ref(),
        ],
    ];
    for args in runs {
        let out = bin().current_dir(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("#\\u{23}["), "{args:?}: {stderr}");
        only_own_commands(&out.stderr).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    }
}

#[test]
fn github_format_names_cannot_start_workflow_commands() {
    let dir = tempfile::tempdir().unwrap();
    let injected = "\n::error file=README.md,line=1::Injected\n::stop-commands::tok";
    let zip = dir.path().join("evil.zip");
    corrupt_zip(&zip, &format!("x.pgn{injected}"));
    let out = bin()
        .args(["check", "--format", "github"])
        .arg(&zip)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a corrupt member is an error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("x.pgn\\n::error file=README.md"),
        "{stderr}"
    );
    only_own_commands(&out.stderr).unwrap();
    only_own_commands(&out.stdout).unwrap();

    // A file name, in the annotations themselves and in text output.
    let pgn = dir.path().join(format!("a.pgn{injected}\r::warning::x"));
    std::fs::write(&pgn, format!("[SetUp \"{EVIL_VALUE}\"]\n\n*\n")).unwrap();
    for format in ["github", "text", "csv", "json"] {
        let out = bin()
            .args(["check", "--warnings", "--format", format])
            .arg(&pgn)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        only_own_commands(&out.stdout).unwrap_or_else(|e| panic!("{format}: {e}"));
        only_own_commands(&out.stderr).unwrap_or_else(|e| panic!("{format}: {e}"));
    }
    let out = bin()
        .args(["check", "--format", "github"])
        .arg(&pgn)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("a.pgn\\n%3A%3Aerror file=README.md%2Cline=1%3A%3AInjected"),
        "{stdout}"
    );
}

/// A relative file name that itself begins with `::` starts no line of any
/// report: `check` in every format, `convert`'s and `fen`'s reports.
#[test]
fn a_file_name_that_starts_with_colons_starts_no_line() {
    let dir = tempfile::tempdir().unwrap();
    // The runner skips the blanks at the start of a line: ` ::error` too.
    for pgn in [
        "::error title=x::p.pgn",
        " ::error title=x::p.pgn",
        "\u{a0}::error title=x::p.pgn",
    ] {
        starts_no_line(dir.path(), pgn);
    }
}

fn starts_no_line(dir: &Path, pgn: &str) {
    let bad_fen = "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    std::fs::write(
        dir.join(pgn),
        format!("[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"{bad_fen}\"]\n\n*\n"),
    )
    .unwrap();
    let epd = format!("{}.epd", &pgn[..pgn.len() - 4]);
    let epd = epd.as_str();
    std::fs::write(dir.join(epd), format!("{bad_fen}\n")).unwrap();
    let runs: [&[&str]; 7] = [
        &["check", "--format", "text", "--", pgn],
        &["check", "--format", "github", "--", pgn],
        &["check", "--format", "csv", "--", pgn],
        &["check", "--format", "json", "--", pgn],
        &["convert", "--to", "xfen", "--", pgn],
        &["fen", "--", epd],
        &["fen", "--to", "shredder", "--", epd],
    ];
    for args in runs {
        let out = bin().current_dir(dir).args(args).output().unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("p.pgn")
                || String::from_utf8_lossy(&out.stderr).contains("::"),
            "{args:?}: the problem is reported"
        );
        only_own_commands(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        only_own_commands(&out.stderr).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    }
}

/// A usage error found while reading the arguments quotes them: a name that
/// looks like an option, a value with a newline. No line of its report may
/// begin a workflow command (clap's report, escaped).
#[test]
fn usage_errors_quote_arguments_without_their_newlines() {
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().join("a.pgn");
    std::fs::write(&name, "[Event \"x\"]\n\n*\n").unwrap();
    let injected = "\n::error::Injected";
    let cases: [Vec<String>; 4] = [
        vec![format!("--x{injected}.pgn")],
        vec!["--moves".into(), format!("x{injected}")],
        vec![format!("--moves=x{injected}")],
        vec!["-j".into(), format!("2{injected}")],
    ];
    for extra in cases {
        let out = bin()
            .args(["check", "--format", "github"])
            .args(&extra)
            .arg(&name)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        only_own_commands(&out.stderr).unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("\\n::error::Injected"),
            "{extra:?}: {stderr}"
        );
    }
}

/// The message of each format's output for the evil value, and the output.
fn messages(out: &[u8], format: &str) -> String {
    let text = String::from_utf8_lossy(out).replace("\r\n", "\n");
    match format {
        "json" => {
            let line = text.lines().find(|l| l.starts_with('{')).unwrap();
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["message"].as_str().unwrap().to_string()
        }
        "csv" => {
            let mut r = csv::Reader::from_reader(text.as_bytes());
            let rec = r.records().next().unwrap().unwrap();
            rec[7].to_string()
        }
        "github" => {
            let line = text.lines().find(|l| l.starts_with("::error")).unwrap();
            line.splitn(3, "::").nth(2).unwrap().to_string()
        }
        _ => {
            let line = text.lines().find(|l| l.contains("error[")).unwrap();
            line.split_once("]: ").unwrap().1.to_string()
        }
    }
}

/// `pgnfen ARGS` on a pseudo-terminal (`script`), its output as the terminal
/// got it.
fn on_terminal(args: &[&str]) -> Vec<u8> {
    let mut command = format!("{} --no-progress", env!("CARGO_BIN_EXE_pgnfen"));
    for a in args {
        command.push_str(&format!(" '{}'", a.replace('\'', "'\\''")));
    }
    let out = Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    out.stdout
}

#[test]
fn escapes_are_shown_the_same_in_every_format_terminal_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("esc.pgn");
    std::fs::write(
        &pgn,
        format!("[Event \"x\"]\n[SetUp \"{EVIL_VALUE}\"]\n\n*\n"),
    )
    .unwrap();
    let file = pgn.to_str().unwrap();
    let expected = format!("SetUp value \"{EVIL_SHOWN}\" is not allowed; expected \"0\" or \"1\"");
    for format in ["text", "json", "csv", "github", "sarif"] {
        let args = ["check", "-q", "--format", format, file];
        let piped = bin().args(args).output().unwrap().stdout;
        let tty = on_terminal(&args);
        for (how, out) in [("piped", &piped), ("terminal", &tty)] {
            let text = String::from_utf8_lossy(out);
            // No OSC or BEL from the value; a terminal gets colour codes from
            // the text renderer only.
            assert!(!text.contains("\u{1b}]"), "{format} {how}: {text:?}");
            assert!(!text.contains('\u{7}'), "{format} {how}: {text:?}");
            if format != "text" {
                assert!(!text.contains('\u{1b}'), "{format} {how}: {text:?}");
            }
            if format == "sarif" {
                let log: serde_json::Value =
                    serde_json::from_str(&text.replace("\r\n", "\n")).unwrap();
                // SARIF's message also carries the problem's advice.
                let m = log["runs"][0]["results"][0]["message"]["text"]
                    .as_str()
                    .unwrap();
                let m = m.split("; help: ").next().unwrap();
                assert_eq!(m, expected, "{how}");
            } else {
                // Colour codes aside, the same message.
                let plain = strip_sgr(out);
                assert_eq!(messages(&plain, format), expected, "{format} {how}");
            }
        }
    }
}

/// `bytes` without SGR colour sequences (`ESC [ ... m`), which the text
/// renderer writes itself on a terminal.
fn strip_sgr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if bytes.get(j) == Some(&b'm') {
                i = j + 1;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

#[test]
fn a_file_name_with_escapes_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // An ESC sequence, and a right-to-left override, which would show the
    // name reversed after it (`evil.pgn`, as in "Trojan Source"): each is
    // shown escaped and never as itself.
    for (name, shown, raw) in [
        ("a\u{1b}[2Kb.pgn", "a\\u{1b}[2Kb.pgn", '\u{1b}'),
        (
            "uni\u{202e}nfp.live.pgn",
            "uni\\u{202e}nfp.live.pgn",
            '\u{202e}',
        ),
    ] {
        let pgn = dir.path().join(name);
        std::fs::write(&pgn, "[SetUp \"1\"]\n\n*\n").unwrap();
        for format in ["text", "json", "csv", "github"] {
            let out = bin()
                .args(["check", "-q", "--format", format])
                .arg(&pgn)
                .output()
                .unwrap();
            let mut stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            if format == "json" {
                let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
                stdout = v["file"].as_str().unwrap().to_string();
            }
            assert!(stdout.contains(shown), "{format}: {stdout:?}");
            assert!(!stdout.contains(raw), "{format}: {stdout:?}");
        }
    }
}

#[test]
fn csv_cells_that_start_a_formula_are_neutralised() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("f.pgn");
    std::fs::write(
        &pgn,
        "[Event \"=1+2\"]\n[Site \"+A1\"]\n[Round \"-3\"]\n[White \"@SUM(A1)\"]\n\
         [Black \"\tx\"]\n[Opening \"a\u{0}b\u{1b}c\"]\n[Result \"1-0\"]\n\n1-0\n",
    )
    .unwrap();
    let export = |raw: bool| {
        let mut c = bin();
        c.args([
            "export",
            "-q",
            "--format",
            "csv",
            "--tags",
            "Event,Site,Round,White,Black,Opening,Result",
        ]);
        if raw {
            c.arg("--csv-raw");
        }
        let out = c.arg(&pgn).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut r = csv::Reader::from_reader(out.stdout.as_slice());
        let header = r.headers().unwrap().clone();
        let rec = r.records().next().unwrap().unwrap();
        let cell = |name: &str| rec[header.iter().position(|h| h == name).unwrap()].to_string();
        [
            "Event", "Site", "Round", "White", "Black", "Opening", "Result",
        ]
        .map(cell)
    };
    assert_eq!(
        export(false),
        [
            "'=1+2",
            "'+A1",
            "'-3",
            "'@SUM(A1)",
            "\\tx",
            "a\\0b\\u{1b}c",
            "1-0"
        ]
    );
    assert_eq!(
        export(true),
        [
            "=1+2",
            "+A1",
            "-3",
            "@SUM(A1)",
            "\tx",
            "a\u{0}b\u{1b}c",
            "1-0"
        ]
    );

    // check --format csv: a file name that starts a formula.
    let f = dir.path().join("sub");
    std::fs::create_dir(&f).unwrap();
    std::fs::write(f.join("=cmd.pgn"), "[SetUp \"1\"]\n\n*\n").unwrap();
    let check = |raw: bool| {
        let mut c = bin();
        c.current_dir(&f).args(["check", "-q", "--format", "csv"]);
        if raw {
            c.arg("--csv-raw");
        }
        let out = c.arg("=cmd.pgn").output().unwrap();
        let mut r = csv::Reader::from_reader(out.stdout.as_slice());
        r.records().next().unwrap().unwrap()[0].to_string()
    };
    assert_eq!(check(false), "'=cmd.pgn");
    assert_eq!(check(true), "=cmd.pgn");
}

#[test]
fn a_fault_longer_than_the_snippet_of_a_long_line_ends_where_it_ends() {
    // A SetUp value of 4,100 characters: the line is over 4 KiB, so the text
    // format shows a window of it, but the machine formats' end column is
    // that of the value's end, in every format.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.pgn");
    let value = "y".repeat(4100);
    std::fs::write(&path, format!("[Event \"x\"]\n[SetUp \"{value}\"]\n\n*\n")).unwrap();
    let run = |format: &str| {
        let out = bin()
            .args(["check", "--format", format])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        String::from_utf8(out.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(run("json").trim()).unwrap();
    assert_eq!(
        (json["column"].as_u64(), json["end_column"].as_u64()),
        (Some(9), Some(4109))
    );
    assert!(run("sarif").contains("\"endColumn\": 4109"));
    assert!(run("csv").contains(",4109,"));
    // A value on a short line: as before.
    std::fs::write(&path, format!("[SetUp \"{}\"]\n\n*\n", "y".repeat(3000))).unwrap();
    let json: serde_json::Value = serde_json::from_str(run("json").trim()).unwrap();
    assert_eq!(json["end_column"].as_u64(), Some(3009));
}

#[test]
fn a_sarif_uri_of_a_zip_member_is_made_of_its_own_name() {
    // The member's name holds a line feed: shown escaped (`\n`) everywhere,
    // but the URI is made of the name's own bytes, as a file's is.
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("book.zip");
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&zip).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        z.start_file("x.pgn\n::error::y", options).unwrap();
        z.write_all(b"[SetUp \"2\"]\n\n*\n").unwrap();
        z.finish().unwrap();
    }
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "--format", "sarif", "book.zip"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "book.zip%3Ax.pgn%0A%3A%3Aerror%3A%3Ay"
    );
    // Standard input is named as in every other format.
    let out = common::run_stdin(&["check", "--format", "sarif"], b"[SetUp \"2\"]\n\n*\n");
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "%3Cstdin%3E");
}
