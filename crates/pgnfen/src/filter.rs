//! Selecting games: each game is copied byte for byte, in input order, to the
//! kept output or to the rest (what `pgnfen filter` does).
//!
//! ```no_run
//! use pgnfen::filter::{self, Selection};
//! use pgnfen::pipeline::Input;
//! use pgnfen::select::Selector;
//! use pgnfen::{Class, TagExpr};
//!
//! let options = filter::Options {
//!     selection: Selection {
//!         classes: vec![Class::Chess960],
//!         selector: Selector::new(&["WhiteElo>=2500".parse::<TagExpr>()?]),
//!         ..Selection::default()
//!     },
//!     output: Some("chess960-strong.pgn".into()),
//!     ..filter::Options::default()
//! };
//! let summary = filter::run(&[Input::from_arg("games.pgn.zst")], &options)?;
//! println!("kept {} of {}", summary.kept, summary.games);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::class::Class;
use crate::error::{
    Error, Usage, check_distinct_outputs, check_inputs_exist, check_pgn_outputs, output_name,
};
use crate::moves::{Moved, MovesMode, WithMoves};
use crate::pipeline::output::Output;
use crate::pipeline::sink::OpenLine;
use crate::pipeline::{self, GameInfo, Header, Input, Job, Sink};
use crate::select::Selector;
use crate::speed::Speed;

pub(crate) mod job;
pub(crate) use job::{FilterJob, Split};

/// Which games to keep.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Classes to keep; every class when empty.
    pub classes: Vec<Class>,
    /// When not empty, only games with one of these start-position numbers
    /// are kept: Chess960 games from those start arrays (no other game has a
    /// number).
    pub chess960_positions: Vec<u16>,
    /// The `--tag` expressions, all of which must hold, and the `--speed`
    /// list ([`Selector::with_speeds`]).
    pub selector: Selector,
}

impl Selection {
    /// Whether a game of `class` (and Chess960 start position) is kept, as far
    /// as the class and position go.
    pub(crate) fn keeps(&self, class: Class, position: Option<u16>) -> bool {
        if !self.classes.is_empty() && !self.classes.contains(&class) {
            return false;
        }
        // Every selection given must hold, the position list too: only games
        // of class chess960 that start from a start array have a number.
        self.chess960_positions.is_empty()
            || class == Class::Chess960
                && position.is_some_and(|n| self.chess960_positions.contains(&n))
    }

    /// The class of the game and whether it is kept (class, position, tags
    /// and speed).
    pub(crate) fn judge(&self, header: &Header<'_>) -> (Class, bool) {
        let (class, _, keep) = self.judge_speed(header);
        (class, keep)
    }

    /// [`Selection::judge`], and the game's speed when the selector reads it
    /// ([`Selector::with_time_control`], [`Selector::with_speeds`]).
    pub(crate) fn judge_speed(&self, header: &Header<'_>) -> (Class, Option<Speed>, bool) {
        let (class, position) = if header.is_empty() {
            (Class::Standard, None)
        } else {
            let tally = header.tally();
            (tally.class, tally.chess960_position)
        };
        // `judge` notes the tags for every game, also one the class already
        // rules out: a tag held only by such games was still seen (no false
        // warning about an unseen --tag name).
        let (matched, speed) = self.selector.judge(|i| header.extra(i));
        (class, speed, self.keeps(class, position) && matched)
    }

    /// Nothing asked for: no class, position or tag expression.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty() && self.chess960_positions.is_empty() && self.selector.is_empty()
    }

    /// The usage errors of a selection (`command` names the caller in the
    /// message): nothing asked for, a start position number past 959, or a
    /// position list that the class list makes pointless.
    pub fn validate(&self, command: &str) -> Result<(), Error> {
        if let Some(n) = self
            .chess960_positions
            .iter()
            .find(|&&n| n >= crate::fen::chess960::POSITIONS)
        {
            return Err(Usage::NoSuchPosition {
                command: command.to_string(),
                number: *n,
            }
            .into());
        }
        if self.classes.is_empty() && self.chess960_positions.is_empty() && self.selector.is_empty()
        {
            return Err(Usage::NothingSelected {
                command: command.to_string(),
            }
            .into());
        }
        self.selector.validate()?;
        if !self.chess960_positions.is_empty()
            && !self.classes.is_empty()
            && !self.classes.contains(&Class::Chess960)
        {
            return Err(Usage::PositionsWithoutChess960 {
                command: command.to_string(),
            }
            .into());
        }
        Ok(())
    }
}

/// What `filter` does: which games to keep and where they go.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which games are kept.
    pub selection: Selection,
    /// Where kept games go: a file (a `.gz`, `.bz2`, `.zst` or `.xz` ending
    /// compresses), or standard output for `None` or `-`.
    pub output: Option<PathBuf>,
    /// Where every other game goes, if anywhere.
    pub rest: Option<PathBuf>,
    /// Replay each game's mainline (`--moves`): a game with an illegal move
    /// is not kept (games that are not checked are judged as without it).
    /// Enough on its own as a selection.
    pub moves: Option<MovesMode>,
    /// Threads, progress, reading.
    pub run: pipeline::Options,
}

/// What a `filter` run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Games written to the output (the others went to the rest, or nowhere).
    pub kept: u64,
}

/// Copies each game of `inputs` that `options.selection` keeps to
/// `options.output`, byte for byte and in input order, and every other game
/// to `options.rest` when given. Output files are written under a temporary
/// name and appear under their own only when the run succeeds.
///
/// # Errors
///
/// [`Error::Usage`] for a selection that selects nothing
/// ([`Selection::validate`]), two outputs naming one file, or an output that
/// is one of several inputs ([`Usage::OutputAmongInputs`]),
/// before anything is read; [`Error::Io`] when an input cannot be read or an output written.
pub fn run(inputs: &[Input], options: &Options) -> Result<Summary, Error> {
    let selection = &options.selection;
    if options.moves.is_some() && selection.is_empty() {
        // `--moves` alone selects: the games whose moves fit their start.
        selection.selector.validate()?;
    } else {
        selection.validate("filter")?;
    }
    check_inputs_exist(inputs)?;
    let stdout = Path::new("-");
    let kept_path = options.output.as_deref().filter(|p| *p != stdout);
    let outputs: Vec<&Path> = [kept_path.unwrap_or(stdout)]
        .into_iter()
        .chain(options.rest.as_deref())
        .collect();
    check_pgn_outputs("filter", &outputs)?;
    check_distinct_outputs(&outputs)?;
    crate::error::check_outputs_apart_from_inputs(&outputs, inputs)?;
    let kept_name = output_name(kept_path);
    let rest_name = output_name(options.rest.as_deref());
    let cancel = &options.run.cancel;
    let kept = Output::create(kept_path)
        .map_err(|e| Error::writing(&kept_name, e))?
        .cancelled_by(cancel.clone());
    let rest = match &options.rest {
        Some(path) => Some(
            Output::create(Some(path))
                .map_err(|e| Error::writing(&rest_name, e))?
                .cancelled_by(cancel.clone()),
        ),
        None => None,
    };
    let mut split = Split::new(kept, rest);
    let games = match options.moves {
        None => pipeline::run(inputs, &FilterJob(selection), &mut split, &options.run)?,
        Some(mode) => {
            let job = WithMoves {
                inner: FilterJob(selection),
                mode,
            };
            pipeline::run(inputs, &job, &mut split, &options.run)?
        }
    };
    let Split {
        kept,
        rest,
        kept_games,
        ..
    } = split;
    // Both or neither: a failure of the rest's (a full disk) must not leave
    // the kept games in place of an input they were read from.
    let outputs: Vec<Output> = std::iter::once(kept).chain(rest).collect();
    Output::commit_all_unless(outputs, options.run.cancel.as_deref())
        .map_err(|(i, e)| Error::writing(if i == 0 { &kept_name } else { &rest_name }, e))?;
    Ok(Summary {
        games,
        kept: kept_games,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_number_past_959_is_refused() {
        let s = |n| Selection {
            chess960_positions: vec![518, n],
            ..Selection::default()
        };
        assert!(s(959).validate("filter").is_ok());
        let e = s(960).validate("filter").unwrap_err();
        assert!(matches!(
            e,
            Error::Usage(Usage::NoSuchPosition { number: 960, .. })
        ));
        assert_eq!(
            e.to_string(),
            "filter: 960 is not a Chess960 start position number (0 to 959)"
        );
    }

    #[test]
    fn a_position_list_must_hold_as_the_class_list_must() {
        let s = Selection {
            classes: vec![Class::Chess960, Class::Standard],
            chess960_positions: vec![518],
            ..Selection::default()
        };
        // A standard game has no start-position number: not listed.
        assert!(!s.keeps(Class::Standard, None));
        assert!(s.keeps(Class::Chess960, Some(518)));
        assert!(!s.keeps(Class::Chess960, Some(0)));
        assert!(!s.keeps(Class::Chess960, None));
        assert!(!s.keeps(Class::Setup, None));
        let s = Selection {
            chess960_positions: vec![518],
            ..Selection::default()
        };
        assert!(!s.keeps(Class::Standard, None));
        assert!(s.keeps(Class::Chess960, Some(518)));
    }

    #[test]
    fn a_cancelled_run_leaves_no_temporary_file_and_the_output_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.pgn");
        std::fs::write(&input, b"[Event \"e\"]\n\n1. e4 *\n\n".repeat(1000)).unwrap();
        let output = dir.path().join("out.pgn");
        std::fs::write(&output, b"existing").unwrap();
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let options = Options {
            selection: Selection {
                classes: vec![Class::Standard],
                ..Selection::default()
            },
            output: Some(output.clone()),
            rest: Some(dir.path().join("rest.pgn")),
            moves: None,
            run: pipeline::Options {
                cancel: Some(cancel),
                ..pipeline::Options::new(1)
            },
        };
        let result = run(&[Input::File(input)], &options);
        assert!(matches!(result, Err(Error::Cancelled)), "{result:?}");
        assert_eq!(std::fs::read(&output).unwrap(), b"existing");
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["in.pgn", "out.pgn"]);
    }

    #[test]
    fn an_output_among_several_inputs_is_refused_and_a_lone_input_may_be_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let game = |event: &str| format!("[Event \"{event}\"]\n\n1. e4 *\n\n");
        let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        std::fs::write(&a, game("a")).unwrap();
        std::fs::write(&b, game("b")).unwrap();
        let keep = |output: &Path, rest: Option<PathBuf>| Options {
            selection: Selection {
                classes: vec![Class::Standard],
                ..Selection::default()
            },
            // Another spelling of the same file is the same file.
            output: Some(output.to_path_buf()),
            rest,
            moves: None,
            run: pipeline::Options {
                notes: false,
                ..pipeline::Options::new(1)
            },
        };
        let both = [Input::File(a.clone()), Input::File(b.clone())];
        let respelt = dir.path().join(".").join("a.pgn");
        for options in [
            keep(&respelt, None),
            keep(&dir.path().join("c.pgn"), Some(b.clone())),
        ] {
            let e = run(&both, &options).unwrap_err();
            assert!(
                matches!(&e, Error::Usage(Usage::OutputAmongInputs { inputs: 2, .. })),
                "{e:?}"
            );
            assert!(e.to_string().contains("the others would be merged into it"));
        }
        assert_eq!(std::fs::read_to_string(&a).unwrap(), game("a"));
        assert_eq!(std::fs::read_to_string(&b).unwrap(), game("b"));
        assert!(!dir.path().join("c.pgn").exists());
        // One input rewritten to itself: what was asked.
        let summary = run(&both[..1], &keep(&a, None)).unwrap();
        assert_eq!((summary.games, summary.kept), (1, 1));
        assert_eq!(std::fs::read_to_string(&a).unwrap(), game("a"));
    }
}
