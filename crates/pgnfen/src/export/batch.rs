//! Rows into Arrow record batches, on the merger thread (in input order).

use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, Int16Builder, Int32Builder, Int64Builder, ListBuilder, MapBuilder,
    MapFieldNames, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;

use super::columns::{self, Columns};
use super::row::Row;
use crate::pipeline::GameInfo;
use crate::speed::Speed;

/// Builds one record batch at a time.
pub struct BatchBuilder {
    schema: SchemaRef,
    integer: Vec<bool>,
    file: StringBuilder,
    game: Int64Builder,
    offset: Int64Builder,
    length: Int64Builder,
    line: Int64Builder,
    class: StringBuilder,
    chess960_position: Int16Builder,
    speed: StringBuilder,
    time_base: Float64Builder,
    time_increment: Float64Builder,
    variant: StringBuilder,
    fen: StringBuilder,
    problems: ListBuilder<StringBuilder>,
    tags: Vec<TagBuilder>,
    other_tags: MapBuilder<StringBuilder, StringBuilder>,
    rows: usize,
    /// Bytes of text appended since the last batch (see [`Self::text_bytes`]).
    text_bytes: usize,
}

enum TagBuilder {
    Text(StringBuilder),
    Integer(Int32Builder),
}

/// An Elo (or other integer tag) value: an optional sign and ASCII digits that
/// fit 32 bits, as Rust reads an integer; anything else (`?`, `-`, `2500?`,
/// blanks) is null.
pub fn integer(value: &str) -> Option<i32> {
    value.parse().ok()
}

impl BatchBuilder {
    /// A builder of batches with the columns of `columns`.
    pub fn new(columns: &Columns) -> BatchBuilder {
        let tags = (0..columns.tags().len())
            .map(|i| {
                if columns.is_integer(i) {
                    TagBuilder::Integer(Int32Builder::new())
                } else {
                    TagBuilder::Text(StringBuilder::new())
                }
            })
            .collect();
        BatchBuilder {
            schema: columns.schema(),
            integer: (0..columns.tags().len())
                .map(|i| columns.is_integer(i))
                .collect(),
            file: StringBuilder::new(),
            game: Int64Builder::new(),
            offset: Int64Builder::new(),
            length: Int64Builder::new(),
            line: Int64Builder::new(),
            class: StringBuilder::new(),
            chess960_position: Int16Builder::new(),
            speed: StringBuilder::new(),
            time_base: Float64Builder::new(),
            time_increment: Float64Builder::new(),
            variant: StringBuilder::new(),
            fen: StringBuilder::new(),
            problems: ListBuilder::new(StringBuilder::new())
                .with_field(Arc::new(columns::problems_item())),
            tags,
            other_tags: MapBuilder::new(
                Some(MapFieldNames {
                    entry: "entries".into(),
                    key: "key".into(),
                    value: "value".into(),
                }),
                StringBuilder::new(),
                StringBuilder::new(),
            )
            .with_keys_field(Arc::new(columns::other_tags_key()))
            .with_values_field(Arc::new(columns::other_tags_value())),
            rows: 0,
            text_bytes: 0,
        }
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows appended since the last [`Self::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Bytes of text (file names and the rows' values and names) appended
    /// since the last [`Self::finish`]: what a batch of long values weighs.
    pub fn text_bytes(&self) -> usize {
        self.text_bytes
    }

    /// Whether no row was appended since the last batch.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends a game's row.
    pub fn append(&mut self, file: &str, info: &GameInfo, length: u64, row: &Row) {
        self.file.append_value(file);
        self.game.append_value(info.index as i64);
        self.offset.append_value(info.offset as i64);
        self.length.append_value(length as i64);
        self.line.append_value(info.line as i64);
        self.class.append_value(row.class.as_str());
        self.chess960_position
            .append_option(row.chess960_position.map(|n| n as i16));
        let clock = &row.clock;
        self.speed
            .append_option((clock.speed != Speed::Unknown).then(|| clock.speed.as_str()));
        self.time_base.append_option(clock.base);
        self.time_increment.append_option(clock.increment);
        let mut values = row.values().peekable();
        let mut take = |slot: usize| values.next_if(|v| v.0 == slot).map(|v| v.1);
        self.variant.append_option(take(0));
        self.fen.append_option(take(1));
        for code in row.problems.iter() {
            self.problems.values().append_value(code.as_str());
        }
        self.problems.append(true);
        for (i, tag) in self.tags.iter_mut().enumerate() {
            match tag {
                TagBuilder::Text(b) => b.append_option(take(2 + i)),
                TagBuilder::Integer(b) => b.append_option(take(2 + i).and_then(integer)),
            }
        }
        for (name, value) in row.other_tags() {
            self.other_tags.keys().append_value(name);
            self.other_tags.values().append_value(value);
        }
        // Keys and values were appended in pairs: the lengths agree.
        let _ = self.other_tags.append(true);
        self.rows += 1;
        self.text_bytes += file.len() + row.text_len();
    }

    /// The rows appended so far as a batch; the builder starts empty again.
    pub fn finish(&mut self) -> RecordBatch {
        let mut arrays: Vec<ArrayRef> = vec![
            Arc::new(self.file.finish()),
            Arc::new(self.game.finish()),
            Arc::new(self.offset.finish()),
            Arc::new(self.length.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.class.finish()),
            Arc::new(self.chess960_position.finish()),
            Arc::new(self.speed.finish()),
            Arc::new(self.time_base.finish()),
            Arc::new(self.time_increment.finish()),
            Arc::new(self.variant.finish()),
            Arc::new(self.fen.finish()),
            Arc::new(self.problems.finish()),
        ];
        for tag in &mut self.tags {
            arrays.push(match tag {
                TagBuilder::Text(b) => Arc::new(b.finish()),
                TagBuilder::Integer(b) => Arc::new(b.finish()),
            });
        }
        arrays.push(Arc::new(self.other_tags.finish()));
        self.rows = 0;
        self.text_bytes = 0;
        debug_assert_eq!(self.integer.len(), self.tags.len());
        // The arrays follow the schema by construction (same builder per field).
        RecordBatch::try_new(self.schema.clone(), arrays)
            .expect("the builders make the schema's arrays")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(integer("2500"), Some(2500));
        assert_eq!(integer("-5"), Some(-5));
        assert_eq!(integer("+7"), Some(7));
        for bad in ["", "?", "-", "2500?", " 2500", "1e3", "99999999999"] {
            assert_eq!(integer(bad), None, "{bad:?}");
        }
    }
}
