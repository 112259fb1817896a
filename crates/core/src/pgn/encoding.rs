//! The character set of tag names and values: UTF-8 when the bytes are valid
//! UTF-8, Windows-1252 otherwise.
//!
//! The PGN standard's own character set is ISO 8859-1 (Latin-1), and old
//! archives (ChessBase exports, TWIC before 2011, opening books) are written in
//! it or in Windows-1252, its superset; newer ones are UTF-8. A Latin-1 `é` is
//! the single byte 0xE9, which is never valid UTF-8 on its own, so a value
//! that is valid UTF-8 is almost surely UTF-8, and one that is not is read as
//! Windows-1252 (as browsers read text labelled Latin-1). Every byte then
//! decodes to a character: nothing is lost and no `U+FFFD` appears.
//!
//! Only text shown to people or written to tables is decoded: the bytes of
//! the games themselves (`filter`, `convert`, the `raw` spans of the Python
//! package) are never touched.

use std::borrow::Cow;
use std::fmt;

/// How tag names and values are decoded (`--encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8 when valid, else Windows-1252 (each value on its own).
    #[default]
    Auto,
    /// UTF-8; invalid bytes become U+FFFD in values and `\xNN` in names.
    Utf8,
    /// Windows-1252 (the superset of ISO 8859-1), whatever the bytes.
    Latin1,
}

impl Encoding {
    /// Every encoding, by the name `--encoding` takes.
    pub const NAMES: [(&'static str, Encoding); 3] = [
        ("auto", Encoding::Auto),
        ("utf-8", Encoding::Utf8),
        ("latin-1", Encoding::Latin1),
    ];

    /// The name `--encoding` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Auto => "auto",
            Encoding::Utf8 => "utf-8",
            Encoding::Latin1 => "latin-1",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Encoding {
    type Err = crate::ParseNameError;

    /// `auto`, `utf-8` (or `utf8`), `latin-1` (or `latin1`, `iso-8859-1`,
    /// `windows-1252`, `cp1252`), case ignored.
    fn from_str(s: &str) -> Result<Encoding, crate::ParseNameError> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "auto" => Ok(Encoding::Auto),
            "utf-8" | "utf8" => Ok(Encoding::Utf8),
            "latin-1" | "latin1" | "iso-8859-1" | "windows-1252" | "cp1252" => Ok(Encoding::Latin1),
            _ => Err(crate::ParseNameError::new(
                "encoding",
                s,
                Some("auto, utf-8 or latin-1"),
            )),
        }
    }
}

/// Windows-1252's characters for the bytes 0x80 to 0x9F; the five bytes it
/// leaves undefined keep their Latin-1 meaning (C1 controls), as in the
/// WHATWG encoding standard, so that every byte decodes to a distinct character.
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// The Windows-1252 character of a byte.
fn cp1252(b: u8) -> char {
    match b {
        0x80..=0x9F => CP1252_HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// Decodes all of `bytes` as Windows-1252.
pub fn windows_1252(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| cp1252(b)).collect()
}

/// A tag value as text in `encoding` (the value already unescaped).
pub fn decode(bytes: &[u8], encoding: Encoding) -> Cow<'_, str> {
    match encoding {
        Encoding::Latin1 if !bytes.is_ascii() => Cow::Owned(windows_1252(bytes)),
        _ => match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) if encoding == Encoding::Utf8 => String::from_utf8_lossy(bytes),
            Err(_) => Cow::Owned(windows_1252(bytes)),
        },
    }
}

/// A tag value as written between its quotes (with its `\"` and `\\`
/// escapes) as text: unescaped, then decoded as `encoding` says; borrowed
/// from `raw` when neither changes anything.
pub fn decode_escaped(raw: &[u8], encoding: Encoding) -> Cow<'_, str> {
    if is_plain_ascii(raw) {
        // SAFETY: every byte is below 0x80 (checked just above): ASCII,
        // which is valid UTF-8.
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(raw) });
    }
    unescape_and_decode(raw, encoding)
}

/// [`decode_escaped`] for any value: unescaped, then decoded.
fn unescape_and_decode(raw: &[u8], encoding: Encoding) -> Cow<'_, str> {
    match super::tags::decode_value(raw) {
        Cow::Borrowed(bytes) => decode(bytes, encoding),
        Cow::Owned(bytes) => Cow::Owned(decode(&bytes, encoding).into_owned()),
    }
}

/// Whether `raw` is ASCII without a backslash: a value with no escape to
/// undo, which reads as itself in every encoding (nearly every value).
/// Eight bytes at a time, without the calls of a backslash search and a
/// UTF-8 check, which took about 200 instructions for a value of a few bytes
/// (the values Python's `headers` decode for each game).
#[inline]
fn is_plain_ascii(raw: &[u8]) -> bool {
    use crate::words::{word_has, word_high};
    let mut words = raw.chunks_exact(8);
    let mut found = 0;
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        // Whether either test found a byte is exact, whatever the bits above.
        found |= word_high(word) | word_has(word, b'\\');
    }
    found == 0
        && words
            .remainder()
            .iter()
            .all(|&b| b.is_ascii() && b != b'\\')
}

/// A tag name as text in `encoding`. The Windows-1252 decoding gives every
/// byte its own character, and in `utf-8` a name with invalid bytes shows
/// them as `\xNN` (and a backslash of such a name as `\\`) rather than as
/// U+FFFD, which would make every such name one. Two names with invalid
/// bytes never look alike; a valid name that spells `\xNN` itself can look
/// like one (`export` gives the later one a key of its own, `NAME#2`).
pub fn decode_name(bytes: &[u8], encoding: Encoding) -> Cow<'_, str> {
    match encoding {
        Encoding::Utf8 => match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => Cow::Owned(escaped(bytes)),
        },
        _ => decode(bytes, encoding),
    }
}

/// The key of the `n`-th pair (from 2) of a tag name where each tag name is
/// a key once (`export`'s `other_tags`, Python's `headers`): `NAME#n`. `#`
/// is no character of a PGN tag name, so such a key names no tag of its own.
pub fn repeat_key(name: &str, n: u32) -> String {
    format!("{name}#{n}")
}

/// `key`, or when `taken` says the row or dict already has it, `key#2`,
/// `key#3`, ..., the first that is free: two names of a header can read
/// alike once decoded (`0xE9` and `0xC3 0xA9` are both `é`), and a name of
/// the file may itself end in `#2`, as a repeat's key does.
pub fn unique_key(key: String, taken: impl Fn(&str) -> bool) -> String {
    if !taken(&key) {
        return key;
    }
    (2u32..)
        .map(|n| repeat_key(&key, n))
        .find(|k| !taken(k))
        .expect("a header has fewer keys than numbers")
}

/// `bytes` with each byte that is not part of valid UTF-8 written `\xNN`
/// (upper-case hex) and each backslash `\\`.
pub fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_key_gets_the_first_free_number() {
        let taken = ["Event", "Event#2", "Event#3"];
        assert_eq!(unique_key("Site".into(), |k| taken.contains(&k)), "Site");
        assert_eq!(
            unique_key("Event".into(), |k| taken.contains(&k)),
            "Event#4"
        );
        assert_eq!(repeat_key("Event", 2), "Event#2");
        // A name ending in `#2` itself is numbered on from its own text.
        assert_eq!(
            unique_key("Event#2".into(), |k| taken.contains(&k)),
            "Event#2#2"
        );
    }

    #[test]
    fn utf8_when_valid_else_windows_1252() {
        assert_eq!(decode("Réti".as_bytes(), Encoding::Auto), "Réti");
        assert_eq!(decode(b"R\xe9ti", Encoding::Auto), "Réti");
        assert_eq!(decode(b"\x80 \x9c", Encoding::Auto), "€ œ");
        assert_eq!(decode(b"R\xe9ti", Encoding::Utf8), "R\u{FFFD}ti");
        // latin-1 reads even valid UTF-8 byte by byte (the user said so).
        assert_eq!(decode("é".as_bytes(), Encoding::Latin1), "Ã©");
        assert!(matches!(
            decode(b"plain", Encoding::Latin1),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn every_byte_decodes_to_a_distinct_character() {
        let all: Vec<char> = (0..=255u8).map(cp1252).collect();
        let mut sorted = all.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 256);
    }

    #[test]
    fn names_stay_distinct_in_utf8() {
        assert_eq!(decode_name(b"Na\xffme", Encoding::Utf8), "Na\\xFFme");
        assert_eq!(decode_name(b"Na\xfeme", Encoding::Utf8), "Na\\xFEme");
        assert_eq!(decode_name(b"a\\\xff", Encoding::Utf8), "a\\\\\\xFF");
        assert_eq!(decode_name(b"Name", Encoding::Utf8), "Name");
        assert_eq!(decode_name(b"Na\xffme", Encoding::Auto), "Naÿme");
    }

    /// The inverse of [`escaped`]: `\\` is a backslash, `\xNN` the byte NN.
    fn unescaped(text: &str) -> Vec<u8> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match (bytes[i], bytes.get(i + 1)) {
                (b'\\', Some(b'\\')) => {
                    out.push(b'\\');
                    i += 2;
                }
                (b'\\', Some(b'x')) => {
                    let hex = std::str::from_utf8(&bytes[i + 2..i + 4]).unwrap();
                    out.push(u8::from_str_radix(hex, 16).unwrap());
                    i += 4;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        out
    }

    proptest::proptest! {
        /// The shortcut for plain ASCII values gives what unescaping and
        /// decoding give, borrowed, and is taken exactly for them; the
        /// bytes include the backslash, the quote and bytes from 0x80 at
        /// every place of a word.
        #[test]
        fn plain_values_decode_as_themselves(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    6 => 0x20u8..0x7f,
                    1 => proptest::strategy::Just(b'\\'),
                    1 => proptest::strategy::Just(b'"'),
                    1 => 0x80u8..=0xff,
                    1 => 0u8..0x20,
                ],
                0..40,
            ),
            which in 0..3usize,
        ) {
            let encoding = [Encoding::Auto, Encoding::Utf8, Encoding::Latin1][which];
            let plain = bytes.is_ascii() && !bytes.contains(&b'\\');
            proptest::prop_assert_eq!(is_plain_ascii(&bytes), plain);
            let got = decode_escaped(&bytes, encoding);
            proptest::prop_assert_eq!(&got, &unescape_and_decode(&bytes, encoding));
            if plain {
                proptest::prop_assert!(matches!(got, Cow::Borrowed(_)));
            }
        }

        /// Nothing is lost in decoding: Windows-1252 text gives back its
        /// bytes through the inverse table, and a name with invalid bytes in
        /// `utf-8` through `\xNN` (so that no two such names decode alike);
        /// `auto` is UTF-8 exactly when the bytes are; unescaping comes
        /// before decoding.
        #[test]
        fn decoding_keeps_every_byte(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24),
            text in "[a-z\\\\\"\u{e9}\u{20ac}x0-9]{0,12}",
        ) {
            let back: Vec<u8> = windows_1252(&bytes)
                .chars()
                .map(|c| (0..=255u8).find(|&b| cp1252(b) == c).expect("a byte of its own"))
                .collect();
            proptest::prop_assert_eq!(&back, &bytes);
            for input in [bytes.clone(), text.clone().into_bytes()] {
                let name = decode_name(&input, Encoding::Utf8);
                match std::str::from_utf8(&input) {
                    Ok(s) => proptest::prop_assert_eq!(&*name, s),
                    Err(_) => proptest::prop_assert_eq!(unescaped(&name), input.clone()),
                }
                let auto = decode(&input, Encoding::Auto);
                match std::str::from_utf8(&input) {
                    Ok(s) => proptest::prop_assert_eq!(&*auto, s),
                    Err(_) => proptest::prop_assert_eq!(auto.into_owned(), windows_1252(&input)),
                }
                let unescaped_value = super::super::tags::decode_value(&input);
                proptest::prop_assert_eq!(
                    decode_escaped(&input, Encoding::Latin1),
                    decode(&unescaped_value, Encoding::Latin1)
                );
            }
        }
    }

    #[test]
    fn names_parse() {
        assert_eq!("UTF8".parse::<Encoding>(), Ok(Encoding::Utf8));
        assert_eq!("iso-8859-1".parse::<Encoding>(), Ok(Encoding::Latin1));
        assert!("ebcdic".parse::<Encoding>().is_err());
    }
}
