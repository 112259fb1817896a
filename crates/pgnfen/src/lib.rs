//! pgnfen reads PGN chess archives of any size as a stream, at the speed of the
//! disk, and works on the start-position headers of each game: the `SetUp`,
//! `FEN` and `Variant` tags. It tells what kind of game each one is ([`Class`]:
//! standard, set-up position, Chess960 with its start-position number,
//! Capablanca-family 10×8, another variant, or malformed), finds the problems
//! of those tags ([`Code`]), and rewrites FENs in any of three castling
//! dialects (FEN, X-FEN, Shredder-FEN).
//!
//! # Reading an archive
//!
//! [`Archive`] streams the games of one or more files (plain, gzip, bzip2,
//! zstd, xz or zip, recognised by their first bytes), in input order, cut and
//! classified on worker threads, with bounded memory whatever their size:
//!
//! ```
//! use pgnfen::{Archive, Class};
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("games.pgn");
//! # std::fs::write(&path, "[Event \"a\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
//! #     [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n1. e4 *\n\n\
//! #     [Event \"b\"]\n\n1. d4 *\n")?;
//! let mut chess960 = 0;
//! for game in Archive::open([&path])?.games() {
//!     let game = game?;
//!     if game.class == Class::Chess960 {
//!         chess960 += 1;
//!         println!("game {} starts from position {:?}", game.game, game.chess960_position);
//!     }
//! }
//! assert_eq!(chess960, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Whole-archive tasks
//!
//! The commands of the `pgnfen` program are library functions that take an
//! options struct: [`stats::run`] counts, [`filter::run`] selects games byte
//! for byte, [`split::run`] writes one file per class, [`convert::run`]
//! rewrites FEN tags in another dialect, [`check::run`] reports problems,
//! `export` turns every game's headers into Arrow record batches (Parquet,
//! CSV, JSON lines; the default cargo feature `export`, which brings Arrow and
//! Parquet). All run on [`pipeline`], the parallel streaming engine: a reader
//! cuts the input into chunks, worker threads scan them and classify each
//! game, and the results are merged back in input order.
//!
//! # The FEN model
//!
//! [`fen`] parses FEN, X-FEN, Shredder-FEN and EPD records for 8×8 and 10×8
//! boards, tells the class and problems of a position, and writes it in any
//! dialect:
//!
//! ```
//! use pgnfen::fen::{Dialect, VariantHint, analyse};
//!
//! // X-FEN: the outermost rooks are written KQkq.
//! let analysis = analyse(b"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1", VariantHint::Chess960);
//! assert_eq!(analysis.chess960_position, Some(0));
//! let position = analysis.position.expect("a legal position");
//! assert_eq!(
//!     position.write(Dialect::Shredder, None)?,
//!     "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"
//! );
//! # Ok::<(), pgnfen::Problem>(())
//! ```
//!
//! # Time controls
//!
//! [`speed`] reads the `TimeControl` tag (`300+3`, `40/5400+30:1800+30`,
//! `10+0.1`, `-`) and gives each game a [`Speed`] (ultrabullet to
//! correspondence, or unknown), which `filter`, `split`, `stats` and `export`
//! select and count by:
//!
//! ```
//! use pgnfen::Speed;
//!
//! assert_eq!(Speed::of(Some(b"900+10")), Speed::Rapid);
//! assert_eq!(Speed::of(Some(b"1/86400")), Speed::Correspondence);
//! ```
//!
//! The lower layers are public for programs that need them: [`pgn`] (the
//! game scanner), [`classify`] (the verdict on a header's tags) and
//! [`pipeline`] (the engine's options, inputs, outputs and signals; every
//! game in order is [`Archive`]'s).
#![warn(missing_docs)]
// Every type a public item takes or returns can be named by its users.
#![warn(unnameable_types)]
// Every public type can be printed with `{:?}`, as a user's own types expect.
#![warn(missing_debug_implementations)]

pub mod archive;
pub mod book;
pub mod check;
pub mod convert;
mod error;
#[cfg(feature = "export")]
pub mod export;
pub mod filter;
#[cfg(feature = "internals")]
pub mod internals;
pub mod moves;
pub mod partition;
pub mod pipeline;
pub mod select;
pub mod speed;
pub mod split;
pub mod stats;

// The layer without I/O (the FEN model, the game scanner, classification,
// problems), re-exported under the names it always had here. Its items are
// documented where they live, in pgnfen-core, and linked from here.
pub(crate) use pgnfen_core::memo;
#[doc(no_inline)]
pub use pgnfen_core::{ci, class, classify, escape, fen, pgn, problem};

pub use archive::{Archive, Game};
#[doc(no_inline)]
pub use class::Class;
pub use error::{Error, Usage};
#[doc(no_inline)]
pub use pgnfen_core::ParseNameError;
#[doc(no_inline)]
pub use problem::{Code, Problem, Severity};
pub use select::TagExpr;
pub use speed::Speed;

/// The `shakmaty` crate, whose types [`moves`] takes and returns (a
/// variant's rules, its positions): used from here, it is the version
/// pgnfen was built with.
pub use pgnfen_core::shakmaty;
/// The Arrow crates whose types [`export`] hands out (`RecordBatch`,
/// `SchemaRef`), in the versions pgnfen was built with.
#[cfg(feature = "export")]
pub use {arrow_array, arrow_schema};
