//! `pgnfen export`: rows against `index` and `stats`, tag values against the
//! file, Parquet read back with the parquet crate against JSON lines and CSV,
//! `--tags` lists and `all`, usage errors; on the corpus (`PGNFEN_CORPUS`, ignored test).

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int16Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Value, json};

use common::run;

/// Games with what a table must get right: escapes, duplicates (the first
/// pair counts), several pairs on a line, an empty value, Elo that is no
/// number, invalid UTF-8, a Chess960 game, a malformed one, a long tag name.
const TRICKY: &[u8] = b"[Event \"a \\\"quoted\\\" event\"] [Site \"x\"]\n\
[White \"back\\\\slash\"]\n[White \"second\"]\n[WhiteElo \"2600\"]\n[BlackElo \"?\"]\n\
[Annotator \"A\"]\n[Annotator \"B\"]\n[Empty \"\"]\n[ThisIsAVeryLongTagNameIndeedOfSomeLength \"long\"]\n\
\n1. e4 *\n\n\
[Event \"960\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\
[BlackElo \"-5\"]\n[Black \"caf\xe9\"]\n\n1. f5 1-0\n\n\
[Event \"bad\"]\n[SetUp \"1\"]\n\n*\n";

fn write_tmp(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

fn export(args: &[&str]) -> std::process::Output {
    let mut all = vec!["export", "-q"];
    all.extend_from_slice(args);
    run(&all)
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn jsonl(out: &[u8]) -> Vec<Value> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn export_jsonl(args: &[&str]) -> Vec<Value> {
    let out = export(args);
    ok(&out);
    jsonl(&out.stdout)
}

#[test]
fn rows_of_tricky_games() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    let rows = export_jsonl(&[pgn.to_str().unwrap()]);
    assert_eq!(rows.len(), 3);
    let r = &rows[0];
    assert_eq!(r["game"], 1);
    assert_eq!(r["offset"], 0);
    assert_eq!(r["line"], 1);
    assert_eq!(r["class"], "standard");
    assert_eq!(r["Event"], "a \"quoted\" event");
    assert_eq!(r["Site"], "x");
    // Duplicates: the first pair counts, in columns and in other_tags.
    assert_eq!(r["White"], "back\\slash");
    assert_eq!(r["WhiteElo"], 2600);
    assert_eq!(r["BlackElo"], Value::Null, "? is no number");
    assert_eq!(r["Black"], Value::Null, "absent");
    assert_eq!(
        r["other_tags"],
        // A repeated tag keeps its later values as NAME#2, ... (nothing vanishes).
        json!({"Annotator": "A", "Empty": "", "ThisIsAVeryLongTagNameIndeedOfSomeLength": "long", "White#2": "second", "Annotator#2": "B"})
    );
    assert_eq!(r["problems"], json!([]));
    let r = &rows[1];
    assert_eq!(r["class"], "chess960");
    assert_eq!(r["chess960_position"], Value::Null, "not a start array");
    assert_eq!(r["variant"], "Chess960");
    assert_eq!(
        r["fen"],
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    );
    assert_eq!(r["BlackElo"], -5);
    // Not UTF-8: read as Windows-1252 (the default --encoding auto).
    assert_eq!(
        r["Black"], "café",
        "a Latin-1 byte is decoded, not replaced"
    );
    // SetUp has no column: it is in other_tags; FEN and Variant are not.
    assert_eq!(r["other_tags"], json!({"SetUp": "1"}));
    let r = &rows[2];
    assert_eq!(r["class"], "malformed");
    assert_eq!(r["problems"], json!(["setup-without-fen"]));
    // Spans cover the file.
    let total: u64 = rows.iter().map(|r| r["length"].as_u64().unwrap()).sum();
    assert_eq!(total, TRICKY.len() as u64);
}

#[test]
fn named_and_all_tag_columns() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    let p = pgn.to_str().unwrap();
    let rows = export_jsonl(&["--tags", "Annotator,WhiteElo,Nope", p]);
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys[pgnfen::export::Columns::FIXED.len()..],
        ["Annotator", "WhiteElo", "Nope", "other_tags"]
            .iter()
            .collect::<Vec<_>>()[..]
    );
    assert_eq!(rows[0]["Annotator"], "A");
    assert_eq!(rows[0]["Nope"], Value::Null);
    assert_eq!(rows[0]["other_tags"]["Event"], "a \"quoted\" event");
    // `all`: every name met, in order of first appearance; FEN and Variant
    // are the fen and variant columns.
    let rows = export_jsonl(&["--tags", "all", p]);
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys[pgnfen::export::Columns::FIXED.len()..],
        [
            "Event",
            "Site",
            "White",
            "WhiteElo",
            "BlackElo",
            "Annotator",
            "Empty",
            "ThisIsAVeryLongTagNameIndeedOfSomeLength",
            "SetUp",
            "Black",
            "other_tags"
        ]
        .iter()
        .collect::<Vec<_>>()[..]
    );
    // Every tag has a column; only the repeated ones (NAME#2) stay in other_tags.
    assert!(
        rows.iter().all(|r| r["other_tags"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| k.contains('#'))),
        "{rows:?}"
    );
    assert_eq!(rows[2]["SetUp"], "1");
    assert_eq!(rows[1]["BlackElo"], -5);
}

#[test]
fn all_with_many_and_colliding_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn = Vec::new();
    for g in 0..3 {
        for t in 0..40 {
            pgn.extend_from_slice(format!("[T{g}x{t} \"{t}\"]\n").as_bytes());
        }
        // Collides (ignoring case) with the fixed column `class`, and with T0x0.
        pgn.extend_from_slice(b"[Class \"c\"]\n[t0X0 \"d\"]\n\n*\n\n");
    }
    let path = write_tmp(dir.path(), "many.pgn", &pgn);
    let rows = export_jsonl(&["--tags", "all", path.to_str().unwrap()]);
    assert_eq!(rows.len(), 3);
    let keys = rows[0].as_object().unwrap().len();
    assert_eq!(keys, pgnfen::export::Columns::FIXED.len() + 120 + 1);
    for (g, r) in rows.iter().enumerate() {
        assert_eq!(r[format!("T{g}x39")], "39");
        assert_eq!(r["other_tags"], json!({"Class": "c", "t0X0": "d"}));
    }
    assert_eq!(rows[1]["T0x5"], Value::Null);
}

/// A device or a pipe has no ending to tell the format by: JSON lines, as
/// on standard output (which `/dev/stdout` is, here a pipe).
#[test]
fn a_device_output_gets_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    let p = pgn.to_str().unwrap();
    let to_stdout = export_jsonl(&[p]);
    assert_eq!(to_stdout.len(), 3);
    assert_eq!(export_jsonl(&["-o", "/dev/stdout", p]), to_stdout);
    let out = export(&["-o", "/dev/null", p]);
    ok(&out);
    assert!(out.stdout.is_empty());
}

#[test]
fn usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    let p = pgn.to_str().unwrap();
    let cases: [(&[&str], &str); 10] = [
        (&["--tags", "all", "-"], "standard input"),
        // -o x.parquet is added below: a name of another format than --format's.
        (
            &["--format", "jsonl", p],
            "asks for Parquet but the format given is JSON lines",
        ),
        (&["--format", "csv", p], "name it"),
        (
            &["--csv-raw", p],
            "--csv-raw is for CSV, and this export writes parquet",
        ),
        (&["--tags", "all", "/dev/null"], "not a regular file"),
        (&["-o", "x.txt", p], "cannot tell the format"),
        (&["-o", "x.parquet.zst", p], "compressed inside"),
        (&["--tags", "FEN", p], "column fen"),
        (&["--tags", "White,White", p], "twice"),
        (&["--tag", "WhiteElo>>1", p], ""),
    ];
    for (args, message) in cases {
        let mut all = args.to_vec();
        let out_path = dir.path().join("x.parquet");
        let o = out_path.to_str().unwrap().to_string();
        if !args.contains(&"-o") {
            all.extend(["-o", &o]);
        }
        let out = export(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!out_path.exists(), "{args:?}: nothing written");
    }
}

/// A pseudo-terminal: its controller (read to see what reached the screen)
/// and the path of its terminal end.
fn pseudo_terminal() -> (File, PathBuf) {
    use std::os::fd::FromRawFd;
    // SAFETY: plain libc calls on a descriptor this function owns; ptsname's
    // static buffer is copied before anything else can call it.
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK);
        assert!(fd >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let name = std::ffi::CStr::from_ptr(libc::ptsname(fd));
        let path = PathBuf::from(name.to_str().unwrap());
        (File::from_raw_fd(fd), path)
    }
}

#[test]
fn parquet_is_refused_on_a_terminal_however_it_is_named() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    let p = pgn.to_str().unwrap();
    let (mut screen, tty) = pseudo_terminal();
    let t = tty.to_str().unwrap();
    // Standard output on the terminal, and paths that name it.
    let cases: [&[&str]; 4] = [
        &["--format", "parquet", p],
        &["--format", "parquet", "-o", "-", p],
        &["--format", "parquet", "-o", "/dev/stdout", p],
        &["--format", "parquet", "-o", t, p],
    ];
    for args in cases {
        let terminal = std::fs::OpenOptions::new().write(true).open(&tty).unwrap();
        let out = common::bin()
            .arg("-q")
            .arg("export")
            .args(args)
            .stdout(terminal)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("Parquet is binary"), "{args:?}: {err}");
        let mut shown = Vec::new();
        let _ = screen.read_to_end(&mut shown);
        assert!(
            shown.is_empty(),
            "{args:?}: {} bytes reached the terminal",
            shown.len()
        );
    }
    // Text formats are for terminals too, and a device that is none takes Parquet.
    let terminal = std::fs::OpenOptions::new().write(true).open(&tty).unwrap();
    let out = common::bin()
        .args(["-q", "export", "-o", t, p])
        .stdout(terminal)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // The terminal hands the bytes on a moment after they were written.
    let mut shown = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !String::from_utf8_lossy(&shown).contains("\"game\":2")
        && std::time::Instant::now() < deadline
    {
        let _ = screen.read_to_end(&mut shown);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let shown = String::from_utf8_lossy(&shown);
    assert!(shown.contains("\"game\":2"));
    // (Parquet that reached the terminal late would show here.)
    assert!(!shown.contains("PAR1"));
    let out = export(&["--format", "parquet", "-o", "/dev/null", p]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn tag_selection_keeps_game_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    let rows = export_jsonl(&["--tag", "Event=960", pgn.to_str().unwrap()]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["game"], 2);
}

/// Every row of a Parquet file as JSON values of the same shape as JSON lines,
/// read with the parquet crate (an independent path from the text writers).
fn parquet_rows(path: &Path) -> Vec<Value> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch: RecordBatch = batch.unwrap();
        for i in 0..batch.num_rows() {
            let mut row = serde_json::Map::new();
            for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = if col.is_null(i) {
                    Value::Null
                } else {
                    match col.data_type() {
                        arrow_schema::DataType::Utf8 => json!(col.as_string::<i32>().value(i)),
                        arrow_schema::DataType::Int64 => {
                            json!(col.as_primitive::<Int64Type>().value(i))
                        }
                        arrow_schema::DataType::Int32 => {
                            json!(col.as_primitive::<Int32Type>().value(i))
                        }
                        arrow_schema::DataType::Int16 => {
                            json!(col.as_primitive::<Int16Type>().value(i))
                        }
                        arrow_schema::DataType::Float64 => {
                            json!(col.as_primitive::<Float64Type>().value(i))
                        }
                        arrow_schema::DataType::List(_) => {
                            let l = col.as_list::<i32>().value(i);
                            let s = l.as_string::<i32>();
                            json!((0..s.len()).map(|j| s.value(j)).collect::<Vec<_>>())
                        }
                        arrow_schema::DataType::Map(..) => {
                            let m = col.as_map();
                            let (k, v) =
                                (m.keys().as_string::<i32>(), m.values().as_string::<i32>());
                            let o = m.value_offsets();
                            let mut obj = serde_json::Map::new();
                            for j in o[i] as usize..o[i + 1] as usize {
                                obj.insert(k.value(j).into(), json!(v.value(j)));
                            }
                            Value::Object(obj)
                        }
                        other => panic!("unexpected type {other}"),
                    }
                };
                row.insert(field.name().clone(), v);
            }
            rows.push(Value::Object(row));
        }
    }
    rows
}

/// A CSV file's rows as JSON values: empty fields as null, numbers and the
/// JSON text of problems/other_tags parsed (CSV cannot tell "" from null).
fn csv_rows(path: &Path) -> Vec<Value> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let obj: serde_json::Map<String, Value> = headers
                .iter()
                .zip(rec.iter())
                .map(|(h, f)| {
                    let v = if f.is_empty() {
                        Value::Null
                    } else if matches!(h, "problems" | "other_tags")
                        || (matches!(
                            h,
                            "game"
                                | "offset"
                                | "length"
                                | "line"
                                | "chess960_position"
                                | "WhiteElo"
                                | "BlackElo"
                                | "time_base"
                                | "time_increment"
                        ))
                    {
                        serde_json::from_str(f).unwrap()
                    } else {
                        json!(f)
                    };
                    (h.to_string(), v)
                })
                .collect();
            Value::Object(obj)
        })
        .collect()
}

/// Empty strings as null (for comparing with CSV).
fn blank_to_null(rows: &[Value]) -> Vec<Value> {
    rows.iter()
        .map(|r| {
            let mut r = r.clone();
            for (_, v) in r.as_object_mut().unwrap().iter_mut() {
                if v == "" {
                    *v = Value::Null;
                }
            }
            r
        })
        .collect()
}

/// Exports `input` in the three formats (CSV compressed) and checks they hold
/// the same rows, and that the rows' spans and classes are `index`'s.
fn three_formats_agree(input: &Path, dir: &Path) -> usize {
    let i = input.to_str().unwrap();
    let pq = dir.join("o.parquet");
    let csv_path = dir.join("o.csv");
    let jl = dir.join("o.jsonl.zst");
    ok(&export(&["-o", pq.to_str().unwrap(), i]));
    // Raw cells: the values as written (no quote before a formula-like cell).
    ok(&export(&["--csv-raw", "-o", csv_path.to_str().unwrap(), i]));
    ok(&export(&["-o", jl.to_str().unwrap(), i]));
    let from_parquet = parquet_rows(&pq);
    let jl_bytes = zstd::decode_all(File::open(&jl).unwrap()).unwrap();
    let from_jsonl = jsonl(&jl_bytes);
    assert_eq!(from_parquet, from_jsonl, "{i}: parquet vs jsonl");
    assert_eq!(
        blank_to_null(&from_parquet),
        csv_rows(&csv_path),
        "{i}: parquet vs csv"
    );
    let index = run(&["index", i]);
    ok(&index);
    let index = jsonl(&index.stdout);
    assert_eq!(index.len(), from_parquet.len(), "{i}: one row per game");
    for (row, ix) in from_parquet.iter().zip(&index) {
        for k in [
            "game",
            "offset",
            "length",
            "line",
            "class",
            "chess960_position",
        ] {
            assert_eq!(row[k], ix[k], "{i}: {k} of game {}", ix["game"]);
        }
        if let Some(elo) = row["WhiteElo"].as_i64() {
            assert!(elo.to_string().len() < 12);
        }
    }
    from_parquet.len()
}

#[test]
fn formats_agree_on_small_files() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "t.pgn", TRICKY);
    assert_eq!(three_formats_agree(&pgn, dir.path()), 3);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for entry in std::fs::read_dir(samples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "pgn") {
            three_formats_agree(&path, dir.path());
        }
    }
}

/// The game's position columns are written as differences (their pages a few
/// bits per row); read back, every value equals `index`'s.
#[test]
fn position_columns_are_delta_encoded() {
    use parquet::basic::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/mixed.pgn");
    assert!(three_formats_agree(&input, dir.path()) > 0);
    let meta =
        ParquetRecordBatchReaderBuilder::try_new(File::open(dir.path().join("o.parquet")).unwrap())
            .unwrap()
            .metadata()
            .clone();
    let group = meta.row_group(0);
    for column in group.columns() {
        let name = column.column_path().string();
        let delta = column
            .encodings()
            .any(|e| e == Encoding::DELTA_BINARY_PACKED);
        assert_eq!(
            delta,
            ["game", "offset", "length", "line"].contains(&name.as_str()),
            "{name}: {:?}",
            column.encodings().collect::<Vec<_>>()
        );
    }
}

/// Headers with long values: batches end at their byte budget (4 MiB of
/// text) long before 16,384 rows, and Parquet row groups end early; every
/// row and every value still arrives, in order, the same in all formats.
#[test]
fn long_values_cut_batches_and_row_groups_but_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn = Vec::new();
    let value = |i: usize| -> String {
        // Different per game and hard to compress, so that row groups grow.
        let mut x = (i as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(1);
        (0..4_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'a' + (x % 26) as u8)
            })
            .collect()
    };
    let games = 10_000;
    for i in 0..games {
        pgn.extend_from_slice(
            format!("[Event \"e{i}\"]\n[Site \"{}\"]\n\n1. e4 *\n\n", value(i)).as_bytes(),
        );
    }
    let input = write_tmp(dir.path(), "long.pgn", &pgn);
    assert_eq!(three_formats_agree(&input, dir.path()), games);
    let pq = dir.path().join("o.parquet");
    let rows = parquet_rows(&pq);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["Event"], json!(format!("e{i}")));
        assert_eq!(row["Site"], json!(value(i)), "game {}", i + 1);
    }
    let meta = ParquetRecordBatchReaderBuilder::try_new(File::open(&pq).unwrap())
        .unwrap()
        .metadata()
        .clone();
    assert!(
        meta.num_row_groups() > 1,
        "40 MB of values end row groups early"
    );
}

#[test]
#[ignore = "needs PGNFEN_CORPUS"]
fn corpus_files() {
    let corpus = common::corpus("");
    let dir = tempfile::tempdir().unwrap();
    let mut files = 0;
    for sub in ["real", "generated", "generated/edge"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
            .collect();
        paths.sort();
        for path in paths {
            let rows = three_formats_agree(&path, dir.path());
            let stats = common::json(&run(&["stats", "--format", "json", path.to_str().unwrap()]));
            assert_eq!(
                rows as u64,
                stats["games"].as_u64().unwrap(),
                "{}",
                path.display()
            );
            files += 1;
        }
    }
    assert!(files > 30, "{files} corpus files");
}

#[test]
fn class_counts_equal_stats() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/mixed.pgn");
    let p = samples.to_str().unwrap();
    let rows = export_jsonl(&[p]);
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        *counts
            .entry(r["class"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let stats = common::json(&run(&["stats", "--format", "json", p]));
    for (class, n) in stats["classes"].as_object().unwrap() {
        assert_eq!(
            counts.get(class).copied().unwrap_or(0),
            n.as_u64().unwrap(),
            "{class}"
        );
    }
}

/// The JSON lines of an export through the library, with these chunk sizes,
/// threads and mapping.
fn library_jsonl(
    inputs: &[pgnfen::pipeline::Input],
    options: &pgnfen::pipeline::Options,
) -> Vec<u8> {
    use pgnfen::export::{self, ExportOptions, JsonLines};
    let export_options = ExportOptions {
        tags: export::TagColumns::All,
        batch_rows: 7,
        ..ExportOptions::default()
    };
    let columns = export::columns(inputs, &export_options, options).unwrap();
    let batches = export::batches(inputs, columns, &export_options, options);
    let schema = batches.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let mut out = JsonLines::new(Vec::new(), &names);
    for batch in batches {
        let batch = batch.unwrap();
        assert!(batch.num_rows() <= 7);
        out.write_batch(&batch).unwrap();
    }
    out.into_inner()
}

/// Tiny chunks (every game boundary a speculative cut, headers continued in
/// later chunks), one or two threads, mapped or read: the same rows as one
/// big chunk. Tag pairs are found across every kind of cut.
#[test]
fn chunking_and_threads_do_not_change_rows() {
    use pgnfen::pipeline::{Input, Options};
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = vec![Input::File(write_tmp(dir.path(), "t.pgn", TRICKY))];
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut names: Vec<PathBuf> = std::fs::read_dir(samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    names.sort();
    inputs.extend(names.into_iter().map(Input::File));
    let whole = library_jsonl(&inputs, &Options::new(1));
    assert!(!whole.is_empty());
    for (threads, target, mmap) in [
        (1, 40, false),
        (2, 40, true),
        (2, 200, false),
        (2, 1000, true),
    ] {
        let options = Options {
            mmap,
            chunk_sizes: (target, 1 << 20),
            ..Options::new(threads)
        };
        assert!(
            library_jsonl(&inputs, &options) == whole,
            "threads {threads}, chunks of {target}, mmap {mmap}"
        );
    }
}

/// Dropping the batch iterator early stops the run without an error or a hang.
#[test]
fn dropping_the_batches_stops_the_run() {
    use pgnfen::export::{self, ExportOptions};
    use pgnfen::pipeline::{Input, Options};
    let dir = tempfile::tempdir().unwrap();
    let many: Vec<u8> = TRICKY.repeat(2000);
    let inputs = vec![Input::File(write_tmp(dir.path(), "many.pgn", &many))];
    let options = ExportOptions {
        batch_rows: 10,
        ..ExportOptions::default()
    };
    let pipeline = Options::new(2);
    let columns = export::columns(&inputs, &options, &pipeline).unwrap();
    let mut batches = export::batches(&inputs, columns, &options, &pipeline);
    assert_eq!(batches.next().unwrap().unwrap().num_rows(), 10);
    drop(batches);
    // Read to the end, the summary counts every game.
    let columns = export::columns(&inputs, &options, &pipeline).unwrap();
    let mut batches = export::batches(&inputs, columns, &options, &pipeline);
    let rows: usize = batches.by_ref().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 6000);
    let summary = batches.summary().unwrap();
    assert_eq!(
        (summary.games, summary.rows, summary.dropped_pairs),
        (6000, 6000, 0)
    );
}

/// A clock too long for a double: infinity in Parquet, `inf` in CSV, null in
/// JSON lines (which has no infinity); the speed is read from every digit.
#[test]
fn clocks_beyond_a_double_in_each_format() {
    let dir = tempfile::tempdir().unwrap();
    let huge = "9".repeat(400);
    let pgn = format!(
        "[Event \"a\"]\n[TimeControl \"{huge}+1\"]\n\n*\n\n\
         [Event \"b\"]\n[TimeControl \"0.0000000000000000001\"]\n\n*\n"
    );
    let input = write_tmp(dir.path(), "huge.pgn", pgn.as_bytes());
    let input = input.to_str().unwrap();
    let rows = export_jsonl(&["--format", "jsonl", input]);
    assert_eq!(rows[0]["speed"], "correspondence");
    assert_eq!(rows[0]["time_base"], Value::Null);
    assert_eq!(rows[0]["time_increment"], 1.0);
    assert_eq!(rows[1]["speed"], "ultrabullet");
    assert_eq!(rows[1]["time_base"], 1e-19);

    let csv_path = dir.path().join("h.csv");
    ok(&export(&["-o", csv_path.to_str().unwrap(), input]));
    let mut r = csv::Reader::from_path(&csv_path).unwrap();
    let headers = r.headers().unwrap().clone();
    let base = headers.iter().position(|h| h == "time_base").unwrap();
    let records: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(&records[0][base], "inf");
    assert_eq!(records[1][base].parse::<f64>().unwrap(), 1e-19);

    let parquet_path = dir.path().join("h.parquet");
    ok(&export(&["-o", parquet_path.to_str().unwrap(), input]));
    let batch = ParquetRecordBatchReaderBuilder::try_new(File::open(&parquet_path).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let base = batch.column_by_name("time_base").unwrap();
    assert_eq!(base.as_primitive::<Float64Type>().value(0), f64::INFINITY);
}

/// `--encoding` takes the other names of each encoding, in any case, as
/// Python's `encoding=` does.
#[test]
fn encodings_have_their_other_names() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_tmp(dir.path(), "latin.pgn", b"[Event \"caf\xe9\"]\n\n*\n");
    let p = p.to_str().unwrap();
    let by = |name: &str| export_jsonl(&["--format", "jsonl", "--encoding", name, p]);
    let latin = by("latin-1");
    assert_eq!(latin[0]["Event"], "caf\u{e9}");
    for other in ["latin1", "ISO-8859-1", "windows-1252", "cp1252"] {
        assert_eq!(by(other), latin, "{other}");
    }
    assert_eq!(by("utf8"), by("utf-8"));
    let out = export(&["--encoding", "ebcdic", p]);
    assert_eq!(out.status.code(), Some(2));
}

/// With `--tags all`'s 128 columns a row group holds more rows than with the
/// default columns, not fewer: the writer keeps every column chunk's
/// metadata until the footer, so row groups of a few thousand rows made
/// memory grow by about 250 bytes a game (275 MiB for 900,000 games, with
/// 1,000 columns) and the file six times larger.
#[test]
fn many_columns_do_not_shorten_the_row_groups() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn = Vec::new();
    let games = 20_000;
    for i in 0..games {
        pgn.extend_from_slice(format!("[Event \"e\"]\n[X{} \"v\"]\n\n*\n\n", i % 1_500).as_bytes());
    }
    let input = write_tmp(dir.path(), "many.pgn", &pgn);
    let pq = dir.path().join("o.parquet");
    let out = run(&[
        "-q",
        "export",
        "--tags",
        "all",
        "-o",
        pq.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = ParquetRecordBatchReaderBuilder::try_new(File::open(&pq).unwrap())
        .unwrap()
        .metadata()
        .clone();
    assert!(meta.file_metadata().schema_descr().num_columns() > 128);
    assert_eq!(meta.num_row_groups(), 1);
    assert_eq!(meta.file_metadata().num_rows(), games);
}

/// The keys of each line's `other_tags` object as written, duplicates
/// included (a JSON reader would keep one of two).
fn other_tag_keys(out: &[u8]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for line in String::from_utf8(out.to_vec()).unwrap().lines() {
        let object = &line[line.find("\"other_tags\":").unwrap() + "\"other_tags\":".len()..];
        let mut keys = Vec::new();
        let mut stream =
            serde_json::Deserializer::from_str(object).into_iter::<serde_json::Value>();
        assert!(stream.next().unwrap().is_ok());
        // Every "key": of the object, read with the JSON string rules.
        let mut rest = object.trim_start_matches('{');
        while let Some(start) = rest.find('"') {
            let mut de = serde_json::Deserializer::from_str(&rest[start..]).into_iter::<String>();
            let key = de.next().unwrap().unwrap();
            let after = &rest[start + de.byte_offset()..];
            let after = after.trim_start_matches(':');
            let mut de = serde_json::Deserializer::from_str(after).into_iter::<String>();
            de.next().unwrap().unwrap();
            keys.push(key);
            rest = after[de.byte_offset()..].trim_start_matches(',');
            if rest.starts_with('}') {
                break;
            }
        }
        rows.push(keys);
    }
    rows
}

#[test]
fn other_tags_never_holds_a_key_twice() {
    // Names that read alike once decoded (Windows-1252 and UTF-8 `é`, a
    // literal `\xE9` against an invalid byte under utf-8), and a name of the
    // file that looks like a repeat's key: each had given a key twice.
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[u8], &[&str], &[&str]); 3] = [
        (
            b"[Event \"x\"]\n[Na\xe9me \"lat1\"]\n[Na\xc3\xa9me \"utf1\"]\n[Na\xe9me \"lat2\"]\n[Na\xc3\xa9me \"utf2\"]\n\n*\n",
            &[],
            &["Naéme", "Naéme#2", "Naéme#2#2", "Naéme#2#3"],
        ),
        (
            b"[Event \"x\"]\n[Event \"y\"]\n[Event#2 \"z\"]\n\n*\n",
            &[],
            &["Event#2", "Event#2#2"],
        ),
        (
            b"[Event \"x\"]\n[Na\\xE9me \"ascii\"]\n[Na\xe9me \"latin\"]\n\n*\n",
            &["--encoding", "utf-8"],
            &["Na\\xE9me", "Na\\xE9me#2"],
        ),
    ];
    for (i, (pgn, options, keys)) in cases.iter().enumerate() {
        let path = write_tmp(dir.path(), &format!("{i}.pgn"), pgn);
        let mut args = vec!["--format", "jsonl"];
        args.extend_from_slice(options);
        args.push(path.to_str().unwrap());
        let out = export(&args);
        ok(&out);
        assert_eq!(other_tag_keys(&out.stdout), vec![keys.to_vec()], "case {i}");
    }
}

/// More distinct tag names than one run can look for are a usage error before
/// anything is read or written (the expressions past the scanner's limit would
/// otherwise never match, and rows would be left out without a word).
#[test]
fn too_many_tag_names_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = write_tmp(dir.path(), "a.pgn", b"[Event \"x\"]\n\n1. e4 *\n");
    let out = dir.path().join("h.parquet");
    let expressions: Vec<String> = (0..65).map(|i| format!("Tag{i}=x")).collect();
    let mut args = vec!["-o", out.to_str().unwrap()];
    for e in &expressions {
        args.extend(["--tag", e.as_str()]);
    }
    args.push(pgn.to_str().unwrap());
    let got = export(&args);
    assert_eq!(got.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(
        stderr.contains("--tag names 65 different tags; at most 64"),
        "{stderr}"
    );
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// A header whose first megabyte of tag text leaves no room for its SetUp,
/// FEN and Variant pairs: the `fen` and `variant` columns still hold what the
/// class was read from, and only the pairs that went nowhere are counted.
#[test]
fn fen_and_variant_columns_survive_a_header_past_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut pgn = b"[Event \"big\"]\n[Annotator \"".to_vec();
    pgn.extend(std::iter::repeat_n(b'x', 3 << 19));
    pgn.extend_from_slice(
        b"\"]\n[SetUp \"1\"]\n[FEN \"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\"]\n\
          [Variant \"Chess960\"]\n[WhiteElo \"2500\"]\n\n1. e4 *\n",
    );
    let input = write_tmp(dir.path(), "budget.pgn", &pgn);
    let out = export(&["--tags", "WhiteElo", input.to_str().unwrap()]);
    ok(&out);
    let rows = jsonl(&out.stdout);
    assert_eq!(rows[0]["class"], "chess960");
    assert_eq!(rows[0]["variant"], "Chess960");
    assert_eq!(
        rows[0]["fen"],
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    );
    // SetUp and WhiteElo went nowhere (the budget's warning counts them).
    assert_eq!(rows[0]["WhiteElo"], Value::Null);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 tags in 1 game were not exported"),
        "{stderr}"
    );
}

/// The fixed columns as the library makes them are the ones `export --help`,
/// docs/commands.md's table and Python's `scan()` list, in that order.
#[test]
fn every_fixed_column_is_documented_in_order() {
    let fixed = pgnfen::export::Columns::FIXED;
    let in_order = |text: &str, quoted: &dyn Fn(&str) -> String, source: &str| {
        let mut from = 0;
        for name in fixed {
            let at = text[from..].find(&quoted(name)).unwrap_or_else(|| {
                panic!("{source} does not list {name} after the columns before it")
            });
            from += at;
        }
    };
    let help = String::from_utf8(run(&["export", "--help"]).stdout).unwrap();
    let columns = &help[help.find("Columns:").expect("a Columns: paragraph")..];
    in_order(columns, &|n| format!("{n},"), "export --help");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/commands.md")).unwrap();
    let table = &doc[doc.find("| `file` |").expect("the columns' table")..];
    in_order(table, &|n| format!("`{n}`"), "docs/commands.md");
    let python = std::fs::read_to_string(root.join("python/pgnfen/__init__.py")).unwrap();
    let scan = &python[python.find("def scan(").unwrap()..];
    in_order(
        scan,
        &|n| format!("``{n}``"),
        "python/pgnfen/__init__.py scan()",
    );
}
