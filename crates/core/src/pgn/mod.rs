//! The PGN stream: where games begin and end (docs/games.md)
//! and where their SetUp, FEN and Variant tag values lie.
//!
//! ```
//! use pgnfen_core::pgn::scan::{Event, Scanner, TagName};
//!
//! let pgn = b"[Event \"a\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n*\n\n[Event \"b\"]\n\n1. e4 *\n";
//! let mut scanner = Scanner::new();
//! let mut events = Vec::new();
//! // Any split of the input gives the same events.
//! scanner.feed(&pgn[..20], &mut events);
//! scanner.feed(&pgn[20..], &mut events);
//! scanner.finish(&mut events);
//! let starts: Vec<u64> = events
//!     .iter()
//!     .filter_map(|e| match e {
//!         Event::GameStart { line, .. } => Some(*line),
//!         _ => None,
//!     })
//!     .collect();
//! assert_eq!(starts, [1, 7]);
//! let fen = events.iter().find_map(|e| match e {
//!     Event::Tag(t) if t.name == TagName::Fen => Some(&pgn[t.value.start as usize..t.value.end as usize]),
//!     _ => None,
//! });
//! assert_eq!(fen, Some(&b"8/8/8/8/8/8/8/K6k w - - 0 1"[..]));
//! ```

pub mod encoding;
pub mod scan;
pub mod tags;
