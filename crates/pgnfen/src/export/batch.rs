//! Rows into Arrow record batches, on the merger thread (in input order).

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, MapBuilder, MapFieldNames, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int16Type, Int32Type};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, Int64Array, PrimitiveArray, RecordBatch, StringArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, SchemaRef};

use super::columns::{self, Columns};
use super::row::{Block, Row, SlotValues};
use crate::pipeline::GameInfo;
use crate::speed::Speed;

/// Builds one record batch at a time.
pub struct BatchBuilder {
    schema: SchemaRef,
    file: TextColumn,
    game: Numbers,
    offset: Numbers,
    length: Numbers,
    line: Numbers,
    class: TextColumn,
    chess960_position: NumberColumn<Int16Type>,
    speed: TextColumn,
    time_base: NumberColumn<Float64Type>,
    time_increment: NumberColumn<Float64Type>,
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

/// Which rows of a column have a value: a flag a row, packed into Arrow's
/// bitmap only when the batch is finished, and no bitmap at all when every
/// row has one. Arrow's `NullBufferBuilder` sets each row's bit as it goes:
/// a dozen instructions a row, where a byte's store is one.
struct Validity {
    /// 1 for a value, 0 for a null.
    flags: Vec<u8>,
    nulls: usize,
}

impl Validity {
    fn new() -> Validity {
        Validity {
            flags: Vec::new(),
            nulls: 0,
        }
    }

    #[inline]
    fn push(&mut self, valid: bool) {
        self.flags.push(u8::from(valid));
        self.nulls += usize::from(!valid);
    }

    fn push_n(&mut self, n: usize, valid: bool) {
        self.flags.extend(std::iter::repeat_n(u8::from(valid), n));
        if !valid {
            self.nulls += n;
        }
    }

    /// The rows so far as Arrow's null buffer (none: no row is null); the
    /// record starts empty again (keeping its room).
    fn finish(&mut self) -> Option<NullBuffer> {
        let nulls = std::mem::take(&mut self.nulls);
        let buffer = (nulls > 0).then(|| NullBuffer::new(pack(&self.flags)));
        self.flags.clear();
        buffer
    }
}

/// Flags (bytes of 0 or 1) as a bitmap, the first in the lowest bit. Eight
/// at a time: the multiplication moves the flag of byte `j` of the word to
/// bit `56 + j` (every other product lands elsewhere, and no carry reaches
/// those bits), a few instructions for eight rows where Arrow's
/// `collect_bool` took three a row.
fn pack(flags: &[u8]) -> BooleanBuffer {
    let mut bytes = Vec::with_capacity(flags.len().div_ceil(8));
    let chunks = flags.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        bytes.push((word.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8);
    }
    if !rest.is_empty() {
        bytes.push(rest.iter().enumerate().fold(0u8, |b, (j, &f)| b | f << j));
    }
    BooleanBuffer::new(Buffer::from_vec(bytes), 0, flags.len())
}

/// A text column: the values end to end, where each ends, and which rows
/// have none.
struct TextColumn {
    values: Vec<u8>,
    /// Starts with 0; one more per row.
    offsets: Vec<i32>,
    valid: Validity,
}

impl TextColumn {
    fn new() -> TextColumn {
        TextColumn {
            values: Vec::new(),
            offsets: vec![0],
            valid: Validity::new(),
        }
    }

    /// The offset of the values' end: a batch holds a few MiB of text
    /// (BATCH_BYTES plus one header, whose pairs the pipeline bounds), far
    /// from `i32::MAX`.
    #[inline]
    fn end(&self) -> i32 {
        debug_assert!(i32::try_from(self.values.len()).is_ok());
        self.values.len() as i32
    }

    /// Appends a row: `value`, or null.
    #[inline]
    fn push(&mut self, value: Option<&str>) {
        if let Some(value) = value {
            self.values.extend_from_slice(value.as_bytes());
        }
        self.offsets.push(self.end());
        self.valid.push(value.is_some());
    }

    /// The rows so far as an array; the column starts empty again, with
    /// room for as many rows and bytes.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        // The next batch's buffers are sized as this one's: grown by
        // doubling instead, a batch's buffers held up to twice their
        // bytes until it was written.
        let mut next = Vec::with_capacity(self.offsets.len());
        next.push(0);
        let offsets = ScalarBuffer::from(std::mem::replace(&mut self.offsets, next));
        // SAFETY: the offsets start at 0 and never decrease (the
        // array's SAFETY below says why). `OffsetBuffer::new` checked
        // that again, one load after the other: 1 % of `export`'s CPU
        // time in a profile.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        let next = Vec::with_capacity(self.values.len());
        let values = Buffer::from_vec(std::mem::replace(&mut self.values, next));
        let nulls = self.valid.finish();
        // Checked in tests and debug builds (the property tests below).
        if cfg!(any(debug_assertions, test)) {
            StringArray::try_new(offsets.clone(), values.clone(), nulls.clone())?
                .to_data()
                .validate_full()?;
        }
        // SAFETY: `values` is whole `str`s ([`Self::push`]) and whole runs
        // of `SlotValues::text` (a String) cut at entry ends, and every
        // offset is the end of such a value (`push_str` in row.rs records
        // the entry ends), shifted to where its run landed: valid UTF-8 cut
        // at character boundaries, offsets starting at 0 and ascending to
        // `values.len()` (values and runs are appended in order, each run's
        // ends ascend, and a row without a value repeats the last offset),
        // one more than the rows, as many flags as rows. Arrow's check of
        // all that (UTF-8 again, every byte) was 2 % of `export`'s CPU time.
        Ok(Arc::new(unsafe {
            StringArray::new_unchecked(offsets, values, nulls)
        }))
    }
}

/// A column of numbers: the values (0 for a null) and which rows have none.
struct NumberColumn<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    valid: Validity,
}

impl<T: ArrowPrimitiveType> NumberColumn<T> {
    fn new() -> NumberColumn<T> {
        NumberColumn {
            values: Vec::new(),
            valid: Validity::new(),
        }
    }

    /// Appends a row: `value`, or null.
    #[inline]
    fn push(&mut self, value: Option<T::Native>) {
        self.values.push(value.unwrap_or_default());
        self.valid.push(value.is_some());
    }

    /// The rows so far as an array; the column starts empty again, with
    /// room for as many rows.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let next = Vec::with_capacity(self.values.len());
        let values = ScalarBuffer::from(std::mem::replace(&mut self.values, next));
        Ok(Arc::new(PrimitiveArray::<T>::try_new(
            values,
            self.valid.finish(),
        )?))
    }
}

/// A column of numbers every row has (the game's number, offset, length
/// and line): only the values.
struct Numbers(Vec<i64>);

impl Numbers {
    /// The rows so far as an array; the column starts empty again, with
    /// room for as many rows.
    fn finish(&mut self) -> ArrayRef {
        let next = Vec::with_capacity(self.0.len());
        Arc::new(Int64Array::new(
            ScalarBuffer::from(std::mem::replace(&mut self.0, next)),
            None,
        ))
    }
}

/// A column filled from blocks, a run of rows at a time: a text column's
/// values are copied in one piece per run, then their offsets and validity
/// are set row by row.
enum SlotColumn {
    Text(TextColumn),
    Integer(NumberColumn<Int32Type>),
}

impl SlotColumn {
    fn text() -> SlotColumn {
        SlotColumn::Text(TextColumn::new())
    }

    fn integer() -> SlotColumn {
        SlotColumn::Integer(NumberColumn::new())
    }

    /// Appends the rows `rows` of a block, whose values for this column are
    /// `slot` (none: all null).
    fn extend(&mut self, slot: Option<&SlotValues>, rows: std::ops::Range<u32>) {
        let n = rows.len();
        let entries = slot.map_or(0..0, |s| s.entries(&rows));
        match (self, slot) {
            (
                SlotColumn::Text(TextColumn {
                    values,
                    offsets,
                    valid,
                }),
                Some(slot),
            ) if !entries.is_empty() => {
                let (from, to) = (slot.start(entries.start), slot.start(entries.end));
                // Where the block's text offsets land in this column's values.
                let shift = values.len() as i64 - from as i64;
                values.extend_from_slice(&slot.text.as_bytes()[from..to]);
                // A batch holds a few MiB of text (see `TextColumn::end`).
                let at = |end: u32| (shift + i64::from(end)) as i32;
                if entries.len() == n {
                    // Every row has a value (the usual case: Event, White,
                    // Result ...): the offsets are the ends, shifted.
                    offsets.extend(slot.ends[entries].iter().map(|&end| at(end)));
                    valid.push_n(n, true);
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
                    valid.push(has);
                }
            }
            (SlotColumn::Text(TextColumn { offsets, valid, .. }), _) => {
                let last = *offsets.last().unwrap_or(&0);
                offsets.extend(std::iter::repeat_n(last, n));
                valid.push_n(n, false);
            }
            (SlotColumn::Integer(NumberColumn { values, valid }), Some(slot))
                if entries.len() == n =>
            {
                values.extend_from_slice(&slot.integers[entries]);
                valid.push_n(n, true);
            }
            (SlotColumn::Integer(NumberColumn { values, valid }), Some(slot))
                if !entries.is_empty() =>
            {
                let mut k = entries.start;
                for row in rows {
                    let has = k < entries.end && slot.rows[k] == row;
                    values.push(if has { slot.integers[k] } else { 0 });
                    k += usize::from(has);
                    valid.push(has);
                }
            }
            (SlotColumn::Integer(NumberColumn { values, valid }), _) => {
                values.extend(std::iter::repeat_n(0, n));
                valid.push_n(n, false);
            }
        }
    }

    /// The rows so far as an array; the column starts empty again.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        match self {
            SlotColumn::Text(column) => column.finish(),
            SlotColumn::Integer(column) => column.finish(),
        }
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
/// fit 32 bits, as Rust reads an integer, with blanks around it ignored (as
/// `--tag WhiteElo>=2500` reads `" 2500"`); anything else (`?`, `-`,
/// `2500?`, blanks alone) is null.
pub fn integer(value: &str) -> Option<i32> {
    value.trim_ascii().parse().ok()
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
            file: TextColumn::new(),
            game: Numbers(Vec::new()),
            offset: Numbers(Vec::new()),
            length: Numbers(Vec::new()),
            line: Numbers(Vec::new()),
            class: TextColumn::new(),
            chess960_position: NumberColumn::new(),
            speed: TextColumn::new(),
            time_base: NumberColumn::new(),
            time_increment: NumberColumn::new(),
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
        self.file.push(Some(file));
        self.game.0.push(info.index as i64);
        self.offset.0.push(info.offset as i64);
        self.length.0.push(length as i64);
        self.line.0.push(info.line as i64);
        self.class.push(Some(row.class.as_str()));
        self.chess960_position
            .push(row.chess960_position.map(|n| n as i16));
        let clock = row.clock();
        self.speed
            .push((clock.speed != Speed::Unknown).then(|| clock.speed.as_str()));
        self.time_base.push(clock.base);
        self.time_increment.push(clock.increment);
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
            self.file.finish()?,
            self.game.finish(),
            self.offset.finish(),
            self.length.finish(),
            self.line.finish(),
            self.class.finish()?,
            self.chess960_position.finish()?,
            self.speed.finish()?,
            self.time_base.finish()?,
            self.time_increment.finish()?,
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
    use arrow_array::{Int16Array, Int32Array};
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

    proptest! {
        /// Rows pushed one at a time, nulls anywhere, read back as pushed,
        /// batch after batch (a finished column starts the next batch empty).
        #[test]
        fn pushed_rows_read_back(
            text in prop::collection::vec(prop::option::weighted(0.7, "[a-z\u{e9}]{0,4}"), 0..70),
            numbers in prop::collection::vec(prop::option::weighted(0.7, any::<i16>()), 0..70),
        ) {
            let (mut texts, mut ints) = (TextColumn::new(), NumberColumn::<Int16Type>::new());
            for _ in 0..2 {
                for cell in &text {
                    texts.push(cell.as_deref());
                }
                let got = texts.finish().unwrap();
                got.to_data().validate_full().unwrap();
                let expected: Vec<Option<&str>> = text.iter().map(|c| c.as_deref()).collect();
                prop_assert_eq!(got.as_string::<i32>(), &StringArray::from(expected));
                prop_assert_eq!(got.null_count(), text.iter().filter(|c| c.is_none()).count());

                for &cell in &numbers {
                    ints.push(cell);
                }
                let got = ints.finish().unwrap();
                prop_assert_eq!(got.as_primitive::<Int16Type>(), &Int16Array::from(numbers.clone()));
            }
        }

        /// The bitmap has a bit per flag, in order, as Arrow reads it.
        #[test]
        fn flags_pack_a_bit_each(flags in prop::collection::vec(any::<bool>(), 0..200)) {
            let bytes: Vec<u8> = flags.iter().map(|&f| u8::from(f)).collect();
            let packed = pack(&bytes);
            prop_assert_eq!(packed.len(), flags.len());
            prop_assert_eq!(packed.iter().collect::<Vec<bool>>(), flags);
        }
    }

    #[test]
    fn integers() {
        assert_eq!(integer("2500"), Some(2500));
        assert_eq!(integer("-5"), Some(-5));
        assert_eq!(integer("+7"), Some(7));
        assert_eq!(integer(" 2500\t"), Some(2500));
        for bad in ["", " ", "?", "-", "2500?", "25 00", "1e3", "99999999999"] {
            assert_eq!(integer(bad), None, "{bad:?}");
        }
    }
}
