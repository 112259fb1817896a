//! The layer of pgnfen that knows chess and PGN but does no I/O: the FEN
//! model (three castling dialects, 8×8 and 10×8 boards, EPD), the scanner
//! that finds games and their SetUp/FEN/Variant tags in a stream of bytes,
//! the classification of a header into a [`Class`], the problem codes, and
//! the texts that carry problems to CI (GitHub workflow commands, SARIF).
//! No threads, no files, no command line: the `pgnfen` crate builds its
//! streaming engine and tasks on this one, and re-exports these modules.
//!
//! ```
//! use pgnfen_core::fen::{analyse, write, Dialect, VariantHint};
//! use pgnfen_core::Class;
//!
//! let fen = b"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1";
//! let analysis = analyse(fen, VariantHint::Chess960);
//! assert_eq!(analysis.class, Class::Chess960);
//! assert_eq!(analysis.chess960_position, Some(0));
//! let position = analysis.position.as_ref().unwrap();
//! let xfen = write::write(position, Dialect::Xfen, None).unwrap();
//! assert_eq!(xfen, "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
//! ```
#![warn(missing_docs)]
// Every type a public item takes or returns can be named by its users.
#![warn(unnameable_types)]
// Every public type can be printed with `{:?}`, as a user's own types expect.
#![warn(missing_debug_implementations)]

pub mod ci;
pub mod class;
pub mod classify;
pub mod escape;
pub mod fen;
#[doc(hidden)]
pub mod memo;
mod name_error;
pub mod pgn;
mod prefetch;
pub mod problem;
#[doc(hidden)]
pub mod words;

pub use class::Class;
pub use name_error::ParseNameError;
pub use problem::{Code, Problem, Severity};

/// The `shakmaty` crate, whose types the `to_shakmaty` conversions of [`fen`]
/// return: a program uses it from here, in the version pgnfen was built with.
pub use shakmaty;
