//! Checking an archive (what `pgnfen check` does): every problem of every
//! SetUp/FEN/Variant header, placed in its file, line and column, with the tag
//! line for a diagnostic's snippet.
//!
//! ```no_run
//! use pgnfen::check;
//! use pgnfen::pipeline::Input;
//!
//! let summary = check::run(
//!     &[Input::from_arg("games.pgn")],
//!     &check::Options::default(),
//!     |d: &check::Diagnostic<'_>| {
//!         println!("{}:{}:{}: {}: {}", d.file, d.line, d.finding.column, d.finding.code, d.finding.message);
//!         Ok(())
//!     },
//! )?;
//! println!("{} games, {} with errors", summary.games, summary.games_with_errors);
//! # Ok::<(), pgnfen::Error>(())
//! ```

use std::io;
use std::ops::Range;

use serde::Serialize;

use crate::classify::Verdict;
use crate::error::{Error, check_inputs_exist};
use crate::moves::{Moved, MovesMode, WithMoves};
use crate::pgn::tags::decode_value;
use crate::pipeline::game::LINE_KEEP;
use crate::pipeline::{self, GameInfo, Header, HeaderTag, Input, Job, Sink};
use crate::problem::{Code, Problem, Severity};

pub(crate) mod job;
pub(crate) use job::{CheckJob, GameFindings};

/// One problem, placed in its tag line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What kind of problem (its severity follows from it).
    pub code: Code,
    /// What is wrong, in a sentence.
    pub message: String,
    /// How to fix it, when there is something to say.
    pub help: Option<String>,
    /// The tag at fault: `SetUp`, `FEN` or `Variant`.
    pub tag: &'static str,
    /// The line as the scan counted it: the line in the input for a run
    /// over whole inputs; a partition's run counts from its own start, so
    /// read [`Diagnostic::line`], which is always the line in the input.
    pub line: u64,
    /// 1-based column in characters.
    pub column: usize,
    /// The column just past the part at fault, in characters: counted on
    /// the tag line itself, so that a fault longer than the snippet's window
    /// of a long line still ends where it ends.
    pub end_column: usize,
    /// The tag line, for the snippet (of a line longer than
    /// 4 KiB, a window of it around the fault).
    pub line_text: String,
    /// The part of `line_text` at fault.
    pub span: Range<usize>,
    /// How many problems this finding stands for: 1, except for the last
    /// finding of a game whose header had more duplicate tags than are kept
    /// (it stands for all of those, and its message says how many).
    pub count: u64,
    /// A further remark shown under the snippet (an illegal move's position).
    pub note: Option<String>,
    /// For `illegal-move`: the move's ply (1 for the first mainline move) and
    /// the token as written. `tag` is then empty (the problem is in the movetext).
    pub ply: Option<u32>,
    /// For `illegal-move`: the move as written, suffix included.
    pub move_text: Option<String>,
    /// For `illegal-move`: the position the move was played in (X-FEN).
    pub position: Option<String>,
}

impl Finding {
    /// The finding of an illegal mainline move (`--moves`).
    pub fn illegal_move(m: &crate::moves::IllegalMove) -> Finding {
        Finding {
            code: Code::IllegalMove,
            message: m.message(),
            help: Some(m.help()),
            tag: "",
            line: m.line,
            column: m.column,
            end_column: m.column
                + m.line_text
                    .get(m.span.clone())
                    .map_or(0, |s| s.chars().count()),
            line_text: m.line_text.clone(),
            span: m.span.clone(),
            count: 1,
            note: Some(m.note()),
            ply: Some(m.ply),
            move_text: Some(m.token.clone()),
            position: Some(m.position.clone()),
        }
    }
}

/// Bytes of a long tag line shown either side of a fault.
const SNIPPET_WINDOW: usize = 120;

/// About what a heap block costs beyond what it holds.
pub(crate) const HEAP_BLOCK: usize = 16;

/// The heap a list of findings holds (for [`crate::pipeline::Job::weight`]).
pub(crate) fn findings_weight(findings: &Vec<Finding>) -> usize {
    let strings: usize = findings
        .iter()
        .map(|f| {
            f.message.capacity()
                + f.help.as_ref().map_or(0, String::capacity)
                + f.line_text.capacity()
                + 3 * HEAP_BLOCK
        })
        .sum();
    findings.capacity() * std::mem::size_of::<Finding>() + strings
}

/// What `check` reports.
#[derive(Clone, Debug)]
pub struct Options {
    /// Threads, progress, reading.
    pub run: pipeline::Options,
    /// Hand warnings to the caller too (the default); when false they are
    /// only counted in the [`Summary`], which is cheaper on archives with
    /// many of them.
    pub warnings: bool,
    /// Replay each game's mainline from its start position (`--moves`);
    /// `None`: no movetext is read.
    pub moves: Option<MovesMode>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            run: pipeline::Options::default(),
            warnings: true,
            moves: None,
        }
    }
}

/// A problem as the caller of [`run`] receives it: where it is and what it is.
#[derive(Clone, Copy, Debug)]
pub struct Diagnostic<'a> {
    /// The input, as named in messages (`A.zip:MEMBER` for a zip member;
    /// [`Input::display_name`]).
    pub file: &'a str,
    /// The input itself (its path's own bytes: [`Input::name_bytes`]).
    pub input: &'a Input,
    /// The game, 1-based in its input.
    pub game: u64,
    /// The line, 1-based in the input.
    pub line: u64,
    /// The problem and its place in the tag line.
    pub finding: &'a Finding,
}

impl Diagnostic<'_> {
    /// The problem's severity.
    pub fn severity(&self) -> Severity {
        self.finding.code.severity()
    }

    /// The column just past the part at fault (as SARIF's `endColumn`): the
    /// start column plus the characters under the text format's carets.
    pub fn end_column(&self) -> usize {
        self.finding.end_column()
    }
}

impl Finding {
    /// The column just past the part of the line at fault, in characters.
    pub fn end_column(&self) -> usize {
        self.end_column
    }
}

impl Serialize for Diagnostic<'_> {
    /// The object `pgnfen check --format json` prints: `file`, `game`, `line`,
    /// `column`, `tag`, `code`, `severity`, `message`, then `end_column` and
    /// `help` (null when there is no advice); for `illegal-move` also `ply`,
    /// `move` and `position` (X-FEN), with `tag` null.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Row<'a> {
            file: &'a str,
            game: u64,
            line: u64,
            column: usize,
            tag: Option<&'a str>,
            code: &'a str,
            severity: &'a str,
            message: &'a str,
            end_column: usize,
            help: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ply: Option<u32>,
            #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
            move_text: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            position: Option<&'a str>,
        }
        let f = self.finding;
        Row {
            file: self.file,
            game: self.game,
            line: self.line,
            column: f.column,
            // A problem of the movetext has no tag: `"tag": null`.
            tag: (f.ply.is_none()).then_some(f.tag),
            code: f.code.as_str(),
            severity: self.severity().as_str(),
            message: &f.message,
            end_column: self.end_column(),
            help: f.help.as_deref(),
            ply: f.ply,
            move_text: f.move_text.as_deref(),
            position: f.position.as_deref(),
        }
        .serialize(serializer)
    }
}

/// The totals of a `check` run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Games with at least one error.
    pub games_with_errors: u64,
    /// Games with at least one warning.
    pub games_with_warnings: u64,
    /// Problems by code, indexed by `Code as usize`.
    pub counts: [u64; Code::ALL.len()],
    /// With `--moves`: games whose mainline was replayed.
    pub moves_checked: u64,
    /// With `--moves`: games of a replayed class whose movetext passed the
    /// replay's limits, so that their later moves were not judged
    /// ([`crate::moves::Replay::Unfinished`]).
    pub moves_unfinished: u64,
}

impl Summary {
    /// Problems of error severity.
    pub fn errors(&self) -> u64 {
        self.of_severity(Severity::Error)
    }

    /// Problems of warning severity.
    pub fn warnings(&self) -> u64 {
        self.of_severity(Severity::Warning)
    }

    fn of_severity(&self, severity: Severity) -> u64 {
        Code::ALL
            .iter()
            .filter(|c| c.severity() == severity)
            .map(|&c| self.counts[c as usize])
            .sum()
    }
}

/// Checks every game of `inputs` and hands each problem (errors, and
/// warnings unless [`Options::warnings`] is false), in input order, to
/// `report`, on the calling thread.
///
/// # Errors
///
/// [`Error::Io`] when an input cannot be read; an error returned by `report`
/// ends the run and comes back as [`Error::Report`] (a closed pipe as
/// [`Error::BrokenPipe`]).
pub fn run<F>(inputs: &[Input], options: &Options, report: F) -> Result<Summary, Error>
where
    F: FnMut(&Diagnostic<'_>) -> io::Result<()>,
{
    check_inputs_exist(inputs)?;
    let mut sink = Reporter {
        report,
        file: String::new(),
        input: Input::Stdin,
        summary: Summary::default(),
    };
    let job = CheckJob {
        warnings: options.warnings,
    };
    let games = match options.moves {
        None => pipeline::run(inputs, &job, &mut sink, &options.run)?,
        Some(mode) => {
            let job = WithMoves { inner: job, mode };
            pipeline::run(inputs, &job, &mut sink, &options.run)?
        }
    };
    debug_assert_eq!(games, sink.summary.games);
    Ok(sink.summary)
}

/// Counts findings and hands them to the caller's function.
struct Reporter<F> {
    report: F,
    /// The input being read, and its display name.
    file: String,
    input: Input,
    summary: Summary,
}

impl<F> Sink<GameFindings> for Reporter<F>
where
    F: FnMut(&Diagnostic<'_>) -> io::Result<()>,
{
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.file = input.display_name();
        self.input = input.clone();
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, game: GameFindings) -> io::Result<()> {
        self.game(info, game)
    }

    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        false
    }
}

impl<F> Sink<Moved<GameFindings>> for Reporter<F>
where
    F: FnMut(&Diagnostic<'_>) -> io::Result<()>,
{
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.file = input.display_name();
        self.input = input.clone();
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, game: Moved<GameFindings>) -> io::Result<()> {
        let mut findings = game.inner;
        if let Some(m) = game.replay.illegal() {
            // After the header's problems: the movetext comes after the header.
            findings.findings.push(Finding::illegal_move(m));
        }
        self.summary.moves_checked += u64::from(game.replay.checked());
        self.summary.moves_unfinished += u64::from(game.replay.unfinished());
        self.game(info, findings)
    }

    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        false
    }
}

impl<F> Reporter<F>
where
    F: FnMut(&Diagnostic<'_>) -> io::Result<()>,
{
    fn game(&mut self, info: &GameInfo, game: GameFindings) -> io::Result<()> {
        let summary = &mut self.summary;
        summary.games += 1;
        let codes = || (game.findings.iter().map(|f| f.code)).chain(game.counted.iter().copied());
        let has = |severity| codes().any(|c: Code| c.severity() == severity);
        summary.games_with_errors += u64::from(has(Severity::Error));
        summary.games_with_warnings += u64::from(has(Severity::Warning));
        for &code in &game.counted {
            summary.counts[code as usize] += 1;
        }
        for finding in &game.findings {
            summary.counts[finding.code as usize] += finding.count;
            (self.report)(&Diagnostic {
                file: &self.file,
                input: &self.input,
                game: info.index,
                line: finding.line + info.line_delta,
                finding,
            })
            .map_err(crate::pipeline::ReportFailed::mark)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::job::*;

    #[test]
    fn spans_map_through_escapes() {
        assert_eq!(raw_span(b"abc", 1..2), Some(1..2));
        assert_eq!(raw_span(b"abc", 2..9), None);
        // decoded `a"b\c`: the quote keeps its backslash, later bytes shift.
        let raw = br#"a\"b\\c"#;
        assert_eq!(raw_span(raw, 0..1), Some(0..1));
        assert_eq!(raw_span(raw, 1..2), Some(1..3));
        assert_eq!(raw_span(raw, 2..3), Some(3..4));
        assert_eq!(raw_span(raw, 4..5), Some(6..7));
        assert_eq!(raw_span(raw, 5..5), Some(7..7));
        assert_eq!(raw_span(raw, 6..6), None);
        // Escapes one after another: decoded `\\x"`, each escape whole.
        let raw = br#"\\\\x\""#;
        assert_eq!(raw_span(raw, 0..4), Some(0..7));
        assert_eq!(raw_span(raw, 1..2), Some(2..4));
        assert_eq!(raw_span(raw, 3..4), Some(5..7));
        assert_eq!(raw_span(raw, 0..5), None);
    }
}
