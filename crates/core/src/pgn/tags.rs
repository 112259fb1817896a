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
    let Some(first) = memchr::memchr(b'\\', raw) else {
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

/// The 1-based column of byte `at` of a line, counted in characters: UTF-8
/// continuation bytes do not count, a tab counts as one, and a UTF-8 byte order
/// mark at the start of the line (the first line of a file) is not part of it.
pub fn display_column(line: &[u8], at: usize) -> usize {
    let line = &line[..at.min(line.len())];
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    1 + line.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
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
    }
}
