//! Decoding the values of the tags pgnfen reads.

use std::borrow::Cow;

/// The value of a tag with the PGN escapes (`\"`, `\\`) decoded; a backslash
/// before any other byte stays as it is.
///
/// Not pgn-reader's `RawTag::decode`: in 0.29 it takes the backslash that an
/// escape produced for the start of the next escape, so that `\\\"` (a
/// backslash, then a quote) came out as `"` and `a\\\\b` (two backslashes)
/// as `a\b`.
pub fn decode_value(raw: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = first_backslash(raw) else {
        return Cow::Borrowed(raw);
    };
    let mut decoded = Vec::with_capacity(raw.len());
    decoded.extend_from_slice(&raw[..first]);
    let mut rest = &raw[first..];
    while let Some(at) = memchr::memchr(b'\\', rest) {
        decoded.extend_from_slice(&rest[..at]);
        match rest.get(at + 1) {
            Some(&escaped @ (b'\\' | b'"')) => {
                decoded.push(escaped);
                rest = &rest[at + 2..];
            }
            _ => {
                decoded.push(b'\\');
                rest = &rest[at + 1..];
            }
        }
    }
    decoded.extend_from_slice(rest);
    Cow::Owned(decoded)
}

/// The index of the first backslash of `raw`. Nearly every value has none,
/// and the values classification reads (FEN, Variant, SetUp) are under 100
/// bytes: a 16-byte compare at a time, the last one overlapping, costs a
/// fraction of `memchr`'s call and set-up on such values (a tenth of a FEN
/// game's tally on the fen archive went to it).
#[inline]
fn first_backslash(raw: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if raw.len() >= 16 {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let last = raw.len() - 16;
        let mut at = 0;
        // SAFETY: SSE2 is part of the x86_64 baseline; every load reads the
        // 16 bytes at `at <= last`, inside `raw`.
        unsafe {
            let backslash = _mm_set1_epi8(b'\\' as i8);
            loop {
                let bytes = _mm_loadu_si128(raw.as_ptr().add(at) as *const __m128i);
                let found = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, backslash)) as u32;
                // The last load overlaps bytes already found clean, so its
                // first hit is still the first backslash.
                if found != 0 {
                    return Some(at + found.trailing_zeros() as usize);
                }
                if at == last {
                    return None;
                }
                at = (at + 16).min(last);
            }
        }
    }
    raw.iter().position(|&b| b == b'\\')
}

/// The 1-based column of byte `at` of a line, counted in characters as the
/// line is shown (decoded as UTF-8, each invalid sequence one U+FFFD, as
/// `String::from_utf8_lossy` shows it): a tab counts as one, a byte of
/// Windows-1252 text (`\x93`) as one, and a UTF-8 byte order mark at the
/// start of the line (the first line of a file) is not part of it.
pub fn display_column(line: &[u8], at: usize) -> usize {
    let line = &line[..at.min(line.len())];
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    1 + shown_chars(line)
}

/// The characters `bytes` show as, decoded as UTF-8 with each invalid
/// sequence one U+FFFD (`String::from_utf8_lossy`). Two pieces cut where the
/// second starts with a byte that is no UTF-8 continuation byte (ASCII or a
/// lead byte) add up to the whole: no sequence, valid or not, runs over such
/// a byte.
pub fn shown_chars(bytes: &[u8]) -> usize {
    // Plain ASCII (nearly every line) needs no decoding.
    if bytes.is_ascii() {
        return bytes.len();
    }
    bytes
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + usize::from(!chunk.invalid().is_empty()))
        .sum()
}

/// Whether two tag names or values are the same bytes. Most are a few
/// bytes long, which a call of `memcmp` (what `==` on slices makes) or a loop
/// over the bytes compares slower than two loads of a word from each end,
/// overlapping when shorter than two words: every byte is still compared.
/// Used where a name or value is compared per tag of every game (the
/// export's columns, the Python binding's dicts).
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        // Bytes 0, n / 2 and n - 1 are every byte of up to 3.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        9..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// The `N` bytes of `bytes` from `at` (the caller keeps them in range).
#[inline]
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut word = [0; N];
    word.copy_from_slice(&bytes[at..at + N]);
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes() {
        assert_eq!(&*decode_value(br#"a\"b\\c"#), br#"a"b\c"#);
        assert_eq!(&*decode_value(b"plain"), b"plain");
        // An escaped backslash does not start the next escape.
        assert_eq!(&*decode_value(br#"\\\""#), br#"\""#);
        assert_eq!(&*decode_value(br#"a\\\\b"#), br#"a\\b"#);
        assert_eq!(&*decode_value(br#"\\\\\""#), br#"\\""#);
        // A backslash before anything else, or at the end, stays.
        assert_eq!(&*decode_value(br#"a\b\"#), br#"a\b\"#);
        assert_eq!(&*decode_value(br#"\"#), br#"\"#);
    }

    proptest::proptest! {
        /// The word compare agrees with `==`, for byte strings that differ
        /// in one byte anywhere and for strings of other lengths.
        #[test]
        fn same_bytes_is_equality(
            a in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24),
            at in proptest::prelude::any::<usize>(),
            flip in 1..=255u8,
            other in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24),
        ) {
            proptest::prop_assert!(same_bytes(&a, &a.clone()));
            let mut b = a.clone();
            if !b.is_empty() {
                let i = at % b.len();
                b[i] ^= flip;
                proptest::prop_assert!(!same_bytes(&a, &b));
            }
            proptest::prop_assert_eq!(same_bytes(&a, &other), a == other);
        }

        /// The vector search finds what a plain search finds, at every length
        /// around the 16-byte loads.
        #[test]
        fn first_backslash_is_the_first(
            mut bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
            at in proptest::collection::vec(proptest::prelude::any::<usize>(), 0..3),
        ) {
            for a in at {
                if !bytes.is_empty() {
                    let n = bytes.len();
                    bytes[a % n] = b'\\';
                }
            }
            proptest::prop_assert_eq!(
                first_backslash(&bytes),
                bytes.iter().position(|&b| b == b'\\')
            );
        }

        /// Escaping any value the PGN way and decoding it gives the value back.
        #[test]
        fn decoding_undoes_escaping(value in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'\\', b'"', b' ', 0xC3, 0xA9]),
            0..24,
        )) {
            let mut escaped = Vec::new();
            for &b in &value {
                if b == b'\\' || b == b'"' {
                    escaped.push(b'\\');
                }
                escaped.push(b);
            }
            proptest::prop_assert_eq!(&*decode_value(&escaped), &value[..]);
        }
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(display_column(b"[FEN \"x\"]", 6), 7);
        assert_eq!(display_column("[É \"x\"]".as_bytes(), 5), 5);
        assert_eq!(display_column(b"\xEF\xBB\xBF[FEN \"x\"]", 9), 7);
        assert_eq!(display_column(b"\t[FEN", 2), 3);
        assert_eq!(display_column(b"ab", 10), 3);
        // Bytes that are not UTF-8 (Windows-1252 quotes, a lone continuation
        // byte) count one each, as the line is shown (U+FFFD each).
        assert_eq!(display_column(b"{\xb1 x} e5", 6), 7);
        assert_eq!(display_column(b"\x93Open\x94 \x96 Caf\xe9\"] e4", 16), 17);
        assert_eq!(display_column("{é} e5".as_bytes(), 5), 5);
        assert_eq!(
            display_column(b"\x93a\x94 x", 4),
            String::from_utf8_lossy(b"\x93a\x94 ").chars().count() + 1
        );
    }
}
