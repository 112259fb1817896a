//! `pgnfen fen` on FEN and EPD books: files, compressed inputs, `-r`, `-o`,
//! conversion in place, broken lines, and the real books of the corpus.

mod common;

use std::io::Write;
use std::path::Path;

use common::{corpus, run, run_stdin};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small canonical X-FEN book: EPD and FEN records, blank and `#` lines, CRLF.
const XFEN_BOOK: &str = "# DFRC and standard openings\r\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"start\";\r\n\
\r\n\
rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - c0 \"with ; inside\"; hmvc 4; fmvn 11;\r\n\
bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\r\n\
  \r\n\
# 10x8\r\n\
rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - acd 20; bm Nc3;\r\n";

const SHREDDER_BOOK: &str = "# DFRC and standard openings\r\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - bm e4; id \"start\";\r\n\
\r\n\
rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - c0 \"with ; inside\"; hmvc 4; fmvn 11;\r\n\
bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\r\n\
  \r\n\
# 10x8\r\n\
rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w JAja - acd 20; bm Nc3;\r\n";

#[test]
fn book_round_trip_xfen_shredder_xfen_keeps_every_byte() {
    let out = run_stdin(&["fen", "--to", "shredder"], XFEN_BOOK.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), SHREDDER_BOOK);
    let out = run_stdin(&["fen", "--to", "xfen"], SHREDDER_BOOK.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), XFEN_BOOK);
    // Only the summary on standard error.
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pgnfen: 4 records, 4 written as xfen, 0 left unchanged (0 invalid, 0 not writable in xfen)\n"
    );
}

#[test]
fn convert_a_book_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    std::fs::write(&book, XFEN_BOOK).unwrap();
    let out = run(&["fen", "--to", "shredder", "-o", s(&book), s(&book)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&book).unwrap(), SHREDDER_BOOK);
    // Nothing but the book is left in the folder (no temporary file).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn text_and_json_without_to() {
    let out = run_stdin(&["fen"], XFEN_BOOK.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.split("\r\n").collect();
    assert_eq!(lines[0], "# DFRC and standard openings");
    assert!(lines[1].starts_with("standard\trnbqkbnr/"));
    assert_eq!(lines[2], "");
    assert!(lines[3].starts_with("chess960\trn2k1r1/"));
    assert!(lines[7].starts_with("crc\trnabqkbcnr/"));

    let out = run_stdin(&["fen", "--format", "json"], XFEN_BOOK.as_bytes());
    let objects: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), 4, "blank and # lines are no records");
    assert_eq!(objects[0]["operations"], "bm e4; id \"start\";");
    assert_eq!(
        objects[0]["problems"],
        serde_json::json!([]),
        "no missing-clocks for an EPD"
    );
    assert_eq!(
        objects[1]["shredder"],
        "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - c0 \"with ; inside\"; hmvc 4; fmvn 11;"
    );
    assert_eq!(objects[1]["fen"], serde_json::Value::Null);
    assert_eq!(objects[2]["operations"], serde_json::Value::Null);
    assert_eq!(objects[3]["board"], "10x8");

    // --to with json is accepted and changes nothing: the object holds all three.
    let with_to = run_stdin(
        &["fen", "--format", "json", "--to", "fen"],
        XFEN_BOOK.as_bytes(),
    );
    let without = run_stdin(&["fen", "--format", "json"], XFEN_BOOK.as_bytes());
    assert_eq!(with_to.status.code(), Some(0));
    assert_eq!(with_to.stdout, without.stdout);
    // ... and so its summary claims no record written in a dialect.
    let summary = String::from_utf8(with_to.stderr).unwrap();
    assert_eq!(summary, String::from_utf8(without.stderr).unwrap());
    assert!(!summary.contains("written as"), "{summary}");
}

#[test]
fn a_broken_line_is_reported_and_the_others_converted() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("suite.epd");
    let input = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"BK.01\";\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"BK.02;\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1x;\n\
                 4k3/8/8/8/8/8/8/R3K2R w KQ - id \"ok\";\n";
    std::fs::write(&book, input).unwrap();
    let out = run(&["fen", "--to", "shredder", s(&book)]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let want_first = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - bm e4; id \"BK.01\";";
    assert_eq!(lines[0], want_first);
    assert_eq!(lines[1], input.lines().nth(1).unwrap(), "left unchanged");
    // A last operation without its ';' is a warning: the record is converted,
    // its operations kept as written.
    assert_eq!(
        lines[2],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - bm e4"
    );
    assert_eq!(lines[3], input.lines().nth(3).unwrap(), "left unchanged");
    assert_eq!(lines[4], "4k3/8/8/8/8/8/8/R3K2R w HA - id \"ok\";");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let name = s(&book);
    assert!(
        stderr.contains(&format!("{name}:2:57: error[fen-syntax]: record left unchanged: unterminated string; expected a closing '\"'")),
        "{stderr}"
    );
    assert!(!stderr.contains(&format!("{name}:3:")), "{stderr}");
    assert!(
        stderr.contains(&format!("{name}:4:54: error[fen-syntax]")),
        "{stderr}"
    );
    assert!(
        stderr.contains("5 records, 3 written as shredder, 2 left unchanged (2 invalid,"),
        "{stderr}"
    );
}

#[test]
fn unwritable_records_are_left_unchanged_but_valid() {
    let input = "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - bm Nd3;\n";
    let out = run_stdin(&["fen", "--to", "fen"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "valid, only not writable");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), input);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("<stdin>:1:56: error[lossy-castling]"),
        "{stderr}"
    );
    assert!(stderr.contains("1 not writable in fen"), "{stderr}");
}

#[test]
fn records_and_files_together() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.fen");
    std::fs::write(&book, "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\n").unwrap();
    let out_path = dir.path().join("out.fen");
    let out = run(&[
        "fen",
        "--to",
        "shredder",
        "-o",
        s(&out_path),
        s(&book),
        "-r",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&out_path).unwrap(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1\n4k3/8/8/8/8/8/8/R3K2R w HA - 0 1\n",
        "-r records come first"
    );
    // -r alone does not wait for standard input.
    let out = run_stdin(
        &["fen", "-r", "8/8/8/8/8/8/8/8 w - - 0 1"],
        b"4k3/8/8/8/8/8/8/4K3 w - - 0 1\n",
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "malformed\t8/8/8/8/8/8/8/8 w - - 0 1\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("<argument>:1:1: error[illegal-position]")
    );
    // A missing file: exit 2, naming it, and no output file.
    let missing = dir.path().join("none.epd");
    let out = run(&["fen", "-o", s(&dir.path().join("x.epd")), s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains(s(&missing)));
    assert!(!dir.path().join("x.epd").exists());
}

#[test]
fn compressed_books_give_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("book.epd");
    std::fs::write(&plain, XFEN_BOOK).unwrap();
    let gz = dir.path().join("book.epd.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(XFEN_BOOK.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = dir.path().join("book.epd.zst");
    std::fs::write(&zst, zstd::encode_all(XFEN_BOOK.as_bytes(), 3).unwrap()).unwrap();
    for args in [vec!["--to", "shredder"], vec!["--format", "json"], vec![]] {
        let want = run(&[&["fen"], args.as_slice(), &[s(&plain)]].concat());
        assert_eq!(want.status.code(), Some(0));
        for p in [&gz, &zst] {
            let got = run(&[&["fen"], args.as_slice(), &[s(p)]].concat());
            assert_eq!(got.status.code(), Some(0));
            assert_eq!(
                without_file(&got.stdout, s(p)),
                without_file(&want.stdout, s(&plain)),
                "{}",
                p.display()
            );
        }
    }
}

/// A zip archive of `members`, stored (no compression), written by hand so the
/// test needs no zip writer.
fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in members {
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let offset = out.len() as u32;
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes()); // version needed
            v.extend_from_slice(&0u16.to_le_bytes()); // flags
            v.extend_from_slice(&0u16.to_le_bytes()); // stored
            v.extend_from_slice(&0u32.to_le_bytes()); // time, date
            v.extend_from_slice(&crc.sum().to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        common(&mut central);
        central.extend_from_slice(&[0; 6]); // comment len, disk, internal attrs
        central.extend_from_slice(&0u32.to_le_bytes()); // external attrs
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[test]
fn zipped_book_gives_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("book.epd");
    std::fs::write(&plain, XFEN_BOOK).unwrap();
    let zip = dir.path().join("book.epd.zip");
    std::fs::write(&zip, stored_zip(&[("book.epd", XFEN_BOOK.as_bytes())])).unwrap();
    for args in [vec!["--to", "shredder"], vec!["--format", "json"]] {
        let want = run(&[&["fen"], args.as_slice(), &[s(&plain)]].concat());
        let got = run(&[&["fen"], args.as_slice(), &[s(&zip)]].concat());
        assert_eq!(
            got.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert_eq!(
            without_file(&got.stdout, &format!("{}:book.epd", s(&zip))),
            without_file(&want.stdout, s(&plain))
        );
    }
}

/// The output with each JSON object's `file` (which names the input read)
/// checked against `file` and taken out, so that outputs of the same book
/// read from different files compare equal. Text output is returned as is.
fn without_file(stdout: &[u8], file: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(stdout);
    if !text.starts_with('{') {
        return stdout.to_vec();
    }
    let mut out = Vec::new();
    for line in text.lines() {
        let mut o: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(o["file"], file, "{line}");
        o.as_object_mut().unwrap().remove("file");
        out.extend_from_slice(o.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

#[test]
fn a_line_longer_than_a_record_can_be_is_passed_through() {
    let long = format!("4k3/8/8/8/8/8/8/4K3 w - - c0 \"{}\";", "x".repeat(3 << 20));
    let input = format!(
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\r\n{long}\r\n4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\r\n"
    );
    let out = run_stdin(&["fen", "--to", "shredder"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let want = input.replace(" KQ ", " HA ");
    assert!(
        String::from_utf8(out.stdout).unwrap() == want,
        "the long line is copied as it was"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("<stdin>:2:1: error[fen-syntax]: the line is longer than"),
        "{stderr}"
    );
    let out = run_stdin(&["fen", "--format", "json"], input.as_bytes());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 3);
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn the_real_shredder_book_round_trips() {
    let book = corpus("real/dfrc-openings-shredder-fen-cut.epd");
    let original = std::fs::read(&book).unwrap();
    let records = original
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let json = run(&["fen", "--format", "json", s(&book)]);
    assert_eq!(json.status.code(), Some(0), "every record is read");
    assert_eq!(
        String::from_utf8(json.stdout).unwrap().lines().count(),
        records
    );
    let xfen = run(&["fen", "--to", "xfen", s(&book)]);
    assert_eq!(xfen.status.code(), Some(0));
    // Only the summary: nothing invalid, nothing left unchanged.
    let summary = String::from_utf8_lossy(&xfen.stderr);
    assert_eq!(summary.lines().count(), 1, "{summary}");
    assert!(summary.contains(", 0 left unchanged"), "{summary}");
    let back = run_stdin(&["fen", "--to", "shredder"], &xfen.stdout);
    assert_eq!(back.status.code(), Some(0));
    assert!(
        back.stdout == original,
        "Shredder -> X-FEN -> Shredder gives the book back"
    );
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn the_other_real_books_are_read_and_round_trip() {
    for name in [
        "real/frc-openings-xfen.epd",
        "real/frc-3moves-xfen-crlf-cut.epd",
    ] {
        let book = corpus(name);
        let original = std::fs::read(&book).unwrap();
        let shredder = run(&["fen", "--to", "shredder", s(&book)]);
        assert_eq!(shredder.status.code(), Some(0), "{name}");
        let back = run_stdin(&["fen", "--to", "xfen"], &shredder.stdout);
        assert_eq!(back.status.code(), Some(0), "{name}");
        // X-FEN -> Shredder -> X-FEN gives back every canonical line byte for
        // byte; these books write KQkq on every start array, which is canonical
        // X-FEN exactly where the outermost rooks hold the rights.
        let again = run_stdin(&["fen", "--to", "shredder"], &back.stdout);
        assert!(
            again.stdout == shredder.stdout,
            "{name}: stable after one round"
        );
        let lines = |b: &[u8]| b.split(|&c| c == b'\n').count();
        assert_eq!(lines(&back.stdout), lines(&original), "{name}");
        if name.contains("crlf") {
            assert!(back.stdout.windows(2).filter(|w| w == b"\r\n").count() > 0);
        }
    }
}

#[test]
fn repair_inserts_the_variant_tag_of_chess960_games() {
    let pgn = "[Event \"a\"]\r\n[SetUp \"1\"]\r\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\r\n\r\n1. e4 *\r\n\r\n\
               [Event \"b\"]\n[FEN \"rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11\"]\n\n*\n\n\
               [Event \"c\"]\n[Variant \"chess960\"]\n[SetUp \"1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n*\n\n\
               [Event \"d\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n\n*\n";
    let out = run_stdin(
        &["-q", "convert", "--to", "xfen", "--repair"],
        pgn.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    let want = pgn
        .replacen(
            "[SetUp \"1\"]\r\n",
            "[Variant \"Chess960\"]\r\n[SetUp \"1\"]\r\n",
            1,
        )
        .replacen(
            "[Event \"b\"]\n",
            "[Event \"b\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n",
            1,
        );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    // Without --repair nothing is inserted.
    let out = run_stdin(&["-q", "convert", "--to", "xfen"], pgn.as_bytes());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), pgn);
}

#[test]
fn repair_puts_the_variant_tag_before_setup_only_when_setup_is_just_before_fen() {
    let fen = "[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]";
    let variant = "[Variant \"Chess960\"]";
    // (header as written, header as repaired); `F` is the FEN tag, `V` the
    // Variant tag.
    let cases = [
        // Another tag between SetUp and FEN: the tag goes before FEN.
        (
            "[SetUp \"1\"]\n[White \"x\"]\nF\n",
            "[SetUp \"1\"]\n[White \"x\"]\nV\nF\n",
        ),
        (
            "[SetUp \"1\"]\n[White \"x\"] F\n",
            "[SetUp \"1\"]\n[White \"x\"] V F\n",
        ),
        (
            "[SetUp \"1\"] [White \"x\"] F\n",
            "[SetUp \"1\"] [White \"x\"] V F\n",
        ),
        // SetUp just before FEN: before SetUp, ended as the FEN line is.
        ("[SetUp \"1\"]\r\nF\n", "V\n[SetUp \"1\"]\r\nF\n"),
        ("[SetUp \"1\"] F\r\n", "V\r\n[SetUp \"1\"] F\r\n"),
        (
            "[Event \"a\"] [SetUp \"1\"] F\n",
            "[Event \"a\"] V [SetUp \"1\"] F\n",
        ),
    ];
    for (written, repaired) in cases {
        let game = |header: &str| {
            format!(
                "[Event \"x\"]\n{}\n*\n",
                header.replace('F', fen).replace('V', variant)
            )
        };
        let out = run_stdin(
            &["-q", "convert", "--to", "xfen", "--repair"],
            game(written).as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            game(repaired),
            "{written:?}"
        );
    }
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn repair_leaves_the_real_chess960_file_without_warnings() {
    let pgn = corpus("real/chess960-startpos-shredder-fen-no-setup.pgn");
    let before = run(&["check", "--warnings", "--format", "json", s(&pgn)]);
    assert!(String::from_utf8_lossy(&before.stdout).contains("missing-variant"));
    let dir = tempfile::tempdir().unwrap();
    let repaired = dir.path().join("r.pgn");
    let out = run(&[
        "-q",
        "convert",
        "--to",
        "shredder",
        "--repair",
        "-o",
        s(&repaired),
        s(&pgn),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let after = run(&["check", "--warnings", "--format", "json", s(&repaired)]);
    assert_eq!(after.status.code(), Some(0));
    assert!(
        after.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&after.stdout)
    );
    let text = std::fs::read_to_string(&repaired).unwrap();
    assert_eq!(
        text.matches("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN ")
            .count(),
        1001
    );
}

#[test]
fn with_to_every_byte_that_is_no_valid_record_passes_through() {
    // Binary junk with line ends of every kind, long runs without one, and a
    // final line without a line end: nothing is a valid record, so `--to`
    // gives the input back byte for byte, whatever the block boundaries.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let junk: Vec<u8> = (0..3_500_000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 100_000 < 50_000 {
                (x >> 24) as u8
            } else {
                b'k'
            }
        })
        .collect();
    let out = run_stdin(&["-q", "fen", "--to", "xfen"], &junk);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout == junk, "the input comes back unchanged");
    let out = run_stdin(&["-q", "fen", "--format", "json"], &junk);
    assert_eq!(out.status.code(), Some(1));
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["valid"], false);
    }
}

/// `-q` hides the summary line, not the reports that say why a record is
/// invalid or a FEN tag was left as it was: a run that exits 1 says why.
#[test]
fn quiet_hides_the_summary_but_not_the_reasons() {
    let out = run(&["-q", "fen", "-r", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("<argument>:1:31: error[fen-syntax]: found 7 fields"),
        "{err}"
    );
    assert!(!err.contains("record"), "no summary under -q: {err}");

    let lossy = b"[SetUp \"1\"]\n[FEN \"rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11\"]\n\n*\n";
    let out = run_stdin(&["-q", "convert", "--to", "fen"], lossy);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, lossy);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("<stdin>:2:62: error[lossy-castling]: FEN left unchanged"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "no summary under -q: {err}");
}

/// A book saved with a UTF-8 byte order mark (as Notepad saves it): the
/// mark is no part of the first record, a rewritten book keeps it, and
/// columns count from after it. Also when a pipe hands over the mark
/// byte by byte.
#[test]
fn a_byte_order_mark_before_the_first_record_is_kept_apart() {
    let book = b"\xEF\xBB\xBFrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 x\n";
    let out = run_stdin(&["fen"], book);
    assert_eq!(out.status.code(), Some(1), "the second record is invalid");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("standard\trnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"),
        "{text}"
    );
    let out = run_stdin(&["fen", "--to", "shredder"], book);
    assert!(
        out.stdout
            .starts_with(b"\xEF\xBB\xBFrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1\n"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let single = b"\xEF\xBB\xBF4k3/8/8/8/8/8/8/4K3 w - - 0 1 x\n";
    let err = String::from_utf8(run_stdin(&["fen"], single).stderr).unwrap();
    assert!(err.starts_with("<stdin>:1:31: error[fen-syntax]"), "{err}");
    let out = run_stdin(&["fen", "--format", "json"], &book[..]);
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["valid"], true);

    // Byte by byte through a pipe.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pgnfen"))
        .args(["fen"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for b in &book[..4] {
        stdin.write_all(&[*b]).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    stdin.write_all(&book[4..]).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stdout.starts_with(b"standard\trnbqkbnr/"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `--ep` writes the en passant square of all three dialects in the JSON
/// objects: each string is the line `--to DIALECT --ep POLICY` writes.
#[test]
fn json_strings_follow_ep_as_to_does() {
    // A pawn beside the pushed one (pseudo-legal, and legal), none (only
    // as written), and a capture that would expose the king (not legal).
    let book = "rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 1\n\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n\
8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1\n\
rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 bm dxe3;\n";
    for ep in [None, Some("as-is"), Some("pseudo-legal"), Some("legal")] {
        let policy: Vec<&str> = ep.map(|p| vec!["--ep", p]).unwrap_or_default();
        let mut args = vec!["fen", "--format", "json"];
        args.extend(&policy);
        let out = run_stdin(&args, book.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{ep:?}");
        let objects: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (key, dialect) in [("fen", "fen"), ("xfen", "xfen"), ("shredder", "shredder")] {
            let mut args = vec!["fen", "--to", dialect];
            args.extend(&policy);
            let out = run_stdin(&args, book.as_bytes());
            let text = String::from_utf8(out.stdout).unwrap();
            let strings: Vec<&str> = objects.iter().map(|o| o[key].as_str().unwrap()).collect();
            assert_eq!(strings, text.lines().collect::<Vec<_>>(), "{key} {ep:?}");
        }
    }
    // The policies differ on these records (else the test proves nothing).
    let xfen = |ep: &str| {
        let out = run_stdin(&["fen", "--format", "json", "--ep", ep], book.as_bytes());
        String::from_utf8(out.stdout).unwrap()
    };
    assert_ne!(xfen("as-is"), xfen("pseudo-legal"));
    assert_ne!(xfen("pseudo-legal"), xfen("legal"));
}
