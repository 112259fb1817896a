//! Each game's row, built on the worker threads from its header: class, start
//! position number, problem codes, and the tag values (unescaped, as UTF-8)
//! placed in their columns or in `other_tags`.

use crate::class::Class;
use crate::pgn::tags::decode_value;
use crate::pipeline::{Header, Job};
use crate::problem::Code;
use crate::select::Selector;
use crate::speed::Clock;

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

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
        // 14 codes fit in 56 bits: every code once at most.
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
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// One game's row, without what only the merger knows (file, game number,
/// offset, length, line). Values live in one string. Only the columns a game
/// has take room (a game of `--tags all` with 1,000 columns holds its 20 tags).
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
    /// Every value (and the names of `other_tags`), concatenated.
    text: String,
    /// The columns the game has, by slot (0 `variant`, 1 `fen`, 2 + i tag
    /// column i), ascending: (slot, start, end) in `text`.
    values: Vec<(u32, u32, u32)>,
    /// The other tags in header order: (name start, name end, value start, value end).
    others: Vec<(u32, u32, u32, u32)>,
    /// Tag pairs of the header that were not kept (see [`Header::dropped_pairs`]).
    pub dropped_pairs: u64,
}

impl Row {
    /// The values present, by slot (0 `variant`, 1 `fen`, 2 + i tag column i), ascending.
    pub fn values(&self) -> impl Iterator<Item = (usize, &str)> {
        self.values
            .iter()
            .map(|&(slot, a, b)| (slot as usize, &self.text[a as usize..b as usize]))
    }

    /// The other tags, (name, value), in header order.
    pub fn other_tags(&self) -> impl Iterator<Item = (&str, &str)> {
        self.others.iter().map(|&(a, b, c, d)| {
            (
                &self.text[a as usize..b as usize],
                &self.text[c as usize..d as usize],
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

/// Appends `bytes` as UTF-8 (an invalid byte becomes U+FFFD) and returns its span.
fn push_text(text: &mut String, bytes: &[u8]) -> (u32, u32) {
    let start = text.len();
    match std::str::from_utf8(bytes) {
        Ok(s) => text.push_str(s),
        Err(_) => text.push_str(&String::from_utf8_lossy(bytes)),
    }
    // Headers are bounded (pipeline::game), far below 4 GiB.
    (start as u32, text.len() as u32)
}

/// Appends a raw tag value, unescaped; `valid` is the value as a string when
/// the header's tags are known to be UTF-8 (the usual case, checked once).
fn push_value(text: &mut String, raw: &[u8], valid: Option<&str>) -> (u32, u32) {
    match valid {
        Some(s) if memchr::memchr(b'\\', raw).is_none() => {
            let start = text.len();
            text.push_str(s);
            (start as u32, text.len() as u32)
        }
        _ => push_text(text, &decode_value(raw)),
    }
}

/// A bit of a 64-bit filter for a tag name: names with different bits differ.
#[inline]
fn name_bit(name: &[u8]) -> u64 {
    let h = name.len() as u64 * 31
        + u64::from(name.first().copied().unwrap_or(0))
        + 7 * u64::from(name.last().copied().unwrap_or(0));
    1 << (h & 63)
}

/// The row of a header.
pub fn row(header: &Header<'_>, columns: &Columns) -> Row {
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
    let valid = std::str::from_utf8(arena).ok();
    // Sized once: decoding only shortens a value (an invalid UTF-8 byte, which
    // becomes three, is the rare case that grows the string again).
    let mut text = String::with_capacity(arena.len());
    let mut values: Vec<(u32, u32, u32)> = Vec::with_capacity(pairs.len());
    let mut other_tags = Vec::new();
    let mut filled = Filled::new(2 + n);
    let mut sorted = true;
    let mut others: Option<HashSet<&[u8], BuildHasherDefault<NameHasher>>> = None;
    // A filter of the other tags' names met so far: most names are new, and
    // most new names miss it, so that the search below is mostly skipped.
    let mut other_bits = 0u64;
    // The first TimeControl pair's value (as for `--tag`, the first counts).
    let mut time_control: Option<&[u8]> = None;
    for (pair_index, (name_range, value_range)) in pairs.iter().enumerate() {
        let name = &arena[name_range.clone()];
        let raw = &arena[value_range.clone()];
        if time_control.is_none() && name == crate::speed::TAG {
            time_control = Some(raw);
        }
        let value_str = valid.and_then(|v| v.get(value_range.clone()));
        let slot = match fixed_tag_column(name) {
            Some(i) => Some(i),
            None => columns.index(name).map(|i| 2 + i),
        };
        match slot {
            // A repeated tag: the first pair counts (as for SetUp/FEN/Variant
            // in classification and for `--tag`).
            Some(i) => {
                if !filled.set(i) {
                    let (a, b) = push_value(&mut text, raw, value_str);
                    sorted &= values.last().is_none_or(|v| v.0 < i as u32);
                    values.push((i as u32, a, b));
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
                if !seen {
                    let name = match valid.and_then(|v| v.get(name_range.clone())) {
                        Some(s) => {
                            let start = text.len();
                            text.push_str(s);
                            (start as u32, text.len() as u32)
                        }
                        None => push_text(&mut text, name),
                    };
                    let value = push_value(&mut text, raw, value_str);
                    other_tags.push((name.0, name.1, value.0, value.1));
                }
            }
        }
    }
    Row {
        class,
        chess960_position,
        clock: Clock::of(time_control),
        problems,
        text,
        values: {
            // Headers mostly list the tags in the column order already.
            if !sorted {
                values.sort_unstable_by_key(|v| v.0);
            }
            values
        },
        others: other_tags,
        dropped_pairs: header.dropped_pairs(),
    }
}

/// The per-game work of `export`: the row of each game that satisfies the
/// `--tag` expressions and `--speed` list (`None` for the others).
pub struct ExportJob<'a> {
    /// The columns of the rows.
    pub columns: &'a Columns,
    /// The `--tag` expressions a game must satisfy.
    pub selector: &'a Selector,
}

impl Job for ExportJob<'_> {
    type Game = Option<Row>;

    fn game(&self, header: &Header<'_>) -> Option<Row> {
        self.selector
            .matches(|i| header.extra(i))
            .then(|| row(header, self.columns))
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.selector.names()
    }

    fn all_pairs(&self) -> bool {
        true
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
        assert_eq!(all.iter().next(), Some(Code::LossyCastling));
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
