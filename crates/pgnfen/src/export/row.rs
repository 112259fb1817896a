//! Each game's row, built on the worker threads from its header: class, start
//! position number, problem codes, and the tag values (unescaped, decoded as
//! [`crate::pgn::encoding`] says) placed in their columns or in `other_tags`.
//!
//! Nothing of the header is dropped without trace: the first pair of a tag
//! fills its column (or its `other_tags` entry); each later pair of the same
//! name goes to `other_tags` as `NAME#2`, `NAME#3`, ... (`#` is never part of a
//! PGN tag name, so these keys cannot clash with a real tag); an integer
//! column's value that is not a number (`WhiteElo "2500?"`) leaves the column
//! null and is kept as written in `other_tags` under its own name (the PGN
//! placeholders for an unknown value, `?`, `-` and the empty value, are not).
//! Names are compared as the bytes of the file, and shown decoded; two names
//! that would decode alike keep distinct keys (the later one escaped).

use crate::class::Class;
use crate::pgn::encoding::{self, Encoding};
use crate::pgn::scan::TagName;
use crate::pgn::tags::decode_value;
use crate::pipeline::{Header, Job};
use crate::problem::{Code, CodeList};
use crate::select::Selector;
use crate::speed::{Clock, Speed};

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::sync::Arc;

use super::columns::{Columns, NameHasher, fixed_tag_column};

/// A tag's name is compared with the earlier ones one by one up to this many
/// (see [`row`]); beyond, through a set.
const SMALL: usize = 16;

/// One game's row, without what only the merger knows (file, game number,
/// offset, length, line). Its values live in the [`Block`] of its chunk.
#[derive(Clone, Debug)]
pub struct Row {
    /// The game's class.
    pub class: Class,
    /// Its Chess960 start position, if any.
    pub chess960_position: Option<u16>,
    /// Its speed, from the first `TimeControl` pair.
    pub speed: Speed,
    /// Its first period's time and increment in seconds ([`Row::clock`]),
    /// NaN for none (a parsed time is never NaN). Two `Option<f64>` take 32
    /// bytes; as two `f64` the pipeline's entry of a row fits in 128 bytes,
    /// which the compiler moves with a few vector stores instead of a call
    /// of `memcpy` (such calls were 2 % of `export`'s samples in a profile).
    time: [f64; 2],
    /// Its problem codes.
    pub problems: CodeList,
    /// Tag pairs of the header that were not kept (see [`Header::dropped_pairs`]).
    pub dropped_pairs: u64,
    /// Its number in its block.
    index: u32,
    /// Its other tags in its block's `others`.
    others: Range<u32>,
    /// Bytes of its values and other tags' names (what the batch budget counts).
    text_len: u32,
    /// The block of its chunk, once sealed ([`ExportJob`]'s [`Job::seal`]).
    block: Option<Arc<Block>>,
}

/// The values of the rows of one chunk (or of a piece the merger scans),
/// built on the thread that scans it and shared by its rows: column by
/// column, so that the merger copies the values of consecutive rows in one
/// go, and with a few allocations per chunk rather than three per game.
#[derive(Debug, Default)]
pub struct Block {
    /// Rows staged: a row's index is its number here.
    rows: u32,
    /// The values of each slot (0 `variant`, 1 `fen`, 2 + i tag column i).
    slots: Vec<SlotValues>,
    /// The names and values of the rows' other tags, concatenated.
    text: String,
    /// The other tags of each row in header order: (name start, name end,
    /// value start, value end) in `text`.
    others: Vec<(u32, u32, u32, u32)>,
}

/// One column's values in a block: only the rows that have one take room (a
/// game of `--tags all` with 128 columns fills its 20).
#[derive(Debug, Default)]
pub struct SlotValues {
    /// The rows with a value, ascending.
    pub rows: Vec<u32>,
    /// A text column's values, end to end ...
    pub text: String,
    /// ... and where each ends in `text`.
    pub ends: Vec<u32>,
    /// An integer column's values.
    pub integers: Vec<i32>,
}

impl SlotValues {
    /// The entries (indexes into `rows`) of the rows `rows`.
    pub fn entries(&self, rows: &Range<u32>) -> Range<usize> {
        let a = self.rows.partition_point(|&r| r < rows.start);
        let b = a + self.rows[a..].partition_point(|&r| r < rows.end);
        a..b
    }

    /// Where entry `k`'s text begins in `text`.
    pub fn start(&self, k: usize) -> usize {
        match k {
            0 => 0,
            _ => self.ends[k - 1] as usize,
        }
    }
}

thread_local! {
    /// The rows this thread builds until the next seal.
    static STAGE: RefCell<Block> = RefCell::new(Block::default());
}

impl Block {
    /// The staged rows of this thread as a block to share; the stage starts
    /// again with room for as much.
    fn take_stage() -> Block {
        STAGE.with_borrow_mut(|stage| {
            let fresh = Block {
                rows: 0,
                slots: stage
                    .slots
                    .iter()
                    .map(|s| SlotValues {
                        rows: Vec::with_capacity(s.rows.len()),
                        text: String::with_capacity(s.text.len()),
                        ends: Vec::with_capacity(s.ends.len()),
                        integers: Vec::with_capacity(s.integers.len()),
                    })
                    .collect(),
                text: String::with_capacity(stage.text.len()),
                others: Vec::with_capacity(stage.others.len()),
            };
            std::mem::replace(stage, fresh)
        })
    }

    /// The values of slot `i` (none for a slot the block never had).
    pub fn slot(&self, i: usize) -> Option<&SlotValues> {
        self.slots.get(i)
    }
}

/// A span of a block's text as an index (blocks hold one chunk's headers,
/// which the pipeline bounds far below 4 GiB).
fn at(n: usize) -> u32 {
    debug_assert!(u32::try_from(n).is_ok());
    n as u32
}

// The size the field `time` is for (see there): kept by the compiler.
const _: () = assert!(std::mem::size_of::<crate::pipeline::game::Entry<Option<Row>>>() <= 128);

impl Row {
    /// Its speed and first period's clock.
    pub fn clock(&self) -> Clock {
        let some = |x: f64| (!x.is_nan()).then_some(x);
        Clock {
            speed: self.speed,
            base: some(self.time[0]),
            increment: some(self.time[1]),
        }
    }

    /// Bytes of its values and other tags' names.
    pub fn text_len(&self) -> usize {
        self.text_len as usize
    }

    /// Its block and its number there (every row the pipeline hands on has
    /// its block).
    pub fn block(&self) -> Option<(&Arc<Block>, u32)> {
        Some((self.block.as_ref()?, self.index))
    }

    /// The other tags, (name, value), in header order.
    pub fn other_tags(&self) -> impl Iterator<Item = (&str, &str)> {
        let range = self.others.start as usize..self.others.end as usize;
        self.block.iter().flat_map(move |block| {
            block
                .others
                .get(range.clone())
                .unwrap_or_default()
                .iter()
                .map(move |&(a, b, c, d)| {
                    (
                        &block.text[a as usize..b as usize],
                        &block.text[c as usize..d as usize],
                    )
                })
        })
    }
}

/// Which slots a row has filled (a bit set; two words for up to 128 slots,
/// which the default columns fit). Two `u64` rather than a `u128`, whose
/// shift by a variable count takes more instructions: 0.25 % of `export`'s
/// in all.
enum Filled {
    Small([u64; 2]),
    Large(Vec<u64>),
}

impl Filled {
    fn new(slots: usize) -> Filled {
        if slots <= 128 {
            Filled::Small([0; 2])
        } else {
            Filled::Large(vec![0; slots.div_ceil(64)])
        }
    }

    /// Sets the slot's bit; whether it was set already.
    fn set(&mut self, slot: usize) -> bool {
        let words = match self {
            Filled::Small(words) => &mut words[..],
            Filled::Large(words) => &mut words[..],
        };
        let (w, b) = (slot / 64, 1u64 << (slot % 64));
        let was = words[w] & b != 0;
        words[w] |= b;
        was
    }
}

/// Appends `s` and returns its span.
fn push_str(text: &mut String, s: &str) -> (u32, u32) {
    let start = text.len();
    text.push_str(s);
    (at(start), at(text.len()))
}

/// A raw tag value, unescaped and decoded (see [`push_value`]).
fn decoded<'v>(raw: &[u8], plain: Option<&'v str>, enc: Encoding) -> std::borrow::Cow<'v, str> {
    match plain {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(encoding::decode(&decode_value(raw), enc).into_owned()),
    }
}

/// Appends a raw tag value, unescaped and decoded; `plain` is the value as a
/// string when it reads as itself (see [`Plain`]).
fn push_value(text: &mut String, raw: &[u8], plain: Option<&str>, enc: Encoding) -> (u32, u32) {
    match plain {
        Some(s) => push_str(text, s),
        None => push_str(text, &encoding::decode(&decode_value(raw), enc)),
    }
}

/// The values of a header that read as themselves: its tags decode as
/// themselves (valid UTF-8, or ASCII for `latin-1`: the usual case, checked
/// once for the whole header), and the value has no escape. A header without
/// a backslash anywhere (nearly all) is not searched value by value.
struct Plain<'a> {
    header: Option<&'a str>,
    escapes: bool,
}

impl<'a> Plain<'a> {
    fn new(arena: &'a [u8], enc: Encoding) -> Plain<'a> {
        let header = match enc {
            Encoding::Latin1 => arena
                .is_ascii()
                .then(|| std::str::from_utf8(arena).ok())
                .flatten(),
            _ => std::str::from_utf8(arena).ok(),
        };
        Plain {
            header,
            escapes: header.is_some() && memchr::memchr(b'\\', arena).is_some(),
        }
    }

    /// The text at `range` of the header, if it decodes as itself. A piece of
    /// a valid header is valid when it starts and ends on character
    /// boundaries (`str::get`): two pieces could hold the halves of one
    /// character between them.
    fn name(&self, range: Range<usize>) -> Option<&'a str> {
        self.header?.get(range)
    }

    /// The value at `range`, if it reads as itself.
    fn value(&self, range: Range<usize>) -> Option<&'a str> {
        self.name(range)
            .filter(|s| !self.escapes || memchr::memchr(b'\\', s.as_bytes()).is_none())
    }
}

/// Whether `key` is a column's name or already a key of the row's other tags
/// (`others`, in `text`).
fn key_taken(key: &str, text: &str, others: &[(u32, u32, u32, u32)], columns: &Columns) -> bool {
    others
        .iter()
        .any(|&(a, b, _, _)| &text[a as usize..b as usize] == key)
        || columns.index(key.as_bytes()).is_some()
        || fixed_tag_column(key.as_bytes()).is_some()
}

/// Whether an integer column's value is a PGN placeholder for "unknown"
/// rather than a value that failed to read.
fn is_placeholder(value: &[u8]) -> bool {
    matches!(value.trim_ascii(), b"" | b"?" | b"-")
}

/// A bit of a 64-bit filter for a tag name: names with different bits differ.
#[inline]
fn name_bit(name: &[u8]) -> u64 {
    let h = name.len() as u64 * 31
        + u64::from(name.first().copied().unwrap_or(0))
        + 7 * u64::from(name.last().copied().unwrap_or(0));
    1 << (h & 63)
}

/// The row of a header, its text decoded as `enc` says, staged on this
/// thread until the next seal.
pub fn row(header: &Header<'_>, columns: &Columns, enc: Encoding) -> Row {
    STAGE.with_borrow_mut(|stage| stage_row(stage, header, columns, enc))
}

fn stage_row(stage: &mut Block, header: &Header<'_>, columns: &Columns, enc: Encoding) -> Row {
    let (class, chess960_position, problems) = if header.is_empty() {
        (Class::Standard, None, CodeList::default())
    } else {
        let tally = header.tally();
        let mut problems = tally.codes;
        if header.unlisted() > 0 {
            problems.add(Code::DuplicateTag);
        }
        (tally.class, tally.chess960_position, problems)
    };
    let n = columns.tags().len();
    let arena = header.pair_arena();
    let pairs = header.pair_spans();
    let plain = Plain::new(arena, enc);
    if stage.slots.len() < 2 + n {
        stage.slots.resize_with(2 + n, SlotValues::default);
    }
    let index = stage.rows;
    stage.rows += 1;
    let Block {
        slots,
        text,
        others: other_tags,
        ..
    } = stage;
    let others_from = other_tags.len();
    // What the batch's byte budget counts: every value, and the other tags'
    // names and values.
    let mut text_len = 0;
    let mut filled = Filled::new(2 + n);
    let mut others: Option<HashSet<&[u8], BuildHasherDefault<NameHasher>>> = None;
    // A filter of the other tags' names met so far: most names are new, and
    // most new names miss it, so that the search below is mostly skipped.
    let mut other_bits = 0u64;
    // The first TimeControl pair's value (as for `--tag`, the first counts).
    let mut time_control: Option<&[u8]> = None;
    // Later pairs of a name already met: (pair index, name).
    let mut repeats: Vec<(usize, &[u8])> = Vec::new();
    // The tag column tried first for the next name ([`Columns::index_from`]).
    let mut hint = 0;
    for (pair_index, (name_range, value_range)) in pairs.iter().enumerate() {
        let name = &arena[name_range.clone()];
        let raw = &arena[value_range.clone()];
        if time_control.is_none() && name == crate::speed::TAG {
            time_control = Some(raw);
        }
        let value_str = plain.value(value_range.clone());
        let slot = match fixed_tag_column(name) {
            Some(i) => Some(i),
            None => {
                let column = columns.index_from(name, hint);
                if let Some(i) = column {
                    hint = i + 1;
                }
                column.map(|i| 2 + i)
            }
        };
        match slot {
            // The first pair of a name fills its column (as for SetUp/FEN/Variant
            // in classification and for `--tag`); a repeat goes to other_tags.
            Some(i) => {
                if !filled.set(i) {
                    let slot = &mut slots[i];
                    if i >= 2 && columns.is_integer(i - 2) {
                        let value = decoded(raw, value_str, enc);
                        text_len += value.len();
                        match super::batch::integer(&value) {
                            Some(v) => {
                                slot.rows.push(index);
                                slot.integers.push(v);
                            }
                            // A value an integer column cannot hold is kept as written.
                            None if !is_placeholder(raw) => {
                                let key = push_str(text, &columns.tags()[i - 2]);
                                let value = push_str(text, &value);
                                text_len += (key.1 - key.0 + value.1 - value.0) as usize;
                                other_tags.push((key.0, key.1, value.0, value.1));
                            }
                            None => {}
                        }
                    } else {
                        let (a, b) = push_value(&mut slot.text, raw, value_str, enc);
                        text_len += (b - a) as usize;
                        slot.rows.push(index);
                        slot.ends.push(b);
                    }
                } else {
                    repeats.push((pair_index, name));
                }
            }
            None => {
                let bit = name_bit(name);
                // Seen before? Few tags before it: compare with each; many (a
                // hostile header): a set, so that 1,000 tags cost no million compares.
                let seen = if other_bits & bit == 0 {
                    if let Some(set) = &mut others {
                        set.insert(name);
                    }
                    false
                } else if pair_index <= SMALL {
                    pairs[..pair_index]
                        .iter()
                        .any(|(n, _)| &arena[n.clone()] == name)
                } else {
                    let set = others.get_or_insert_with(|| {
                        pairs[..pair_index]
                            .iter()
                            .map(|(n, _)| &arena[n.clone()])
                            .collect()
                    });
                    !set.insert(name)
                };
                other_bits |= bit;
                if seen {
                    repeats.push((pair_index, name));
                } else {
                    let key = match plain.name(name_range.clone()) {
                        Some(s) => push_str(text, s),
                        None => {
                            // Decoded: it could now read like an earlier name.
                            let shown = encoding::decode_name(name, enc).into_owned();
                            let taken = |key: &str| {
                                key_taken(key, text, &other_tags[others_from..], columns)
                            };
                            let shown = if taken(&shown) {
                                encoding::unique_key(encoding::escaped(name), taken)
                            } else {
                                shown
                            };
                            push_str(text, &shown)
                        }
                    };
                    let value = push_value(text, raw, value_str, enc);
                    text_len += (key.1 - key.0 + value.1 - value.0) as usize;
                    other_tags.push((key.0, key.1, value.0, value.1));
                }
            }
        }
    }
    // A hostile header's pair budget can have dropped its first Variant or
    // FEN pair (after a megabyte of other values), which the classification
    // still read from the header's own store of those tags: the columns take
    // the value from there, so that `fen` and `class` never disagree (and
    // the pair is not counted as dropped).
    let mut dropped_pairs = header.dropped_pairs();
    if dropped_pairs > 0 {
        for (slot, tag_name) in [(0, TagName::Variant), (1, TagName::Fen)] {
            let first = header.tags().find(|t| t.name == tag_name);
            if let Some(tag) = first.filter(|t| t.complete)
                && !filled.set(slot)
            {
                let slot = &mut slots[slot];
                let (a, b) = push_value(&mut slot.text, tag.raw, None, enc);
                text_len += (b - a) as usize;
                slot.rows.push(index);
                slot.ends.push(b);
                dropped_pairs -= 1;
            }
        }
    }
    // The repeats, after the first pairs (their keys count the pairs of their
    // name up to them); rare, so counted by a plain scan.
    for (pair_index, name) in repeats {
        let n = 1 + pairs[..pair_index]
            .iter()
            .filter(|(n, _)| &arena[n.clone()] == name)
            .count() as u32;
        let shown = match plain.name(pairs[pair_index].0.clone()) {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => encoding::decode_name(name, enc),
        };
        // (A name of the file may hold `#` itself, or two names decode alike.)
        let key = encoding::unique_key(encoding::repeat_key(&shown, n), |key| {
            key_taken(key, text, &other_tags[others_from..], columns)
        });
        let key = push_str(text, &key);
        let raw = &arena[pairs[pair_index].1.clone()];
        let value_str = plain.value(pairs[pair_index].1.clone());
        let value = push_value(text, raw, value_str, enc);
        text_len += (key.1 - key.0 + value.1 - value.0) as usize;
        other_tags.push((key.0, key.1, value.0, value.1));
    }
    let clock = Clock::of(time_control);
    Row {
        class,
        chess960_position,
        speed: clock.speed,
        time: [
            clock.base.unwrap_or(f64::NAN),
            clock.increment.unwrap_or(f64::NAN),
        ],
        problems,
        dropped_pairs,
        index,
        others: at(others_from)..at(other_tags.len()),
        text_len: at(text_len),
        block: None,
    }
}

/// The per-game work of `export`: the row of each game that satisfies the
/// `--tag` expressions and `--speed` list (`None` for the others).
pub struct ExportJob<'a> {
    /// The columns of the rows.
    pub columns: &'a Columns,
    /// The `--tag` expressions a game must satisfy.
    pub selector: &'a Selector,
    /// How names and values are decoded.
    pub encoding: Encoding,
}

impl Job for ExportJob<'_> {
    type Game = Option<Row>;

    fn game(&self, header: &Header<'_>) -> Option<Row> {
        self.selector
            .matches(|i| header.extra(i))
            .then(|| row(header, self.columns, self.encoding))
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.selector.names()
    }

    fn all_pairs(&self) -> bool {
        true
    }

    /// The row's share of its block: what the chunk's results hold.
    fn weight(&self, row: &Option<Row>) -> usize {
        row.as_ref()
            .map_or(0, |row| row.text_len() + 16 * row.others.len())
    }

    /// The rows staged since the last seal become one block that they share.
    fn seal<'g>(&self, results: impl Iterator<Item = &'g mut Option<Row>>) {
        let block = Arc::new(Block::take_stage());
        for row in results.flatten() {
            row.block = Some(Arc::clone(&block));
        }
    }

    /// A row costs about three times what decoding its bytes does, and the
    /// batches need the room: few zstd frames held (see
    /// [`LEAN_BUDGET`](crate::pipeline::frames::LEAN_BUDGET)).
    fn frames_ahead(&self) -> usize {
        crate::pipeline::frames::LEAN_BUDGET
    }

    /// Few chunks, for the same reason: each holds a block of rows.
    fn chunks_in_flight(&self, workers: usize) -> usize {
        crate::pipeline::game::lean_chunks_in_flight(workers)
    }
}

/// The first pass of `--tags all`: the tag names of each exported game's
/// header, length-prefixed in one buffer (`None` for a game `--tag` leaves out).
pub struct NamesJob<'a> {
    /// The `--tag` expressions a game must satisfy.
    pub selector: &'a Selector,
}

impl Job for NamesJob<'_> {
    type Game = Option<Box<[u8]>>;

    fn game(&self, header: &Header<'_>) -> Option<Box<[u8]>> {
        if !self.selector.matches(|i| header.extra(i)) {
            return None;
        }
        let mut names = Vec::with_capacity(16 * header.pairs().len());
        for (name, _) in header.pairs() {
            names.extend_from_slice(&(name.len() as u32).to_le_bytes());
            names.extend_from_slice(name);
        }
        Some(names.into_boxed_slice())
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.selector.names()
    }

    fn all_pairs(&self) -> bool {
        true
    }
}

/// The names of a [`NamesJob`] buffer.
pub fn names(buffer: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = buffer;
    std::iter::from_fn(move || {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let (name, tail) = tail.split_at(len);
        rest = tail;
        Some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let mut b = Vec::new();
        for n in [&b"Event"[..], b"", b"WhiteElo"] {
            b.extend_from_slice(&(n.len() as u32).to_le_bytes());
            b.extend_from_slice(n);
        }
        assert_eq!(
            names(&b).collect::<Vec<_>>(),
            [&b"Event"[..], b"", b"WhiteElo"]
        );
    }
}
