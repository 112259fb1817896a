//! Decoding the values of the tags pgnfen reads.

use pgn_reader::RawTag;
use std::borrow::Cow;

/// The value of a tag with PGN escapes (`\"`, `\\`) decoded, by pgn-reader.
pub fn decode_value(raw: &[u8]) -> Cow<'_, [u8]> {
    RawTag(raw).decode()
}
