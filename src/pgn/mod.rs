//! The PGN stream: where games begin and end (README, "What counts as a game")
//! and where their SetUp, FEN and Variant tag values lie.

pub mod encoding;
pub mod scan;
pub mod tags;
