//! Counting an archive: games by class and speed, Chess960 start positions
//! and problem codes (what `pgnfen stats` prints).
//!
//! ```no_run
//! use pgnfen::pipeline::Input;
//! use pgnfen::{Class, stats};
//!
//! let counts = stats::run(&[Input::from_arg("games.pgn.zst")], &stats::Options::default())?;
//! println!("{} games, {} Chess960", counts.games, counts.class(Class::Chess960));
//! for (position, n) in counts.top_positions(3) {
//!     println!("start position {position}: {n} games");
//! }
//! # Ok::<(), pgnfen::Error>(())
//! ```

use std::io::{self, Write};

use serde::Serialize;

use crate::class::Class;
use crate::error::{Error, check_inputs_exist};
use crate::moves::{Moved, MovesMode};
use crate::pipeline::{self, GameInfo, Header, Input, Job, Sink};
use crate::problem::Code;
use crate::select::Selector;
use crate::speed::Speed;

pub(crate) mod job;
pub(crate) use job::{GameFacts, StatsJob, TaggedStatsJob};

/// What to count.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Count only the games for which every tag expression holds and whose
    /// speed is listed (every game when empty; the others are counted in
    /// [`Counts::unmatched`]).
    pub selector: Selector,
    /// Replay each game's mainline (`--moves`) and count the games checked,
    /// with an illegal move, and not checked ([`Counts::moves`]).
    pub moves: Option<MovesMode>,
    /// Threads, progress, reading.
    pub run: pipeline::Options,
}

/// Counts the games of `inputs`, in one pass on the worker threads.
///
/// # Errors
///
/// [`Error::Io`] when an input cannot be read; [`Error::Usage`] when the tag
/// expressions (with `TimeControl`, for a speed list) name more distinct tags
/// than one run can look for, before anything is read. (A regular expression
/// that does not compile is refused earlier, by [`TagExpr`](crate::TagExpr)'s parsing.)
pub fn run(inputs: &[Input], options: &Options) -> Result<Counts, Error> {
    let selector = options.selector.clone().with_time_control();
    selector.validate()?;
    check_inputs_exist(inputs)?;
    let mut counts = Counts::before(&selector, options.moves);
    with_stats_job!(&selector, options.moves, |job| pipeline::run(
        inputs,
        job,
        &mut counts,
        &options.run
    ))?;
    Ok(counts)
}

/// Evaluates `$run` with `$job` the job that counts games as the selector
/// `$selector` and the replay `$moves` ask: the plain count, with the
/// selector's tags, with a replay, or both. Four job types, each call of the
/// pipeline made for its own (a macro rather than a function for that), the
/// same for [`run`] and a partition's `stats`.
macro_rules! with_stats_job {
    ($selector:expr, $moves:expr, |$job:ident| $run:expr) => {{
        let selector: &$crate::select::Selector = $selector;
        let moves: Option<$crate::moves::MovesMode> = $moves;
        let tagged = $crate::stats::TaggedStatsJob(selector);
        match (selector.is_empty(), moves) {
            (true, None) => {
                let $job = &$crate::stats::StatsJob;
                $run
            }
            (false, None) => {
                let $job = &tagged;
                $run
            }
            (true, Some(mode)) => {
                let $job = &$crate::moves::WithMoves {
                    inner: $crate::stats::StatsJob,
                    mode,
                };
                $run
            }
            (false, Some(mode)) => {
                let $job = &$crate::moves::WithMoves {
                    inner: tagged,
                    mode,
                };
                $run
            }
        }
    }};
}
pub(crate) use with_stats_job;

/// The counts of one or more archives.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Games counted (with a selection: the games it keeps).
    pub games: u64,
    /// Whether a selection was given, tag expressions or speeds (then
    /// [`Counts::unmatched`] means something).
    pub tagged: bool,
    /// Games read that the selection left out (not in any other count).
    pub unmatched: u64,
    /// Chess960 games that do not start from a start array (no position number).
    pub chess960_unnumbered: u64,
    /// Games by class, indexed by [`Class::index`].
    pub classes: [u64; Class::ALL.len()],
    /// Games by speed, indexed by [`Speed::index`].
    pub speeds: [u64; Speed::ALL.len()],
    /// Games by speed and class, indexed by [`Speed::index`] then [`Class::index`].
    pub speed_classes: [[u64; Class::ALL.len()]; Speed::ALL.len()],
    /// Chess960 games by start position.
    pub chess960_positions: PositionCounts,
    /// Problems by code, indexed by `Code as usize`.
    pub problems: [u64; Code::ALL.len()],
    /// With `--moves`: the games replayed and what was found.
    pub moves: Option<MoveCounts>,
}

impl Counts {
    /// Nothing counted yet, for a run with `selector` and `moves`.
    pub(crate) fn before(selector: &Selector, moves: Option<MovesMode>) -> Counts {
        Counts {
            tagged: !selector.is_empty(),
            moves: moves.map(|_| MoveCounts::default()),
            ..Counts::default()
        }
    }
}

/// Games by what the replay of their mainline found (`stats --moves`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoveCounts {
    /// Games replayed (with or without an illegal move).
    pub checked: u64,
    /// Games replayed that hold an illegal move.
    pub illegal: u64,
    /// Games not replayed ([`Replay::checked`](crate::moves::Replay::checked) false): classes crc and
    /// malformed, other variants, variant FENs that cannot be read, and games
    /// whose replay stopped short of their end ([`Replay::Unfinished`](crate::moves::Replay::Unfinished)).
    pub not_checked: u64,
}

/// Games by Chess960 start position (0 to 959): a count for each number,
/// so that counting a game is one addition on the merger thread, which every
/// game passes (a map's search per game was 2 % of `stats` on an archive of
/// Chess960 games).
#[derive(Clone, PartialEq, Eq)]
pub struct PositionCounts(Box<[u64; POSITIONS]>);

const POSITIONS: usize = crate::fen::chess960::POSITIONS as usize;

impl Default for PositionCounts {
    fn default() -> PositionCounts {
        PositionCounts(Box::new([0; POSITIONS]))
    }
}

impl PositionCounts {
    /// The games that start from position `n` (0 for a number past 959).
    pub fn get(&self, n: u16) -> u64 {
        self.0.get(usize::from(n)).copied().unwrap_or(0)
    }

    /// The positions that some game starts from, ascending, with their games.
    pub fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        (0u16..)
            .zip(self.0.iter())
            .filter(|&(_, &games)| games > 0)
            .map(|(n, &games)| (n, games))
    }

    /// How many positions some game starts from.
    pub fn len(&self) -> usize {
        self.0.iter().filter(|&&games| games > 0).count()
    }

    /// Whether no game has a start position.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&games| games == 0)
    }

    /// Counts a game that starts from position `n` (the classification gives
    /// 0 to 959; a number past them is not counted rather than a panic).
    fn add(&mut self, n: u16) {
        if let Some(games) = self.0.get_mut(usize::from(n)) {
            *games += 1;
        }
    }
}

/// As a map of the positions that some game starts from.
impl std::fmt::Debug for PositionCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Counts {
    /// Writes the counts as one line of JSON, the object `pgnfen stats
    /// --format json` prints: `{"games": N, "classes": {...}, "speeds": {...},
    /// "chess960_positions": {...}, "problems": {...}}`, every class and speed
    /// key present, with `"unmatched"` after `"games"` when tag expressions or
    /// speeds were given, and `"moves"` with `--moves`.
    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        write_json(out, self)
    }

    /// The games of `class`.
    pub fn class(&self, class: Class) -> u64 {
        self.classes[class.index()]
    }

    /// The games of `speed`.
    pub fn speed(&self, speed: Speed) -> u64 {
        self.speeds[speed.index()]
    }

    /// The problems with `code`.
    pub fn problem(&self, code: Code) -> u64 {
        self.problems[code as usize]
    }

    /// Counts one game.
    pub(crate) fn add(&mut self, facts: &GameFacts) {
        if !facts.matched {
            self.unmatched += 1;
            return;
        }
        self.games += 1;
        self.classes[facts.class.index()] += 1;
        self.speeds[facts.speed.index()] += 1;
        self.speed_classes[facts.speed.index()][facts.class.index()] += 1;
        if let Some(n) = facts.chess960_position {
            self.chess960_positions.add(n);
        } else if facts.class == Class::Chess960 {
            self.chess960_unnumbered += 1;
        }
        // Most games have no problem: one compare instead of fifteen sums,
        // on the merger thread, which every game passes.
        if !facts.problems.is_empty() {
            // In the order of `Code::ALL`, as `self.problems` is.
            for (total, (_, n)) in self.problems.iter_mut().zip(facts.problems.iter()) {
                *total += u64::from(n);
            }
        }
        self.problems[Code::DuplicateTag as usize] += facts.unlisted_duplicates;
    }

    /// Chess960 start positions, most common first (ties by number).
    pub fn top_positions(&self, n: usize) -> Vec<(u16, u64)> {
        let mut v: Vec<_> = self.chess960_positions.iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

impl Sink<Moved<GameFacts>> for Counts {
    fn begin_game(&mut self, _info: &GameInfo, game: Moved<GameFacts>) -> io::Result<()> {
        self.add(&game.inner);
        if game.inner.matched {
            let moves = self.moves.get_or_insert_with(MoveCounts::default);
            if game.replay.checked() {
                moves.checked += 1;
            } else {
                moves.not_checked += 1;
            }
            if game.replay.illegal().is_some() {
                moves.illegal += 1;
                self.problems[Code::IllegalMove as usize] += 1;
            }
        }
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        false
    }
}

impl Sink<GameFacts> for Counts {
    fn begin_game(&mut self, _info: &GameInfo, game: GameFacts) -> io::Result<()> {
        self.add(&game);
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        false
    }
}

#[derive(Serialize)]
struct JsonStats {
    games: u64,
    /// Only with `--tag`: games read that did not satisfy it.
    #[serde(skip_serializing_if = "Option::is_none")]
    unmatched: Option<u64>,
    classes: serde_json::Map<String, serde_json::Value>,
    speeds: serde_json::Map<String, serde_json::Value>,
    chess960_positions: serde_json::Map<String, serde_json::Value>,
    problems: serde_json::Map<String, serde_json::Value>,
    /// Only with `--moves`.
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<MoveCounts>,
}

/// [`Counts::write_json`]: writes `counts` as one line of JSON, the object `pgnfen stats --format json`
/// prints: `{"games": N, "classes": {...}, "speeds": {...},
/// "chess960_positions": {...}, "problems": {...}}`, every class and speed key
/// present, with `"unmatched"` after `"games"` when tag expressions or speeds
/// were given.
pub(crate) fn write_json(out: &mut impl Write, counts: &Counts) -> io::Result<()> {
    let tagged = counts.tagged;
    let classes = Class::ALL
        .iter()
        .map(|c| (c.as_str().to_string(), counts.classes[c.index()].into()))
        .collect();
    let speeds = Speed::ALL
        .iter()
        .map(|s| (s.as_str().to_string(), counts.speeds[s.index()].into()))
        .collect();
    let chess960_positions = counts
        .top_positions(usize::MAX)
        .into_iter()
        .map(|(n, c)| (n.to_string(), c.into()))
        .collect();
    let problems = Code::ALL
        .iter()
        .filter(|c| counts.problems[**c as usize] > 0)
        .map(|c| (c.as_str().to_string(), counts.problems[*c as usize].into()))
        .collect();
    let json = JsonStats {
        games: counts.games,
        unmatched: tagged.then_some(counts.unmatched),
        classes,
        speeds,
        chess960_positions,
        problems,
        moves: counts.moves,
    };
    serde_json::to_writer(&mut *out, &json)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_counts_hold_each_number_and_list_the_used_ones_in_order() {
        let mut counts = PositionCounts::default();
        assert!(counts.is_empty());
        assert_eq!(counts.len(), 0);
        for n in [518, 0, 959, 518] {
            counts.add(n);
        }
        // A number the classification never gives is not counted (no panic).
        counts.add(960);
        counts.add(u16::MAX);
        assert!(!counts.is_empty());
        assert_eq!(counts.len(), 3);
        assert_eq!(
            counts.iter().collect::<Vec<_>>(),
            [(0, 1), (518, 2), (959, 1)]
        );
        assert_eq!((counts.get(518), counts.get(1), counts.get(960)), (2, 0, 0));
        assert_eq!(format!("{counts:?}"), "{0: 1, 518: 2, 959: 1}");
    }

    #[test]
    fn top_positions_put_the_most_common_first_and_ties_by_number() {
        let mut counts = Counts::default();
        for n in [7, 3, 7, 3, 5, 900] {
            counts.chess960_positions.add(n);
        }
        assert_eq!(counts.top_positions(3), [(3, 2), (7, 2), (5, 1)]);
        assert_eq!(counts.top_positions(usize::MAX).len(), 4);
    }
}
