//! `cargo fuzz run ci_output`: the writers of untrusted text for CI and
//! spreadsheets (GitHub workflow commands, SARIF, CSV cells) are parsed back
//! and every value is found intact once the writer's own escaping is undone:
//! a workflow command is one line that starts with `::error` and whose
//! properties and message split where the grammar says; the SARIF log is one
//! JSON document with the message and URI as given; a CSV cell reads back as
//! the escaped text (with the formula quote when it starts a formula) and
//! `--csv-raw` as the value itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::Code;
use pgnfen::ci::{Sarif, github_data, github_property, uri_reference};
use pgnfen::escape::{controls, csv_cell};

/// Undoes the workflow command escaping (`%25`, `%0D`, `%0A`, `%3A`, `%2C`).
fn github_unescape(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Undoes the URI percent-encoding.
fn uri_unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    // Three values separated by 0xFF: a file name, a message, a CSV cell.
    let mut parts = data.split(|&b| b == 0xFF).map(String::from_utf8_lossy);
    let file = parts.next().unwrap_or_default().into_owned();
    let message = parts.next().unwrap_or_default().into_owned();
    let cell = parts.next().unwrap_or_default().into_owned();
    let (file_shown, message_shown) = (controls(&file), controls(&message));

    // Escaped text holds no control character and is unchanged by escaping.
    for s in [&file_shown, &message_shown] {
        assert!(!s.chars().any(char::is_control));
        assert_eq!(controls(s), *s);
    }

    // GitHub: one line; the grammar splits it where pgnfen put the separators.
    let line = format!(
        "::error file={},line=1,col=2,title={}::{}",
        github_property(&file_shown),
        github_property("fen-syntax"),
        github_data(&message_shown)
    );
    assert!(!line.contains(['\n', '\r']), "{line:?}");
    let rest = line.strip_prefix("::error ").unwrap();
    let (props, msg) = rest.split_once("::").unwrap();
    assert_eq!(github_unescape(msg), *message_shown);
    let props: Vec<&str> = props.split(',').collect();
    assert_eq!(props.len(), 4, "{props:?}");
    let (key, value) = props[0].split_once('=').unwrap();
    assert_eq!(key, "file");
    assert_eq!(github_unescape(value), *file_shown);
    // The raw value with its own `::` and line ends never starts a command.
    let raw = format!(
        "::error file={},line=1::{}",
        github_property(&file),
        github_data(&message)
    );
    assert_eq!(raw.lines().count(), 1, "{raw:?}");

    // SARIF: one JSON document; the message and the URI read back.
    let mut out = Vec::new();
    let mut sarif = Sarif::default();
    sarif
        .result(
            &mut out,
            &*file_shown,
            3,
            4,
            Code::FenSyntax,
            &message_shown,
        )
        .unwrap();
    sarif
        .result(&mut out, "b.pgn", 5, 6, Code::Noncanonical, &message_shown)
        .unwrap();
    sarif.finish(&mut out).unwrap();
    let log: serde_json::Value = serde_json::from_slice(&out).expect("a JSON document");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[0]["message"]["text"].as_str().unwrap(),
        message_shown
    );
    let uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert_eq!(uri, uri_reference(&*file_shown));
    // An absolute name is a `file://` URI, a relative one a URI reference.
    let path = match file_shown.starts_with('/') {
        true => uri
            .strip_prefix("file://")
            .expect("an absolute name is a file:// URI"),
        false => uri,
    };
    assert_eq!(uri_unescape(path), file_shown.as_bytes());
    assert_eq!(results[1]["level"].as_str().unwrap(), "warning");

    // CSV: a record of the cell, neutralised and raw, reads back.
    for raw in [false, true] {
        let shown = csv_cell(&cell, raw);
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record([shown.as_ref(), "x"]).unwrap();
        let bytes = w.into_inner().unwrap();
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(bytes.as_slice());
        let rec = r.records().next().unwrap().unwrap();
        assert_eq!(rec.len(), 2);
        let back = &rec[0];
        if raw {
            assert_eq!(back, cell);
        } else {
            assert!(!back.chars().any(char::is_control), "{back:?}");
            assert!(!back.starts_with(['=', '+', '-', '@']), "{back:?}");
            let expected = controls(&cell);
            let undone = if expected.starts_with(['=', '+', '-', '@']) {
                back.strip_prefix('\'').unwrap()
            } else {
                back
            };
            assert_eq!(undone, expected);
        }
    }
});
