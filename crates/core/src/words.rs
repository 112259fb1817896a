//! Byte tests on eight bytes at once (a `u64` read little-endian), for the
//! searches through tag text that run per tag of every game. For the crates
//! of this workspace; not part of the API.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A word whose lowest set bit is the high bit of the first byte of `word`
/// (in little-endian order) equal to `byte`, or 0 when none is. Bits above
/// that one may be set wrongly (a borrow runs on past the first equal
/// byte), so only the lowest may be read; whether the word is 0 is exact.
#[inline]
pub fn word_has(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// As [`word_has`], for the first byte of `word` below `limit` (at most
/// 0x80); bytes from 0x80 up are never below.
#[inline]
pub fn word_below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS
}

/// The high bit of every byte of `word` from 0x80 up (0: the word is ASCII).
#[inline]
pub fn word_high(word: u64) -> u64 {
    word & HIGHS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte a word test's lowest bit points at.
    fn first(found: u64) -> Option<usize> {
        (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
    }

    proptest::proptest! {
        /// Each test's lowest bit is the first byte a byte loop finds, on
        /// words that repeat the sought byte and hold bytes from 0x80 up.
        #[test]
        fn tests_find_the_first_byte_a_loop_finds(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b'"'),
                    proptest::strategy::Just(b'#'),
                    0u8..0x30,
                    0x80u8..=0xff,
                ],
                8,
            ),
            limit in 1u8..=0x80,
        ) {
            let word = u64::from_le_bytes(bytes.clone().try_into().unwrap());
            proptest::prop_assert_eq!(first(word_has(word, b'"')), bytes.iter().position(|&b| b == b'"'));
            proptest::prop_assert_eq!(first(word_below(word, limit)), bytes.iter().position(|&b| b < limit));
            proptest::prop_assert_eq!(word_high(word) == 0, bytes.is_ascii());
        }
    }
}
