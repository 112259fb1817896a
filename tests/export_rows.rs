//! `export`'s rows against a model of the rules, on random headers: the first
//! pair of a name fills its column, an integer column holds what reads as an
//! `i32` (a value that does not, unless it is `?`, `-` or blank, is kept as
//! written in `other_tags`), other tags keep header order, and later pairs of a
//! name follow as `NAME#n`. Runs through the library with random chunk sizes,
//! one or two threads, mapped or read, so that the rows come from blocks
//! sealed by workers, by the merger's rescans and across chunk cuts.

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use proptest::prelude::*;

use pgnfen::export::{self, ExportOptions};
use pgnfen::pipeline::{Input, Options};

/// Names met in the generated headers: text columns, integer columns, the
/// fixed `Variant` column and tags without a column.
const NAMES: [&str; 7] = [
    "Event", "White", "WhiteElo", "BlackElo", "Variant", "Foo", "Bar",
];
const INTEGER: [&str; 2] = ["WhiteElo", "BlackElo"];
const COLUMNS: [&str; 5] = ["Event", "White", "WhiteElo", "BlackElo", "variant"];

/// A tag value as it is meant (unescaped): digits and signs for the integer
/// columns' sake, the PGN placeholders, quotes and backslashes to escape.
fn value() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "1", "2", "0", "-", "+", "?", " ", "a", "é", "\"", "\\",
        ]),
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// Games of one to seven tags (a game without a tag line is no game of its
/// own: its movetext joins the game before it).
fn headers() -> impl Strategy<Value = Vec<Vec<(usize, String)>>> {
    prop::collection::vec(
        prop::collection::vec((0..NAMES.len(), value()), 1..8),
        1..25,
    )
}

fn pgn(games: &[Vec<(usize, String)>]) -> String {
    let mut text = String::new();
    for tags in games {
        for (name, value) in tags {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            text.push_str(&format!("[{} \"{escaped}\"]\n", NAMES[*name]));
        }
        text.push_str("\n1. e4 *\n\n");
    }
    text
}

/// One row as the rules make it: (column, value) for the columns a game
/// fills, then `other_tags` in order.
type Expected = (Vec<(&'static str, String)>, Vec<(String, String)>);

fn expected(tags: &[(usize, String)]) -> Expected {
    let mut columns = Vec::new();
    let mut others = Vec::new();
    let mut repeats = Vec::new();
    for (i, (name, value)) in tags.iter().enumerate() {
        let name = NAMES[*name];
        let earlier = tags[..i].iter().filter(|(n, _)| NAMES[*n] == name).count();
        if earlier > 0 {
            repeats.push((format!("{name}#{}", earlier + 1), value.clone()));
            continue;
        }
        let column = if name == "Variant" { "variant" } else { name };
        if !COLUMNS.contains(&column) {
            others.push((name.to_string(), value.clone()));
        } else if INTEGER.contains(&name) {
            match value.trim_ascii().parse::<i32>() {
                Ok(n) => columns.push((column, n.to_string())),
                Err(_) if !matches!(value.trim_ascii(), "" | "?" | "-") => {
                    others.push((name.to_string(), value.clone()));
                }
                Err(_) => {}
            }
        } else {
            columns.push((column, value.clone()));
        }
    }
    others.extend(repeats);
    columns.sort_by_key(|(column, _)| COLUMNS.iter().position(|c| c == column));
    (columns, others)
}

fn actual(batch: &RecordBatch, row: usize) -> Expected {
    let mut columns = Vec::new();
    for name in COLUMNS {
        let array = batch.column_by_name(name).unwrap();
        if array.is_null(row) {
            continue;
        }
        let text = if INTEGER.contains(&name) {
            array.as_primitive::<Int32Type>().value(row).to_string()
        } else {
            array.as_string::<i32>().value(row).to_string()
        };
        columns.push((name, text));
    }
    let map = batch.column_by_name("other_tags").unwrap().as_map();
    let entries = map.value(row);
    let keys = entries.column(0).as_string::<i32>();
    let values = entries.column(1).as_string::<i32>();
    let others = (0..entries.len())
        .map(|i| (keys.value(i).to_string(), values.value(i).to_string()))
        .collect();
    (columns, others)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn rows_follow_the_rules(
        games in headers(),
        target in 16usize..600,
        threads in 1usize..=2,
        mmap: bool,
        batch_rows in 1usize..10,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.pgn");
        std::fs::write(&path, pgn(&games)).unwrap();
        let inputs = [Input::File(path)];
        let options = ExportOptions {
            tags: export::TagColumns::Named(
                ["Event", "White", "WhiteElo", "BlackElo"].map(String::from).to_vec(),
            ),
            batch_rows,
            ..ExportOptions::default()
        };
        let run = Options { mmap, chunk_sizes: (target, 1 << 20), ..Options::new(threads) };
        let columns = export::columns(&inputs, &options, &run).unwrap();
        let mut rows = Vec::new();
        for batch in export::batches(&inputs, columns, &options, &run) {
            let batch = batch.unwrap();
            prop_assert!(batch.num_rows() <= batch_rows);
            for row in 0..batch.num_rows() {
                rows.push(actual(&batch, row));
            }
        }
        let wanted: Vec<Expected> = games.iter().map(|tags| expected(tags)).collect();
        prop_assert_eq!(rows, wanted);
    }
}
