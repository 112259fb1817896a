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
use crate::pgn::tags::decode_value;
use crate::pipeline::{Header, Job};
use crate::problem::Code;
use crate::select::Selector;
use crate::speed::Clock;

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::columns::{Columns, NameHasher, fixed_tag_column};

/// A tag's name is compared with the earlier ones one by one up to this many
/// (see [`row`]); beyond, through a set.
const SMALL: usize = 16;

/// The distinct problem codes of a game, in the order `check` first reports
/// them (packed: code index + 1 per 4 bits, the first in the lowest bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Problems(u64);

impl Problems {
    fn add(&mut self, code: Code) {
        let n = code as u64 + 1;
        let mut rest = self.0;
        let mut shift = 0;
        while rest != 0 {
            if rest & 0xF == n {
                return;
            }
            rest >>= 4;
            shift += 4;
        }
        // 15 codes (1 to 15, a nibble each) fit in 60 bits: every code once at most.
        self.0 |= n << shift;
    }

    /// The codes, in order.
    pub fn iter(self) -> impl Iterator<Item = Code> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            let n = rest & 0xF;
            rest >>= 4;
            (n != 0).then(|| Code::ALL[n as usize - 1])
        })
    }

    /// Whether the game has no problem.
    #[cfg(test)]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// One game's row, without what only the merger knows (file, game number,
/// offset, length, line). Its values live in the [`Block`] of its chunk,
/// where only the columns a game has take room (a game of `--tags all` with
/// 1,000 columns holds its 20 tags).
#[derive(Clone, Debug)]
pub struct Row {
    /// The game's class.
    pub class: Class,
    /// Its Chess960 start position, if any.
    pub chess960_position: Option<u16>,
    /// Its speed and first period's clock, from the first `TimeControl` pair.
    pub clock: Clock,
    /// Its problem codes.
    pub problems: Problems,
    /// Tag pairs of the header that were not kept (see [`Header::dropped_pairs`]).
    pub dropped_pairs: u64,
    /// Its values in its block's `values`, and its other tags in `others`.
    values: std::ops::Range<u32>,
    others: std::ops::Range<u32>,
    /// Bytes of its values and other tags' names.
    text_len: u32,
    /// The block of its chunk, once sealed ([`ExportJob`]'s [`Job::seal`]).
    block: Option<Arc<Block>>,
}

/// The text and spans of the rows of one chunk (or of a piece the merger
/// scans), built on the thread that scans it and shared by its rows: one
/// allocation of each kind per chunk instead of three per game, and none
/// freed per game on the merger thread.
#[derive(Debug, Default)]
pub struct Block {
    /// Every value (and the names of `other_tags`), concatenated.
    text: String,
    /// The columns each row has, by slot (0 `variant`, 1 `fen`, 2 + i tag
    /// column i), ascending within a row: (slot, start, end) in `text`.
    values: Vec<(u32, u32, u32)>,
    /// The other tags of each row in header order: (name start, name end,
    /// value start, value end) in `text`.
    others: Vec<(u32, u32, u32, u32)>,
}

thread_local! {
    /// The rows this thread builds until the next seal.
    static STAGE: RefCell<Block> = RefCell::new(Block::default());
}

/// An empty block, for a row that was never sealed (a bug, shown as such by
/// [`Row::is_sealed`] rather than by a panic).
static EMPTY: Block = Block {
    text: String::new(),
    values: Vec::new(),
    others: Vec::new(),
};

impl Block {
    /// The staged rows of this thread as a block to share; the stage starts
    /// again with room for as much.
    fn take_stage() -> Block {
        STAGE.with_borrow_mut(|stage| {
            let fresh = Block {
                text: String::with_capacity(stage.text.len()),
                values: Vec::with_capacity(stage.values.len()),
                others: Vec::with_capacity(stage.others.len()),
            };
            std::mem::replace(stage, fresh)
        })
    }
}

/// A span of a block's text as an index (blocks hold one chunk's headers,
/// which the pipeline bounds far below 4 GiB).
fn at(n: usize) -> u32 {
    debug_assert!(u32::try_from(n).is_ok());
    n as u32
}

impl Row {
    /// Bytes of its values and other tags' names.
    pub fn text_len(&self) -> usize {
        self.text_len as usize
    }

    /// Whether the row has its block (every row the pipeline hands on has).
    pub fn is_sealed(&self) -> bool {
        self.block.is_some()
    }

    fn block(&self) -> &Block {
        self.block.as_deref().unwrap_or(&EMPTY)
    }

    /// The values present, by slot (0 `variant`, 1 `fen`, 2 + i tag column i), ascending.
    pub fn values(&self) -> impl Iterator<Item = (usize, &str)> {
        let block = self.block();
        let range = self.values.start as usize..self.values.end as usize;
        block
            .values
            .get(range)
            .unwrap_or_default()
            .iter()
            .map(move |&(slot, a, b)| (slot as usize, &block.text[a as usize..b as usize]))
    }

    /// The other tags, (name, value), in header order.
    pub fn other_tags(&self) -> impl Iterator<Item = (&str, &str)> {
        let block = self.block();
        let range = self.others.start as usize..self.others.end as usize;
        block
            .others
            .get(range)
            .unwrap_or_default()
            .iter()
            .map(move |&(a, b, c, d)| {
                (
                    &block.text[a as usize..b as usize],
                    &block.text[c as usize..d as usize],
                )
            })
    }
}

/// Which slots a row has filled (a bit set; a word for the default columns).
enum Filled {
    Small(u128),
    Large(Vec<u64>),
}

impl Filled {
    fn new(slots: usize) -> Filled {
        if slots <= 128 {
            Filled::Small(0)
        } else {
            Filled::Large(vec![0; slots.div_ceil(64)])
        }
    }

    /// Sets the slot's bit; whether it was set already.
    fn set(&mut self, slot: usize) -> bool {
        match self {
            Filled::Small(bits) => {
                let was = *bits & (1 << slot) != 0;
                *bits |= 1 << slot;
                was
            }
            Filled::Large(words) => {
                let (w, b) = (slot / 64, 1u64 << (slot % 64));
                let was = words[w] & b != 0;
                words[w] |= b;
                was
            }
        }
    }
}

/// Appends `s` and returns its span.
fn push_str(text: &mut String, s: &str) -> (u32, u32) {
    let start = text.len();
    text.push_str(s);
    (at(start), at(text.len()))
}

/// Appends a raw tag value, unescaped and decoded; `valid` is the value as a
/// string when the header's tags are known to decode as themselves (valid
/// UTF-8, or ASCII for `latin-1`: the usual case, checked once).
fn push_value(text: &mut String, raw: &[u8], valid: Option<&str>, enc: Encoding) -> (u32, u32) {
    match valid {
        Some(s) if memchr::memchr(b'\\', raw).is_none() => push_str(text, s),
        _ => push_str(text, &encoding::decode(&decode_value(raw), enc)),
    }
}

/// The `other_tags` key of the `n`-th pair (1-based) of a tag name: the name
/// for the first, `NAME#n` for the repeats.
fn repeat_key(name: &str, n: u32) -> String {
    format!("{name}#{n}")
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
        (Class::Standard, None, Problems::default())
    } else {
        let verdict = header.verdict();
        let mut problems = Problems::default();
        for p in &verdict.problems {
            problems.add(p.problem.code);
        }
        if verdict.unlisted_duplicates > 0 {
            problems.add(Code::DuplicateTag);
        }
        (verdict.class, verdict.chess960_position, problems)
    };
    let n = columns.tags().len();
    let arena = header.pair_arena();
    let pairs = header.pair_spans();
    // One UTF-8 check for every name and value. A piece of a valid arena is
    // valid when it starts and ends on character boundaries (`str::get`): two
    // pieces could hold the halves of one character between them.
    let valid = match enc {
        Encoding::Latin1 => arena
            .is_ascii()
            .then(|| std::str::from_utf8(arena).ok())
            .flatten(),
        _ => std::str::from_utf8(arena).ok(),
    };
    let Block {
        text,
        values,
        others: other_tags,
    } = stage;
    let (text_from, values_from, others_from) = (text.len(), values.len(), other_tags.len());
    let mut filled = Filled::new(2 + n);
    let mut sorted = true;
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
        let value_str = valid.and_then(|v| v.get(value_range.clone()));
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
                    let (a, b) = push_value(text, raw, value_str, enc);
                    sorted &= values[values_from..].last().is_none_or(|v| v.0 < i as u32);
                    values.push((i as u32, a, b));
                    // A value an integer column cannot hold is kept as written.
                    if i >= 2
                        && columns.is_integer(i - 2)
                        && super::batch::integer(&text[a as usize..b as usize]).is_none()
                        && !is_placeholder(raw)
                    {
                        let key = push_str(text, &columns.tags()[i - 2]);
                        let value = push_value(text, raw, value_str, enc);
                        other_tags.push((key.0, key.1, value.0, value.1));
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
                    let key = match valid.and_then(|v| v.get(name_range.clone())) {
                        Some(s) => push_str(text, s),
                        None => {
                            // Decoded: it could now read like an earlier name.
                            let mut shown = encoding::decode_name(name, enc).into_owned();
                            let taken = |t: &str, shown: &str| {
                                other_tags[others_from..]
                                    .iter()
                                    .any(|&(a, b, _, _)| &t[a as usize..b as usize] == shown)
                                    || columns.index(shown.as_bytes()).is_some()
                                    || fixed_tag_column(shown.as_bytes()).is_some()
                            };
                            if taken(text, &shown) {
                                shown = encoding::escaped(name);
                            }
                            push_str(text, &shown)
                        }
                    };
                    let value = push_value(text, raw, value_str, enc);
                    other_tags.push((key.0, key.1, value.0, value.1));
                }
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
        let shown = match valid.and_then(|v| v.get(pairs[pair_index].0.clone())) {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => encoding::decode_name(name, enc),
        };
        let key = push_str(text, &repeat_key(&shown, n));
        let raw = &arena[pairs[pair_index].1.clone()];
        let value_str = valid.and_then(|v| v.get(pairs[pair_index].1.clone()));
        let value = push_value(text, raw, value_str, enc);
        other_tags.push((key.0, key.1, value.0, value.1));
    }
    // Headers mostly list the tags in the column order already.
    if !sorted {
        values[values_from..].sort_unstable_by_key(|v| v.0);
    }
    Row {
        class,
        chess960_position,
        clock: Clock::of(time_control),
        problems,
        dropped_pairs: header.dropped_pairs(),
        values: at(values_from)..at(values.len()),
        others: at(others_from)..at(other_tags.len()),
        text_len: at(text.len() - text_from),
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
        row.as_ref().map_or(0, |row| {
            row.text_len() + 12 * row.values.len() + 16 * row.others.len()
        })
    }

    /// The rows staged since the last seal become one block that they share.
    fn seal<'g>(&self, results: impl Iterator<Item = &'g mut Option<Row>>) {
        let block = Arc::new(Block::take_stage());
        for row in results.flatten() {
            row.block = Some(Arc::clone(&block));
        }
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
    fn problems_keep_first_order_once() {
        let mut p = Problems::default();
        assert!(p.is_empty());
        for c in [
            Code::MissingVariant,
            Code::FenSyntax,
            Code::MissingVariant,
            Code::LossyCastling,
            Code::FenSyntax,
        ] {
            p.add(c);
        }
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            [Code::MissingVariant, Code::FenSyntax, Code::LossyCastling]
        );
        let mut all = Problems::default();
        for c in Code::ALL.iter().rev() {
            all.add(*c);
        }
        assert_eq!(all.iter().count(), Code::ALL.len());
        assert_eq!(all.iter().next(), Code::ALL.last().copied());
    }

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
