//! The tag pairs of consecutive games, each header read only from its first
//! line that differs from the header read before it.
//!
//! Consecutive games of an archive mostly begin their headers alike (the
//! same Event, Site and Date lines): in the real files of the test corpus,
//! three quarters of the tag pairs lie in lines that the header before holds
//! byte for byte at the same place. Comparing the bytes finds those lines at
//! a few instructions for eight bytes, where reading a pair costs about two
//! hundred; the reader then goes on from the first line that differs, in the
//! state it would have reached there, which is nothing but where that line
//! begins and whether a tag line came before it ([`LinePlace`]).

use std::cell::Cell;
use std::ops::ControlFlow;

use super::{Game, LinePlace, each_pair_from, span_in};

/// The headers of the last two games read, kept so that the next one is read
/// only from its first line that differs. For Python's `Game.headers`,
/// which compares each game's pairs with the last game's.
#[derive(Debug, Default)]
pub struct LastHeader {
    /// The game read last.
    now: ReadHeader,
    /// The game read before it.
    before: ReadHeader,
}

/// A tag pair as written: its name, and its value between the quotes with
/// its escapes.
pub type TagPair<'a> = (&'a [u8], &'a [u8]);

/// Room kept for a header's bytes and pairs from one game to the next: a
/// lichess header holds about 400 bytes and 20 pairs.
const KEPT_BYTES: usize = 64 << 10;
const KEPT_PAIRS: usize = 1024;

/// One game's header as [`LastHeader`] keeps it.
#[derive(Debug, Default)]
struct ReadHeader {
    /// The game's bytes up to the end of its last tag line.
    bytes: Vec<u8>,
    /// Each pair's name and raw value as ranges of `bytes`.
    pairs: Vec<[[usize; 2]; 2]>,
    /// After each tag line: the pairs up to it, and the reader's place.
    lines: Vec<(usize, LinePlace)>,
    /// Whether the game begins the input (a byte order mark is skipped only
    /// there).
    input_start: bool,
}

impl ReadHeader {
    /// The pair at `spans` (name, value) in the kept bytes.
    fn of(&self, &[[ns, ne], [vs, ve]]: &[[usize; 2]; 2]) -> TagPair<'_> {
        (&self.bytes[ns..ne], &self.bytes[vs..ve])
    }

    fn pair(&self, i: usize) -> Option<TagPair<'_>> {
        self.pairs.get(i).map(|spans| self.of(spans))
    }

    fn pairs(&self) -> impl ExactSizeIterator<Item = TagPair<'_>> {
        self.pairs.iter().map(|spans| self.of(spans))
    }
}

impl LastHeader {
    /// A memory of no header yet.
    pub fn new() -> LastHeader {
        LastHeader::default()
    }

    /// Reads the tag pairs of `game` (those of [`Game::raw_tags`]); the game
    /// read before becomes [`LastHeader::before`]. Returns how many leading
    /// pairs the two headers share, in the same lines byte for byte: those
    /// were not read again.
    pub fn read(&mut self, game: &Game) -> usize {
        self.read_bytes(game.raw(), game.offset == 0)
    }

    /// [`LastHeader::read`] of a game's bytes; `input_start`: the game
    /// begins the input.
    fn read_bytes(&mut self, raw: &[u8], input_start: bool) -> usize {
        std::mem::swap(&mut self.now, &mut self.before);
        let (now, before) = (&mut self.now, &self.before);
        if now.bytes.capacity() > KEPT_BYTES || now.pairs.capacity() > KEPT_PAIRS {
            // The memory of a huge header (hostile input) is let go once
            // the next game is read.
            *now = ReadHeader::default();
        }
        now.pairs.clear();
        now.lines.clear();
        let mut place = LinePlace::start(raw, input_start);
        let mut shared = 0;
        // A byte order mark makes the same bytes read otherwise at the
        // input's start: such a game is read whole, and read whole after.
        if !input_start && !before.input_start {
            let common = common_prefix(raw, &before.bytes);
            // The lines that lie in the common bytes with the byte after
            // them (the reader looks at it after a `\r`).
            let lines = before.lines.partition_point(|(_, after)| after.at < common);
            if let Some(&(pairs, after)) = lines.checked_sub(1).map(|last| &before.lines[last]) {
                shared = pairs;
                place = after;
                now.lines.extend_from_slice(&before.lines[..lines]);
                now.pairs.extend_from_slice(&before.pairs[..pairs]);
            }
        }
        let pairs_read = Cell::new(shared);
        each_pair_from(
            raw,
            place,
            |name, value| {
                now.pairs.push([span_in(raw, name), span_in(raw, value)]);
                pairs_read.set(pairs_read.get() + 1);
                ControlFlow::Continue(())
            },
            |after| now.lines.push((pairs_read.get(), after)),
        );
        // Up to the end of the last tag line and the byte after it, so that
        // the next header can share its last line too.
        let end = now.lines.last().map_or(0, |(_, after)| after.at + 1);
        now.bytes.clear();
        now.bytes.extend_from_slice(&raw[..end.min(raw.len())]);
        now.input_start = input_start;
        shared
    }

    /// The pairs (name, raw value) of the game read last, in header order.
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = TagPair<'_>> {
        self.now.pairs()
    }

    /// The pairs of the game read before it (none before a second game).
    pub fn before(&self) -> impl ExactSizeIterator<Item = TagPair<'_>> {
        self.before.pairs()
    }

    /// Pair `i` of the game read last, and of the game before (for a caller
    /// that goes on from the shared pairs, without walking them).
    pub fn pair(&self, i: usize) -> (Option<TagPair<'_>>, Option<TagPair<'_>>) {
        (self.now.pair(i), self.before.pair(i))
    }
}

/// How many leading bytes `a` and `b` share, eight compared at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let word =
        |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("eight bytes"));
    let mut i = 0;
    while i + 8 <= n {
        let differ = word(a, i) ^ word(b, i);
        if differ != 0 {
            return i + (differ.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::tag_pairs;
    use proptest::prelude::*;

    #[test]
    fn common_prefix_is_the_first_difference() {
        let a = b"[Event \"a\"]\n[Site \"b\"]\n";
        for i in 0..a.len() {
            let mut b = a.to_vec();
            b[i] ^= 1;
            assert_eq!(common_prefix(a, &b), i);
            assert_eq!(common_prefix(&a[..i], a), i);
        }
        assert_eq!(common_prefix(a, a), a.len());
    }

    #[test]
    fn shared_lines_are_counted_and_not_read_again() {
        let mut last = LastHeader::new();
        let first = b"[Event \"e\"]\n[Site \"s\"]\n[White \"a\"]\n\n1. e4 *\n";
        let second = b"[Event \"e\"]\n[Site \"s\"]\n[White \"b\"]\n\n1. d4 *\n";
        assert_eq!(last.read_bytes(first, false), 0);
        assert_eq!(last.read_bytes(second, false), 2);
        assert_eq!(last.pairs().collect::<Vec<_>>(), tag_pairs(second, false));
        assert_eq!(last.before().collect::<Vec<_>>(), tag_pairs(first, false));
        // The same game again: every line is shared (with the byte after
        // the last one, kept).
        assert_eq!(last.read_bytes(second, false), 3);
        assert_eq!(last.pairs().collect::<Vec<_>>(), tag_pairs(second, false));
        // The same header before other movetext: the byte after its last
        // line differs only after the blank line, so all is shared.
        let third = b"[Event \"e\"]\n[Site \"s\"]\n[White \"b\"]\n\n1. c4 *\n";
        assert_eq!(last.read_bytes(third, false), 3);
        // A header that ends where the bytes end: the last line is read again
        // after it.
        let cut = b"[Event \"e\"]\n[Site \"s\"]\n[White \"b\"]";
        assert_eq!(last.read_bytes(cut, false), 2);
        assert_eq!(last.read_bytes(second, false), 2);
        // `\r` then `\n` in one, `\r` alone in the other: the line's end
        // differs, so the line is read again.
        let cr = b"[Event \"e\"]\r[Site \"s\"]\r\n[White \"b\"]\r\n\r\n*\r\n";
        let crlf = b"[Event \"e\"]\r\n[Site \"s\"]\r\n[White \"b\"]\r\n\r\n*\r\n";
        assert_eq!(last.read_bytes(cr, false), 0);
        assert_eq!(last.read_bytes(crlf, false), 0);
        assert_eq!(last.pairs().collect::<Vec<_>>(), tag_pairs(crlf, false));
        // A byte order mark at the input's start: read whole.
        let bom = b"\xEF\xBB\xBF[Event \"e\"]\n[Site \"s\"]\n\n*\n";
        assert_eq!(last.read_bytes(bom, true), 0);
        assert_eq!(last.pairs().collect::<Vec<_>>(), tag_pairs(bom, true));
        assert_eq!(last.read_bytes(bom, false), 0);
        assert_eq!(last.pairs().collect::<Vec<_>>(), tag_pairs(bom, false));
    }

    /// Lines a header may hold: tag lines alike or not, several pairs on a
    /// line, escapes, blanks, `%` lines, broken pairs, every line end.
    fn header_line() -> impl Strategy<Value = Vec<u8>> {
        let ends = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        let text = prop_oneof![
            Just("[Event \"e\"]"),
            Just("[Site \"s\"]"),
            Just("[Date \"2024.01.01\"]"),
            Just("[White \"a\"]"),
            Just("[White \"b\"]"),
            Just("[A \"1\"] [B \"2\"]"),
            Just("[A \"1\"][B \"3\"]"),
            Just("[Esc \"say \\\"hi\\\"\"]"),
            Just("  [Blank\t\"x\" ]"),
            Just("[Open \"no end"),
            Just("[NoValue]"),
            Just("%escape [Event \"no\"]"),
            Just(""),
            Just("1. e4 e5 *"),
            Just("{comment}"),
        ];
        (text, ends).prop_map(|(t, e)| format!("{t}{e}").into_bytes())
    }

    proptest! {
        /// Games read in turn, each made of the first lines of the game
        /// before and lines of its own: the pairs are those of reading the
        /// game whole, and the shared pairs are the last game's.
        #[test]
        fn reading_after_the_last_game_equals_reading_whole(
            steps in prop::collection::vec(
                (0usize..10, prop::collection::vec(header_line(), 0..6)),
                1..12,
            ),
            starts in prop::collection::vec(any::<bool>(), 12),
            bom in any::<bool>(),
        ) {
            let mut last = LastHeader::new();
            let mut before: Vec<(Vec<u8>, bool)> = Vec::new();
            let mut lines: Vec<Vec<u8>> = Vec::new();
            for (i, (keep, own)) in steps.into_iter().enumerate() {
                lines.truncate(keep);
                lines.extend(own);
                let mut raw = lines.concat();
                // A byte order mark: at the input's start (skipped), or in
                // the first line of a later game (a preamble line there).
                let input_start = i == 0 && starts[i];
                if bom && starts[i] {
                    raw.splice(0..0, crate::pgn::scan::BOM);
                }
                let shared = last.read_bytes(&raw, input_start);
                let whole = tag_pairs(&raw, input_start);
                prop_assert_eq!(last.pairs().collect::<Vec<_>>(), whole.clone());
                for (i, pair) in whole.iter().enumerate() {
                    prop_assert_eq!(last.pair(i).0, Some(*pair));
                }
                prop_assert_eq!(last.pair(whole.len()).0, None);
                if let Some((b, b_start)) = before.last() {
                    let b_pairs = tag_pairs(b, *b_start);
                    prop_assert_eq!(last.before().collect::<Vec<_>>(), b_pairs.clone());
                    for (i, pair) in b_pairs.iter().enumerate() {
                        prop_assert_eq!(last.pair(i).1, Some(*pair));
                    }
                    prop_assert!(shared <= whole.len() && shared <= b_pairs.len());
                    prop_assert_eq!(&whole[..shared], &b_pairs[..shared]);
                } else {
                    prop_assert_eq!(shared, 0);
                }
                before.push((raw, input_start));
            }
        }
    }
}
