//! pgnfen: the start-position headers of chess games (SetUp, FEN, Variant).
//!
//! The library is usable without the command line: [`fen`] is the FEN model,
//! [`pgn`] the game cut, [`classify`] the verdict on a game's tags, [`pipeline`]
//! the parallel streaming of whole archives, [`export`] every game's headers as
//! Arrow record batches (Parquet, CSV, JSON lines), [`commands`] the commands of
//! the binary built on them.

pub mod archive;
pub mod class;
pub mod classify;
pub mod cli;
pub mod commands;
pub mod export;
pub mod fen;
pub mod memo;
pub mod pgn;
pub mod pipeline;
pub mod problem;
pub mod select;
