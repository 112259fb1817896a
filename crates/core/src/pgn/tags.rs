//! Decoding the values of the tags pgnfen reads.

use pgn_reader::RawTag;
use std::borrow::Cow;

/// The value of a tag with PGN escapes (`\"`, `\\`) decoded, by pgn-reader.
pub fn decode_value(raw: &[u8]) -> Cow<'_, [u8]> {
    RawTag(raw).decode()
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
