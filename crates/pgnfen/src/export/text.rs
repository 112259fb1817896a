//! The text formats of `export`: CSV (the `csv` crate) and JSON lines (JSON
//! strings escaped by `serde_json`), written from the same record batches as
//! Parquet, so that the three hold the same rows.
//!
//! JSON lines: one object per row, keys in column order, nulls as `null`,
//! `problems` an array of strings, `other_tags` an object (tag order kept).
//! CSV: a header row, then one record per row; a null is an empty field (as
//! is an empty string: CSV cannot tell them apart, and DuckDB and pandas read
//! both as null); `problems` and `other_tags` are JSON text in their field.

use std::io::{self, Write};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int16Type, Int32Type, Int64Type};
use arrow_array::{Array, MapArray, RecordBatch};
use arrow_schema::DataType;

/// A column of a batch, by the type it has in the export's schema.
enum Column<'a> {
    Text(&'a arrow_array::StringArray),
    I64(&'a arrow_array::Int64Array),
    I32(&'a arrow_array::Int32Array),
    I16(&'a arrow_array::Int16Array),
    F64(&'a arrow_array::Float64Array),
    List(&'a arrow_array::ListArray),
    Map(&'a MapArray),
}

fn columns(batch: &RecordBatch) -> io::Result<Vec<Column<'_>>> {
    batch
        .columns()
        .iter()
        .map(|c| {
            Ok(match c.data_type() {
                DataType::Utf8 => Column::Text(c.as_string::<i32>()),
                DataType::Int64 => Column::I64(c.as_primitive::<Int64Type>()),
                DataType::Int32 => Column::I32(c.as_primitive::<Int32Type>()),
                DataType::Int16 => Column::I16(c.as_primitive::<Int16Type>()),
                DataType::Float64 => Column::F64(c.as_primitive::<Float64Type>()),
                DataType::List(_) => Column::List(c.as_list::<i32>()),
                DataType::Map(..) => Column::Map(c.as_map()),
                other => {
                    return Err(io::Error::other(format!(
                        "export: no text form for a column of type {other}"
                    )));
                }
            })
        })
        .collect()
}

/// A JSON string.
fn json_string(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// `problems` of row `i` as a JSON array.
fn json_list(out: &mut Vec<u8>, list: &arrow_array::ListArray, i: usize) {
    let values = list.values().as_string::<i32>();
    let offsets = list.value_offsets();
    out.push(b'[');
    for (k, j) in (offsets[i] as usize..offsets[i + 1] as usize).enumerate() {
        if k > 0 {
            out.push(b',');
        }
        json_string(out, values.value(j));
    }
    out.push(b']');
}

/// `other_tags` of row `i` as a JSON object.
fn json_map(out: &mut Vec<u8>, map: &MapArray, i: usize) {
    let keys = map.keys().as_string::<i32>();
    let values = map.values().as_string::<i32>();
    let offsets = map.value_offsets();
    out.push(b'{');
    for (k, j) in (offsets[i] as usize..offsets[i + 1] as usize).enumerate() {
        if k > 0 {
            out.push(b',');
        }
        json_string(out, keys.value(j));
        out.push(b':');
        json_string(out, values.value(j));
    }
    out.push(b'}');
}

/// Writes row `i` of `column` as JSON (`null` when null).
fn json_value(out: &mut Vec<u8>, column: &Column<'_>, i: usize) {
    let null = match column {
        Column::Text(a) => a.is_null(i),
        Column::I64(a) => a.is_null(i),
        Column::I32(a) => a.is_null(i),
        Column::I16(a) => a.is_null(i),
        // JSON has no infinity: a clock too long for a double is null.
        Column::F64(a) => a.is_null(i) || !a.value(i).is_finite(),
        Column::List(a) => a.is_null(i),
        Column::Map(a) => a.is_null(i),
    };
    if null {
        out.extend_from_slice(b"null");
        return;
    }
    match column {
        Column::Text(a) => json_string(out, a.value(i)),
        Column::I64(a) => {
            let _ = write!(out, "{}", a.value(i));
        }
        Column::I32(a) => {
            let _ = write!(out, "{}", a.value(i));
        }
        Column::I16(a) => {
            let _ = write!(out, "{}", a.value(i));
        }
        Column::F64(a) => {
            // `{:?}` keeps the point (`300.0`): readers that infer types see a float.
            let _ = write!(out, "{:?}", a.value(i));
        }
        Column::List(a) => json_list(out, a, i),
        Column::Map(a) => json_map(out, a, i),
    }
}

/// Writes JSON lines.
#[derive(Debug)]
pub struct JsonLines<W: Write> {
    out: W,
    /// Each column's key, escaped, with its colon: `"name":`.
    keys: Vec<Vec<u8>>,
    line: Vec<u8>,
}

impl<W: Write> JsonLines<W> {
    /// JSON lines to `out`, with these column names.
    pub fn new(out: W, names: &[&str]) -> JsonLines<W> {
        let keys = names
            .iter()
            .map(|n| {
                let mut k = Vec::new();
                json_string(&mut k, n);
                k.push(b':');
                k
            })
            .collect();
        JsonLines {
            out,
            keys,
            line: Vec::with_capacity(1024),
        }
    }

    /// Writes one JSON object per row of `batch`.
    pub fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        let columns = columns(batch)?;
        for i in 0..batch.num_rows() {
            self.line.clear();
            self.line.push(b'{');
            for (c, (key, column)) in self.keys.iter().zip(&columns).enumerate() {
                if c > 0 {
                    self.line.push(b',');
                }
                self.line.extend_from_slice(key);
                json_value(&mut self.line, column, i);
            }
            self.line.extend_from_slice(b"}\n");
            self.out.write_all(&self.line)?;
        }
        Ok(())
    }

    /// The writer, once everything is written.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Writes CSV. Text cells are shown as [`crate::escape::csv_cell`] says
/// (control characters escaped, a quote before a formula start) unless raw.
#[derive(Debug)]
pub struct Csv<W: Write> {
    out: csv::Writer<W>,
    field: Vec<u8>,
    raw: bool,
}

impl<W: Write> Csv<W> {
    /// CSV to `out`: the header row of these column names first; text cells
    /// neutralised for spreadsheets.
    pub fn new(out: W, names: &[&str]) -> io::Result<Csv<W>> {
        Csv::with_raw(out, names, false)
    }

    /// CSV to `out`; `raw`: text cells written as they are (`--csv-raw`).
    pub fn with_raw(out: W, names: &[&str], raw: bool) -> io::Result<Csv<W>> {
        let mut out = csv::WriterBuilder::new().from_writer(out);
        let header: Vec<_> = names
            .iter()
            .map(|n| crate::escape::csv_cell(n, raw))
            .collect();
        out.write_record(header.iter().map(|n| n.as_bytes()))
            .map_err(csv_error)?;
        Ok(Csv {
            out,
            field: Vec::with_capacity(256),
            raw,
        })
    }

    /// Writes one CSV record per row of `batch`.
    pub fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        let columns = columns(batch)?;
        for i in 0..batch.num_rows() {
            for column in &columns {
                self.field.clear();
                match column {
                    Column::Text(a) if a.is_null(i) => {}
                    Column::Text(a) => self.field.extend_from_slice(
                        crate::escape::csv_cell(a.value(i), self.raw).as_bytes(),
                    ),
                    // A clock too long for a double: `inf`, as Parquet holds
                    // it (JSON, which has no infinity, writes null).
                    Column::F64(a) if a.is_valid(i) && a.value(i) == f64::INFINITY => {
                        self.field.extend_from_slice(b"inf");
                    }
                    // JSON text (problems, other_tags) starts with `[` or `{`
                    // and has its control characters escaped by JSON.
                    // Numbers and JSON text: as in JSON lines, nulls left empty.
                    other => {
                        json_value(&mut self.field, other, i);
                        if self.field == b"null" {
                            self.field.clear();
                        }
                    }
                }
                self.out.write_field(&self.field).map_err(csv_error)?;
            }
            self.out.write_record(None::<&[u8]>).map_err(csv_error)?;
        }
        Ok(())
    }

    /// The writer, once everything is written (flushed).
    pub fn into_inner(self) -> io::Result<W> {
        self.out.into_inner().map_err(|e| e.into_error())
    }
}

/// A `csv` error as the I/O error it wraps (the only kind writing can raise).
fn csv_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}
