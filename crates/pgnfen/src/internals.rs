//! The engine's own jobs, sinks and helpers, public only for the fuzz targets,
//! the tests that drive the engine directly and the Python binding (cargo
//! feature `internals`, off by default). They are not part of the API: they change with the
//! engine, without notice. A program reads games through [`crate::Archive`]
//! and whole archives through the task functions.

pub use crate::archive::last_header::LastHeader;
pub use crate::check::job::{CheckJob, GameFindings};
pub use crate::convert::job::{ConvertJob, Edit, EditingSink, GameEdits, Inserted, Unchanged};
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

/// Runs `f` with the runs it starts on this thread merging every game by the
/// general path (held bytes, awaited movetext), not the short path most games
/// take: the oracle of the short path, which must call the sink the same way.
pub fn merged_the_general_way<R>(f: impl FnOnce() -> R) -> R {
    crate::pipeline::general_merge(f)
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

/// What a run hands its sink, for comparing two ways of reading one file
/// (the partitions of a cluster against one machine): each game's number,
/// offset, line and class, and every byte, in order.
#[derive(Debug, Default, PartialEq)]
pub struct GameLog {
    /// (number, offset, line, class) of each game.
    pub games: Vec<(u64, u64, u64, crate::Class)>,
    /// The bytes handed over, games' and orphans' alike.
    pub bytes: Vec<u8>,
}

impl Sink<GameFacts> for GameLog {
    fn begin_game(&mut self, info: &GameInfo, facts: GameFacts) -> std::io::Result<()> {
        self.games
            .push((info.index, info.offset, info.line, facts.class));
        Ok(())
    }
    fn bytes(&mut self, _offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.bytes.extend_from_slice(data);
        Ok(())
    }
    fn orphan_bytes(&mut self, _offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.bytes.extend_from_slice(data);
        Ok(())
    }
    /// As `filter` does: consecutive games' bytes may come together.
    fn destination(&self, facts: &GameFacts) -> Option<u8> {
        Some(facts.class.index() as u8 % 2)
    }
}

/// The [`GameLog`] of one run over the whole file.
///
/// # Errors
///
/// As [`run`].
pub fn one_machine_log(path: &std::path::Path, options: &Options) -> Result<GameLog, RunError> {
    let mut log = GameLog::default();
    run(
        &[Input::File(path.to_path_buf())],
        &StatsJob,
        &mut log,
        options,
    )?;
    Ok(log)
}

/// The [`GameLog`] of the file's partitions of about `size` bytes, run one
/// by one and resolved in order as `pgnfen.dask` resolves them (a wrong
/// guess redone, a tail that owns no game emptied), with the partitions.
///
/// # Errors
///
/// As [`crate::partition::plan`] and [`run_partition`].
pub fn partitioned_log(
    path: &std::path::Path,
    size: u64,
    options: &Options,
) -> Result<(GameLog, Vec<Partition>), Error> {
    let parts = crate::partition::plan(&[path], size)?;
    let results =
        std::cell::RefCell::new(parts.iter().map(|_| GameLog::default()).collect::<Vec<_>>());
    resolve(
        &parts,
        |i, start, bases| {
            let mut results = results.borrow_mut();
            results[i] = GameLog::default();
            run_partition(
                &parts[i],
                start,
                Some(bases),
                &StatsJob,
                &mut results[i],
                options,
            )
        },
        |i| results.borrow_mut()[i] = GameLog::default(),
    )?;
    let mut all = GameLog::default();
    for r in results.into_inner() {
        all.games.extend(r.games);
        all.bytes.extend(r.bytes);
    }
    Ok((all, parts))
}
