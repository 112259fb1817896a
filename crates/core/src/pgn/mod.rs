//! The PGN stream: where games begin and end (docs/games.md)
//! and where their SetUp, FEN and Variant tag values lie.

pub mod encoding;
pub mod scan;
pub mod tags;
