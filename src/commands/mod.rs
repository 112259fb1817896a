//! The commands, each a thin layer over the library: flags in, the library's
//! entry point, results printed for people (or as JSON, CSV, ...).

pub mod check;
pub mod convert;
pub mod export;
pub mod fen;
pub mod filter;
pub mod index;
pub mod manual;
pub mod split;
pub mod stats;

use std::io::{self, IsTerminal};

pub use pgnfen::Error;
pub use pgnfen::pipeline::check_inputs_exist;
use pgnfen::pipeline::{Input, Options};

use crate::cli::Global;

/// How a command ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit status 0.
    Clean,
    /// Exit status 1: `check` found an error, or `fen` an invalid record.
    Problems,
}

/// The inputs named on the command line; standard input when none is. Paths
/// stay `OsStr` from the command line to `open`: a file name need not be UTF-8.
pub fn inputs(args: &[std::path::PathBuf]) -> Vec<Input> {
    if args.is_empty() {
        vec![Input::Stdin]
    } else {
        args.iter().map(Input::from_arg).collect()
    }
}

/// The pipeline options the global flags ask for.
pub fn options(global: &Global) -> Options {
    // `-j 0` is refused by the flag parser.
    let threads = global
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let progress =
        !global.quiet && !global.no_progress && (global.progress || io::stderr().is_terminal());
    Options {
        notes: !global.quiet,
        mmap: !global.no_mmap,
        ..Options::new(threads, progress)
    }
}
