//! Rows into Arrow record batches, on the merger thread (in input order).

use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, Int16Builder, Int64Builder, ListBuilder, MapBuilder, MapFieldNames,
    StringBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
use arrow_buffer::{Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, SchemaRef};

use super::columns::{self, Columns};
use super::row::{Block, Row, SlotValues};
use crate::pipeline::GameInfo;
use crate::speed::Speed;

/// Builds one record batch at a time.
pub struct BatchBuilder {
    schema: SchemaRef,
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
    problems: ListBuilder<StringBuilder>,
    /// `variant`, `fen` and the tag columns, by slot (see [`Row`]).
    slots: Vec<SlotColumn>,
    other_tags: MapBuilder<StringBuilder, StringBuilder>,
    /// Consecutive rows of one block not yet in `slots`.
    run: Option<(Arc<Block>, std::ops::Range<u32>)>,
    rows: usize,
    /// Bytes of text appended since the last batch (see [`Self::text_bytes`]).
    text_bytes: usize,
}

/// A column filled from blocks, a run of rows at a time: a text column's
/// values are copied in one piece per run, then their offsets and validity
/// are set row by row.
enum SlotColumn {
    Text {
        values: Vec<u8>,
        /// Starts with 0; one more per row.
        offsets: Vec<i32>,
        valid: NullBufferBuilder,
    },
    Integer {
        values: Vec<i32>,
        valid: NullBufferBuilder,
    },
}

impl SlotColumn {
    fn text() -> SlotColumn {
        SlotColumn::Text {
            values: Vec::new(),
            offsets: vec![0],
            valid: NullBufferBuilder::new(0),
        }
    }

    fn integer() -> SlotColumn {
        SlotColumn::Integer {
            values: Vec::new(),
            valid: NullBufferBuilder::new(0),
        }
    }

    /// Appends the rows `rows` of a block, whose values for this column are
    /// `slot` (none: all null).
    fn extend(&mut self, slot: Option<&SlotValues>, rows: std::ops::Range<u32>) {
        let n = rows.len();
        let entries = slot.map_or(0..0, |s| s.entries(&rows));
        match (self, slot) {
            (
                SlotColumn::Text {
                    values,
                    offsets,
                    valid,
                },
                Some(slot),
            ) if !entries.is_empty() => {
                let (from, to) = (slot.start(entries.start), slot.start(entries.end));
                // Where the block's text offsets land in this column's values.
                let shift = values.len() as i64 - from as i64;
                values.extend_from_slice(&slot.text.as_bytes()[from..to]);
                // A batch holds a few MiB of text (BATCH_BYTES plus one
                // header): far from i32::MAX.
                let at = |end: u32| (shift + i64::from(end)) as i32;
                if entries.len() == n {
                    // Every row has a value (the usual case: Event, White,
                    // Result ...): the offsets are the ends, shifted.
                    offsets.extend(slot.ends[entries].iter().map(|&end| at(end)));
                    valid.append_n_non_nulls(n);
                    return;
                }
                let mut last = *offsets.last().unwrap_or(&0);
                let mut k = entries.start;
                for row in rows {
                    let has = k < entries.end && slot.rows[k] == row;
                    if has {
                        last = at(slot.ends[k]);
                        k += 1;
                    }
                    offsets.push(last);
                    valid.append(has);
                }
            }
            (SlotColumn::Text { offsets, valid, .. }, _) => {
                let last = *offsets.last().unwrap_or(&0);
                offsets.extend(std::iter::repeat_n(last, n));
                valid.append_n_nulls(n);
            }
            (SlotColumn::Integer { values, valid }, Some(slot)) if entries.len() == n => {
                values.extend_from_slice(&slot.integers[entries]);
                valid.append_n_non_nulls(n);
            }
            (SlotColumn::Integer { values, valid }, Some(slot)) if !entries.is_empty() => {
                let mut k = entries.start;
                for row in rows {
                    let has = k < entries.end && slot.rows[k] == row;
                    values.push(if has { slot.integers[k] } else { 0 });
                    k += usize::from(has);
                    valid.append(has);
                }
            }
            (SlotColumn::Integer { values, valid }, _) => {
                values.extend(std::iter::repeat_n(0, n));
                valid.append_n_nulls(n);
            }
        }
    }

    /// The rows so far as an array; the column starts empty again.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        Ok(match self {
            SlotColumn::Text {
                values,
                offsets,
                valid,
            } => {
                // The next batch's buffers are sized as this one's: grown by
                // doubling instead, a batch's buffers held up to twice their
                // bytes until it was written.
                let mut next = Vec::with_capacity(offsets.len());
                next.push(0);
                let offsets = ScalarBuffer::from(std::mem::replace(offsets, next));
                // SAFETY: the offsets start at 0 and never decrease (the
                // array's SAFETY below says why). `OffsetBuffer::new` checked
                // that again, one load after the other: 1 % of `export`'s CPU
                // time in a profile.
                let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
                let next = Vec::with_capacity(values.len());
                let values = Buffer::from_vec(std::mem::replace(values, next));
                let nulls = valid.finish();
                // Checked in tests and debug builds (the property test below).
                if cfg!(any(debug_assertions, test)) {
                    StringArray::try_new(offsets.clone(), values.clone(), nulls.clone())?
                        .to_data()
                        .validate_full()?;
                }
                // SAFETY: `values` is whole runs of `SlotValues::text` (a
                // String) cut at entry ends, and every offset is such an end
                // (`push_str` in row.rs records them), shifted to where its
                // run landed: valid UTF-8 cut at character boundaries, offsets
                // starting at 0 and ascending to `values.len()` (runs are
                // appended in order, each run's ends ascend, and a row without
                // a value repeats the last offset), one more than the rows, as
                // many nulls as rows. Arrow's check of all that (UTF-8 again,
                // every byte) was 2 % of `export`'s CPU time.
                Arc::new(unsafe { StringArray::new_unchecked(offsets, values, nulls) })
            }
            SlotColumn::Integer { values, valid } => {
                let next = Vec::with_capacity(values.len());
                Arc::new(Int32Array::try_new(
                    ScalarBuffer::from(std::mem::replace(values, next)),
                    valid.finish(),
                )?)
            }
        })
    }
}

/// The builder of the `other_tags` column, with room for `rows` rows of
/// `entries` pairs in all, whose names and values take `key_bytes` and
/// `value_bytes`.
fn other_tags_builder(
    rows: usize,
    entries: usize,
    key_bytes: usize,
    value_bytes: usize,
) -> MapBuilder<StringBuilder, StringBuilder> {
    MapBuilder::with_capacity(
        Some(MapFieldNames {
            entry: "entries".into(),
            key: "key".into(),
            value: "value".into(),
        }),
        StringBuilder::with_capacity(entries, key_bytes),
        StringBuilder::with_capacity(entries, value_bytes),
        rows,
    )
    .with_keys_field(Arc::new(columns::other_tags_key()))
    .with_values_field(Arc::new(columns::other_tags_value()))
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
        let slots = [SlotColumn::text(), SlotColumn::text()]
            .into_iter()
            .chain((0..columns.tags().len()).map(|i| {
                if columns.is_integer(i) {
                    SlotColumn::integer()
                } else {
                    SlotColumn::text()
                }
            }))
            .collect();
        BatchBuilder {
            schema: columns.schema(),
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
            problems: ListBuilder::new(StringBuilder::new())
                .with_field(Arc::new(columns::problems_item())),
            slots,
            other_tags: other_tags_builder(0, 0, 0, 0),
            run: None,
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

    /// Appends a game's row (one that has its block: see [`Row::block`]).
    pub fn append(&mut self, file: &str, info: &GameInfo, length: u64, row: &Row) {
        self.file.append_value(file);
        self.game.append_value(info.index as i64);
        self.offset.append_value(info.offset as i64);
        self.length.append_value(length as i64);
        self.line.append_value(info.line as i64);
        self.class.append_value(row.class.as_str());
        self.chess960_position
            .append_option(row.chess960_position.map(|n| n as i16));
        let clock = row.clock();
        self.speed
            .append_option((clock.speed != Speed::Unknown).then(|| clock.speed.as_str()));
        self.time_base.append_option(clock.base);
        self.time_increment.append_option(clock.increment);
        for code in row.problems.iter() {
            self.problems.values().append_value(code.as_str());
        }
        self.problems.append(true);
        if let Some((block, index)) = row.block() {
            match &mut self.run {
                Some((run_block, rows)) if Arc::ptr_eq(run_block, block) && rows.end == index => {
                    rows.end += 1;
                }
                _ => {
                    self.flush_run();
                    self.run = Some((Arc::clone(block), index..index + 1));
                }
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

    /// The values of the pending run of rows into their columns.
    fn flush_run(&mut self) {
        if let Some((block, rows)) = self.run.take() {
            for (i, column) in self.slots.iter_mut().enumerate() {
                column.extend(block.slot(i), rows.clone());
            }
        }
    }

    /// The rows appended so far as a batch; the builder starts empty again.
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        self.flush_run();
        let mut slots = Vec::with_capacity(self.slots.len());
        for column in &mut self.slots {
            slots.push(column.finish()?);
        }
        let mut slots = slots.into_iter();
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
        ];
        // Slots 0 and 1 (variant, fen) come before the problems, the tag
        // columns after them.
        arrays.extend(slots.by_ref().take(2));
        arrays.push(Arc::new(self.problems.finish()));
        arrays.extend(slots);
        let other_tags = self.other_tags.finish();
        // Sized as this batch's, as the slots' buffers are.
        let (keys, values) = (
            other_tags.keys().as_string::<i32>(),
            other_tags.values().as_string::<i32>(),
        );
        self.other_tags = other_tags_builder(
            Array::len(&other_tags),
            keys.len(),
            keys.value_data().len(),
            values.value_data().len(),
        );
        arrays.push(Arc::new(other_tags));
        self.rows = 0;
        self.text_bytes = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use proptest::prelude::*;

    /// A block's values of one column: the rows with a value, as the workers
    /// stage them.
    fn staged_text(cells: &[Option<String>]) -> SlotValues {
        let mut slot = SlotValues::default();
        for (row, cell) in cells.iter().enumerate() {
            if let Some(value) = cell {
                slot.rows.push(row as u32);
                slot.text.push_str(value);
                slot.ends.push(slot.text.len() as u32);
            }
        }
        slot
    }

    fn staged_integers(cells: &[Option<i32>]) -> SlotValues {
        let mut slot = SlotValues::default();
        for (row, cell) in cells.iter().enumerate() {
            if let Some(value) = cell {
                slot.rows.push(row as u32);
                slot.integers.push(*value);
            }
        }
        slot
    }

    /// The rows `0..len` cut into runs at `cuts`, as the merger meets them.
    fn runs(len: usize, cuts: &[usize]) -> Vec<std::ops::Range<u32>> {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (len + 1)).collect();
        cuts.extend([0, len]);
        cuts.sort_unstable();
        cuts.dedup();
        cuts.windows(2).map(|w| w[0] as u32..w[1] as u32).collect()
    }

    proptest! {
        /// A column filled a run of rows at a time (with its shortcut for
        /// runs where every row has a value) holds what the rows hold, cell
        /// by cell, whatever the runs; so does a column after a block that
        /// has no values for it, and after an earlier batch.
        #[test]
        fn columns_filled_by_runs_hold_the_rows_values(
            text in prop::collection::vec(prop::option::weighted(0.8, "[a-z\u{e9}]{0,4}"), 1..40),
            integers in prop::collection::vec(prop::option::weighted(0.8, any::<i32>()), 1..40),
            cuts in prop::collection::vec(any::<usize>(), 0..8),
            nulls_first in 0..3usize,
        ) {
            // Twice: a column that finished a batch starts the next one empty.
            let (mut texts, mut ints) = (SlotColumn::text(), SlotColumn::integer());
            for _ in 0..2 {
                let column = &mut texts;
                column.extend(None, 0..nulls_first as u32);
                let slot = staged_text(&text);
                for run in runs(text.len(), &cuts) {
                    column.extend(Some(&slot), run);
                }
                let got = column.finish().unwrap();
                got.to_data().validate_full().unwrap();
                let expected: Vec<Option<&str>> = std::iter::repeat_n(None, nulls_first)
                    .chain(text.iter().map(|c| c.as_deref()))
                    .collect();
                prop_assert_eq!(got.as_string::<i32>(), &StringArray::from(expected));

                let column = &mut ints;
                column.extend(None, 0..nulls_first as u32);
                let slot = staged_integers(&integers);
                for run in runs(integers.len(), &cuts) {
                    column.extend(Some(&slot), run);
                }
                let got = column.finish().unwrap();
                let expected: Vec<Option<i32>> = std::iter::repeat_n(None, nulls_first)
                    .chain(integers.iter().copied())
                    .collect();
                prop_assert_eq!(got.as_primitive::<Int32Type>(), &Int32Array::from(expected));
            }
        }
    }

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
