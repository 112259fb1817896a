//! Golden tests of `pgnfen check --warnings` (and of `convert --to fen` for
//! `lossy-castling`): one small game per problem code (README, "Problem codes"), and cases that
//! pin LINE and COLUMN (CRLF, a lone CR, a BOM, a tab, extra spaces, a second
//! input file, a .gz input). The complete output (standard output, standard
//! error, exit status) is compared with `tests/golden/<name>.txt`, after the
//! temporary folder is replaced by `$DIR` and the summary's timing by `(TIME)`.
//!
//! `UPDATE_GOLDEN=1 cargo test --release --test check_golden` rewrites the
//! golden files (in the release profile, as every build here: see
//! CONTRIBUTING.md).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use flate2::Compression;
use flate2::write::GzEncoder;

/// Replaces every `(<digits>.<digits>s)` by `(TIME)`.
fn mask_timing(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('(') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let int = after.bytes().take_while(u8::is_ascii_digit).count();
        let frac = after[int..]
            .strip_prefix('.')
            .map(|f| f.bytes().take_while(u8::is_ascii_digit).count());
        match frac {
            Some(f) if int > 0 && f > 0 && after[int + 1 + f..].starts_with("s)") => {
                out.push_str("(TIME)");
                rest = &after[int + 1 + f + 2..];
            }
            _ => {
                out.push('(');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs pgnfen with `args` (after the global `--no-progress`) in a fresh temporary
/// folder holding `files`; `{name}` in an argument becomes that file's full path.
fn run(files: &[(&str, Vec<u8>)], args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        fs::write(dir.path().join(name), bytes).unwrap();
    }
    let args: Vec<String> = args
        .iter()
        .map(
            |a| match a.strip_prefix('{').and_then(|a| a.strip_suffix('}')) {
                Some(name) => dir.path().join(name).display().to_string(),
                None => (*a).to_string(),
            },
        )
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_pgnfen"))
        .arg("--no-progress")
        .args(&args)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .current_dir(dir.path())
        .output()
        .expect("pgnfen runs");
    let mut text = format!(
        "$ pgnfen --no-progress {}\nexit status: {}\n--- stdout ---\n{}",
        args.join(" "),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout)
    );
    if !out.stderr.is_empty() {
        text.push_str("--- stderr ---\n");
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    let dir_name = dir.path().display().to_string();
    mask_timing(&text.replace(&dir_name, "$DIR"))
}

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
        .join(format!("{name}.txt"))
}

/// Compares `have` with the golden file `name`, or rewrites it under `UPDATE_GOLDEN=1`.
fn assert_golden(name: &str, have: &str) {
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, have).unwrap();
        return;
    }
    let want = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with UPDATE_GOLDEN=1 to create it\n--- output ---\n{have}",
            path.display()
        )
    });
    assert!(
        want == have,
        "{} differs (UPDATE_GOLDEN=1 rewrites it)\n--- want ---\n{want}\n--- have ---\n{have}",
        path.display()
    );
}

/// `check --warnings` of one PGN file `game.pgn` holding `pgn`.
fn check_one(name: &str, pgn: &[u8]) {
    let have = run(
        &[("game.pgn", pgn.to_vec())],
        &["check", "--warnings", "{game.pgn}"],
    );
    assert_golden(name, &have);
}

// One case per problem code (README, "Problem codes").

#[test]
fn fen_syntax() {
    check_one(
        "fen-syntax",
        b"[Event \"fen-syntax\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1\"]\n\n1. e4 *\n",
    );
}

#[test]
fn illegal_position() {
    // The black king on e8 is attacked by the rook on e1 with white to move.
    check_one(
        "illegal-position",
        b"[Event \"illegal-position\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/K3R3 w - - 0 1\"]\n\n*\n",
    );
}

#[test]
fn castling_rights() {
    check_one(
        "castling-rights",
        b"[Event \"castling-rights\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1\"]\n\n*\n",
    );
}

#[test]
fn en_passant() {
    check_one(
        "en-passant",
        b"[Event \"en-passant\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1\"]\n\n*\n",
    );
}

#[test]
fn setup_without_fen() {
    check_one(
        "setup-without-fen",
        b"[Event \"setup-without-fen\"]\n[SetUp \"1\"]\n\n1. e4 *\n",
    );
}

#[test]
fn setup_value() {
    check_one(
        "setup-value",
        b"[Event \"setup-value\"]\n[SetUp \"yes\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n",
    );
}

#[test]
fn setup_value_zero_with_fen() {
    check_one(
        "setup-value-zero",
        b"[Event \"setup-value\"]\n[SetUp \"0\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n",
    );
}

#[test]
fn duplicate_tag() {
    check_one(
        "duplicate-tag",
        b"[Event \"duplicate-tag\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n[FEN \"4k3/8/8/8/8/8/8/3K4 w - - 0 1\"]\n\n*\n",
    );
}

#[test]
fn variant_mismatch() {
    check_one(
        "variant-mismatch",
        b"[Event \"variant-mismatch\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1\"]\n\n*\n",
    );
}

#[test]
fn variant_without_fen() {
    check_one(
        "variant-without-fen",
        b"[Event \"variant-without-fen\"]\n[Variant \"Chess960\"]\n\n1. e4 *\n",
    );
}

#[test]
fn fen_without_setup() {
    check_one(
        "fen-without-setup",
        b"[Event \"fen-without-setup\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n",
    );
}

#[test]
fn missing_variant() {
    check_one(
        "missing-variant",
        b"[Event \"missing-variant\"]\n[SetUp \"1\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n\n*\n",
    );
}

#[test]
fn missing_clocks() {
    check_one(
        "missing-clocks",
        b"[Event \"missing-clocks\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - -\"]\n\n*\n",
    );
}

#[test]
fn noncanonical() {
    check_one(
        "noncanonical",
        b"[Event \"noncanonical\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1\"]\n\n*\n",
    );
}

#[test]
fn lossy_castling() {
    // Only `convert --to fen` reports it (on standard error); the game is copied unchanged.
    let pgn = b"[Event \"lossy-castling\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11\"]\n\n*\n";
    let have = run(
        &[("game.pgn", pgn.to_vec())],
        &["convert", "--to", "fen", "{game.pgn}"],
    );
    assert_golden("lossy-castling", &have);
}

#[test]
fn illegal_move() {
    // Only with `--moves`: the movetext is replayed from the FEN.
    let pgn = b"[Event \"illegal-move\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O-O Kd8 *\n";
    let have = run(
        &[("game.pgn", pgn.to_vec())],
        &["check", "--moves", "all", "{game.pgn}"],
    );
    assert_golden("illegal-move", &have);
}

// LINE and COLUMN.

#[test]
fn crlf_line_ends() {
    check_one(
        "crlf",
        b"[Event \"crlf\"]\r\n[SetUp \"1\"]\r\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - e3 0 1\"]\r\n\r\n1. Kd2 *\r\n\r\n[Event \"second\"]\r\n[SetUp \"2\"]\r\n\r\n*\r\n",
    );
}

#[test]
fn lone_cr_line_ends() {
    check_one(
        "lone-cr",
        b"[Event \"cr\"]\r[SetUp \"1\"]\r[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 0\"]\r\r*\r",
    );
}

#[test]
fn byte_order_mark() {
    // The BOM is not a column: the fault is at column 9 of line 1.
    check_one(
        "bom",
        b"\xEF\xBB\xBF[SetUp \"2\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n",
    );
}

#[test]
fn tab_before_tag() {
    // A tab counts as one column.
    check_one(
        "tab",
        b"[Event \"tab\"]\n\t[SetUp \"1\"]\n\t[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1 x\"]\n\n*\n",
    );
}

#[test]
fn extra_spaces_in_tag_line() {
    check_one(
        "extra-spaces",
        b"[Event \"spaces\"]\n  [SetUp   \"1\"]\n[FEN    \"4k3/8/8/8/8/8/8/4K3  w - - 0 1\"  ]\n\n*\n",
    );
}

#[test]
fn second_input_file() {
    // Line numbers restart in each input file.
    let a = b"[Event \"a1\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n*\n\n[Event \"a2\"]\n[Variant \"Chess960\"]\n\n*\n";
    let b = b"\n\n[Event \"b1\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - e6 0 1\"]\n\n*\n";
    let have = run(
        &[("a.pgn", a.to_vec()), ("b.pgn", b.to_vec())],
        &["check", "--warnings", "{a.pgn}", "{b.pgn}"],
    );
    assert_golden("second-file", &have);
}

#[test]
fn gzip_input() {
    let pgn = b"[Event \"gz\"]\n[Site \"?\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w Q - 0 1\"]\n\n*\n";
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(pgn).unwrap();
    let have = run(
        &[("game.pgn.gz", gz.finish().unwrap())],
        &["check", "--warnings", "{game.pgn.gz}"],
    );
    assert_golden("gzip", &have);
}

#[test]
fn escaped_value_points_at_the_value() {
    // Spans in the decoded FEN are mapped back through the escapes: the caret
    // covers the raw `\\1` (column 35), not the decoded `\1`.
    check_one(
        "escaped-value",
        b"[Event \"escape\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 \\\\1\"]\n\n*\n",
    );
}

#[test]
fn timing_is_masked() {
    assert_eq!(
        mask_timing("1 game read (0.00s)\n(x) (1.5s) (12s)"),
        "1 game read (TIME)\n(x) (TIME) (12s)"
    );
}

/// docs/codes.md (what `pgnfen explain` prints) quotes the first line of every golden of a
/// problem code; keep it in step when messages change.
#[test]
fn readme_quotes_the_goldens() {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        return; // the goldens are being rewritten by the other tests
    }
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/codes.md")).unwrap();
    // Every code, so that a new one cannot go without its golden file
    // (tests/golden/CODE.txt, made by a test of this file with UPDATE_GOLDEN=1).
    for code in pgnfen::Code::ALL.map(pgnfen::Code::as_str) {
        let golden = fs::read_to_string(golden_path(code))
            .unwrap_or_else(|e| panic!("{code}: no golden file tests/golden/{code}.txt ({e})"));
        let first = golden
            .lines()
            .find(|l| l.starts_with("$DIR/"))
            .unwrap_or_else(|| panic!("{code}: no diagnostic in the golden"))
            .replace("$DIR/", "");
        assert!(
            readme.contains(&first),
            "docs/codes.md does not quote the {code} golden:\n{first}"
        );
    }
}

/// The README shows the first line pgnfen writes for each problem code: each
/// such line is one the golden files hold (so a message changed in the code
/// cannot leave the README behind).
#[test]
fn the_readme_shows_the_messages_pgnfen_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let golden: Vec<String> = fs::read_dir(root.join("tests").join("golden"))
        .unwrap()
        .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    let shown: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("game.pgn:"))
        .collect();
    assert!(
        shown.len() >= 14,
        "{} lines found in the README",
        shown.len()
    );
    for line in shown {
        let written = format!("$DIR/{line}\n");
        assert!(
            golden.iter().any(|g| g.contains(&written)),
            "README.md shows a line no golden file holds:\n{line}"
        );
    }
}
