//! `pgnfen fen` on books as they are published: zip archives of several
//! members (each named and counted on its own), the JSON objects' `file` and
//! `line`, and EPD books whose last operation lacks its `;`.

mod common;

use std::io::Write;
use std::path::Path;

use common::{run, run_stdin};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn objects(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Two members: a clean book of three lines, then one whose first record is
/// broken at column 72 (the opcode after the four fields starts with a digit).
const GOOD: &str = "# openings\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"a.1\";\n\
rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - id \"a.2\";\n";
const BAD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"b.12\"; 9x;\n\
4k3/8/8/8/8/8/8/R3K2R w KQ - id \"b.2\";\n";

fn write_zip(path: &Path, members: &[(&str, &str)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, text) in members {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn a_fault_in_a_zip_member_is_named_by_member_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.zip");
    write_zip(&book, &[("good.epd", GOOD), ("bad.epd", BAD)]);
    let name = s(&book);

    let out = run(&["fen", "--to", "shredder", name]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    // Line 1 of the member bad.epd, not line 4 of the archive's text.
    assert!(
        stderr.contains(&format!(
            "{name}:bad.epd:1:72: error[fen-syntax]: record left unchanged:"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains(&format!("{name}:4:")), "{stderr}");
    assert!(!stderr.contains("good.epd:"), "{stderr}");
    assert!(
        stderr.contains("pgnfen: 4 records, 3 written as shredder, 1 left unchanged"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("w Gga - id \"a.2\";\n"), "{stdout}");
    assert!(
        stdout.contains(BAD.lines().next().unwrap()),
        "left unchanged"
    );

    // The JSON objects say where each record was read.
    let out = run(&["fen", "--format", "json", name]);
    assert_eq!(out.status.code(), Some(1));
    let where_: Vec<(String, u64, bool)> = objects(&out.stdout)
        .iter()
        .map(|o| {
            (
                o["file"].as_str().unwrap().to_string(),
                o["line"].as_u64().unwrap(),
                o["valid"].as_bool().unwrap(),
            )
        })
        .collect();
    let member = |m: &str| format!("{name}:{m}");
    assert_eq!(
        where_,
        [
            (member("good.epd"), 2, true),
            (member("good.epd"), 3, true),
            (member("bad.epd"), 1, false),
            (member("bad.epd"), 2, true),
        ]
    );
}

#[test]
fn json_objects_carry_file_and_line_first() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    std::fs::write(&book, GOOD).unwrap();
    let out = run(&[
        "fen",
        "--format",
        "json",
        "-r",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "-r",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        s(&book),
    ]);
    assert_eq!(out.status.code(), Some(1), "the second -r is invalid");
    let all = objects(&out.stdout);
    let got: Vec<(&str, u64)> = all
        .iter()
        .map(|o| (o["file"].as_str().unwrap(), o["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("<argument>", 1),
            ("<argument>", 2),
            (s(&book), 2),
            (s(&book), 3)
        ]
    );
    // `file` and `line` come first, then the record's own keys in their order.
    let keys: Vec<&str> = all[0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "file",
            "line",
            "input",
            "valid",
            "class",
            "board",
            "chess960_position",
            "fen",
            "xfen",
            "shredder",
            "problems",
            "operations"
        ]
    );
    let out = run_stdin(
        &["fen", "--format", "json"],
        b"\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\n",
    );
    let o = &objects(&out.stdout)[0];
    assert_eq!(
        (o["file"].as_str(), o["line"].as_u64()),
        (Some("<stdin>"), Some(2))
    );
}

/// A test suite written as python-chess's `pv.epd` and some tablebase suites
/// write it: the last operation of each line has no `;`.
const NO_LAST_SEMICOLON: &str = "rq2r1k1/5pp1/p7/4bNP1/1p2P2P/5Q2/PP4K1/5R1R w - - bm Nxg7; id \"s.1\"; ce 182; pv Nxg7 Kxg7 Qxf7+ Kh8; c0 8\n\
r3k2r/8/8/8/8/8/8/R3K2R w KQkq - wdl 2; dtz 1\n\
bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - id \"dfrc\"\r\n\
4k3/8/8/8/8/8/8/R3K2R w KQ - bm Ra8+; id \"s.4\";\n";

#[test]
fn an_epd_book_whose_last_operation_has_no_semicolon_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("pv.epd");
    std::fs::write(&book, NO_LAST_SEMICOLON).unwrap();

    let out = run(&["fen", "--to", "shredder", s(&book)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Converted, every operation byte for byte (no ';' added).
    let want = NO_LAST_SEMICOLON
        .replace("w KQkq - wdl", "w HAha - wdl")
        .replace("BBQNNRKR w KQkq", "BBQNNRKR w HFhf")
        .replace("w KQ - bm", "w HA - bm");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("4 records, 4 written as shredder, 0 left unchanged"),
        "{stderr}"
    );

    let out = run(&["fen", "--format", "json", s(&book)]);
    assert_eq!(out.status.code(), Some(0));
    let all = objects(&out.stdout);
    assert_eq!(all.len(), 4);
    for (i, o) in all.iter().enumerate().take(3) {
        assert_eq!(o["valid"], true, "{o}");
        assert_eq!(o["problems"].as_array().unwrap().len(), 1, "{o}");
        let p = &o["problems"][0];
        assert_eq!(p["code"], "noncanonical", "{o}");
        assert_eq!(p["severity"], "warning");
        let line = NO_LAST_SEMICOLON
            .lines()
            .nth(i)
            .unwrap()
            .trim_end_matches('\r');
        assert_eq!(p["column"], line.chars().count() + 1, "{o}");
        let ops = o["operations"].as_str().unwrap();
        assert!(line.ends_with(ops) && !ops.ends_with(';'), "{o}");
    }
    assert_eq!(all[0]["class"], "setup");
    assert_eq!(all[2]["class"], "chess960");
    assert_eq!(all[3]["problems"], serde_json::json!([]));
}

#[test]
fn inputs_without_a_final_line_end_are_not_glued_together() {
    let dir = tempfile::tempdir().unwrap();
    let a = "4k3/8/8/8/8/8/8/R3K2R w KQ - id \"a\";";
    let b = "r3k2r/8/8/8/8/8/8/4K3 b kq - id \"b\";\n";
    let book = dir.path().join("ab.zip");
    write_zip(&book, &[("a.epd", a), ("b.epd", b)]);
    let plain = dir.path().join("a.epd");
    std::fs::write(&plain, a).unwrap();
    let want = "4k3/8/8/8/8/8/8/R3K2R w HA - id \"a\";\nr3k2r/8/8/8/8/8/8/4K3 b ha - id \"b\";\n";
    for args in [vec![s(&book)], vec![s(&plain), "-"]] {
        let out = run_stdin(
            &[&["fen", "--to", "shredder"], args.as_slice()].concat(),
            b.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), want, "{args:?}");
    }
    // One book keeps its lack of a final line end.
    let out = run(&["fen", "--to", "shredder", s(&plain)]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        want.lines().next().unwrap()
    );
}
