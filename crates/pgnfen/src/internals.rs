//! The engine's own jobs, sinks and helpers, public only for the fuzz targets
//! and the tests that drive the engine directly (cargo feature `internals`,
//! off by default). They are not part of the API: they change with the
//! engine, without notice. A program reads games through [`crate::Archive`]
//! and whole archives through the task functions.

pub use crate::check::job::{CheckJob, GameFindings};
pub use crate::convert::job::{ConvertJob, Edit, EditingSink, GameEdits, Unchanged};
pub use crate::filter::job::{FilterJob, Split};
pub use crate::moves::job::{Moved, WithMoves};
pub use crate::pipeline::game::{Header, HeaderTag, Job};
pub use crate::pipeline::sink::{GameInfo, Sink};
pub use crate::stats::job::{GameFacts, StatsJob};

use crate::Error;
use crate::partition::{Bases, Outcome, Partition, Start, Verdict, judge};
use crate::pipeline::{Input, Options, RunError};

/// Streams every input through `job` and `sink`, in order: the engine under
/// every task. Returns the number of games.
///
/// # Errors
///
/// [`RunError::Input`] when an input cannot be read, [`RunError::Sink`] when
/// the sink fails.
pub fn run<J: Job, S: Sink<J::Game>>(
    inputs: &[Input],
    job: &J,
    sink: &mut S,
    options: &Options,
) -> Result<u64, RunError> {
    crate::pipeline::run(inputs, job, sink, options)
}

/// Runs `job` and `sink` over the games `part` owns, reading from `start`
/// (with the games placed in the whole input when `bases` are given).
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read, or the sink failed.
pub fn run_partition<J: Job, S: Sink<J::Game>>(
    part: &Partition,
    start: Start,
    bases: Option<Bases>,
    job: &J,
    sink: &mut S,
    options: &Options,
) -> Result<Outcome, Error> {
    crate::partition::run(part, start, bases, job, sink, options)
}

/// The number of mainline moves of a movetext (what a replay can play).
pub fn mainline_len(bytes: &[u8]) -> usize {
    crate::moves::mainline_len(bytes)
}

/// Runs a whole set of partitions on this machine as a cluster would: each
/// speculatively, then in order, judged by its predecessor and run again when
/// its guess was wrong. `each` runs one partition (with the bases of its rows)
/// and keeps its results; `discard` forgets the results of partition `i`
/// before it is run again or found empty. Returns the final outcomes.
///
/// # Errors
///
/// The first error of `each`.
pub fn resolve<F, D>(
    parts: &[Partition],
    mut each: F,
    mut discard: D,
) -> Result<Vec<Outcome>, Error>
where
    F: FnMut(usize, Start, Bases) -> Result<Outcome, Error>,
    D: FnMut(usize),
{
    let mut outcomes = Vec::with_capacity(parts.len());
    let mut bases = Bases::default();
    for (i, part) in parts.iter().enumerate() {
        if part.index == 0 {
            bases = Bases::default();
        }
        let previous = (part.index > 0).then(|| outcomes.last()).flatten();
        let outcome = each(i, Start::Guess, bases)?;
        let outcome = match judge(previous, &outcome) {
            Verdict::Keep => outcome,
            Verdict::Redo(at) => {
                discard(i);
                each(i, Start::At(at), bases)?
            }
            Verdict::Empty(next) => {
                discard(i);
                Outcome::empty(next, outcome.decoded_len)
            }
        };
        bases = bases.after(&outcome);
        outcomes.push(outcome);
    }
    Ok(outcomes)
}
