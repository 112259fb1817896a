//! The commands of SPEC §4, each a thin layer over the library.

pub mod check;
pub mod convert;
pub mod fen;
pub mod filter;
pub mod format;
pub mod index;
pub mod manual;
pub mod stats;

use std::io::{self, IsTerminal};

use crate::cli::Global;
use crate::pipeline::{Input, Options, RunError};

/// How a command ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit status 0.
    Clean,
    /// Exit status 1: `check` found an error, or `fen` an invalid record.
    Problems,
}

/// Why a command failed (exit status 2), or stopped early.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: io::Error,
    },
    /// Standard output was closed (`| head`): a normal, quiet end.
    #[error("broken pipe")]
    BrokenPipe,
}

impl Error {
    /// An error writing to `file`, where a closed pipe is not an error.
    pub fn writing(file: &str, source: io::Error) -> Error {
        if source.kind() == io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else {
            Error::Io {
                file: file.to_string(),
                source,
            }
        }
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Input(e) => Error::Io {
                file: e.file,
                source: e.source,
            },
            RunError::Sink(e) => Error::writing("<output>", e),
        }
    }
}

/// The inputs named on the command line; standard input when none is.
pub fn inputs(args: &[String]) -> Vec<Input> {
    if args.is_empty() {
        vec![Input::Stdin]
    } else {
        args.iter().map(|a| Input::from_arg(a)).collect()
    }
}

/// The pipeline options the global flags ask for.
pub fn options(global: &Global) -> Options {
    let threads = global
        .threads
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let progress =
        !global.quiet && !global.no_progress && (global.progress || io::stderr().is_terminal());
    Options {
        mmap: !global.no_mmap,
        ..Options::new(threads, progress)
    }
}

/// Opens every file input before any work starts, so that a missing file is
/// reported at once (exit status 2) rather than after the others were read.
pub fn check_inputs_exist(inputs: &[Input]) -> Result<(), Error> {
    for input in inputs {
        if let Input::File(path) = input
            && let Err(source) = std::fs::File::open(path)
        {
            return Err(Error::Io {
                file: input.display_name(),
                source,
            });
        }
    }
    Ok(())
}
