//! The engine's job of `check`: finds and places the problems of each game
//! on the worker threads.

use super::*;

/// The pipeline job of `check`: finds and places the problems of each game.
#[derive(Debug)]
pub struct CheckJob {
    /// Warnings become findings too; otherwise they are only counted (a
    /// finding holds copies of its message and line: most warnings of a large
    /// archive would be built only to be dropped).
    pub warnings: bool,
}

/// The problems of one game: those handed to the caller, placed, and those
/// only counted (warnings when they are not reported).
#[derive(Debug, Default)]
pub struct GameFindings {
    /// Placed problems, in the order of their lines and columns.
    pub findings: Vec<Finding>,
    /// Problems not placed, by code (each one counts once).
    pub counted: Vec<Code>,
}

impl CheckJob {
    /// A finding at `span` (bytes of the decoded value) of `tag`'s value.
    fn finding(tag: &HeaderTag<'_>, problem: &Problem, count: u64) -> Finding {
        // Spans of FEN problems lie in the decoded value; mapped back to the
        // raw bytes through the escapes (the start of the value if that fails).
        let span = raw_span(tag.raw, problem.span.clone()).unwrap_or(0..0);
        let text = tag.line_text;
        let start = (tag.value_column + span.start).min(text.len());
        let end = (tag.value_column + span.end).min(text.len()).max(start);
        let column = tag.column(start);
        // Counted before the snippet's window cuts the span (the tag's text
        // holds the whole value).
        let end_column = tag.column(end).max(column);
        // A snippet shows the whole tag line, but only a window of a very long
        // one (each finding holds its own copy of the text).
        let (from, to) = if text.len() > LINE_KEEP {
            let boundary = |mut i: usize| {
                while i > 0 && i < text.len() && (text[i] & 0xC0) == 0x80 {
                    i -= 1;
                }
                i
            };
            (
                boundary(start.saturating_sub(SNIPPET_WINDOW)),
                boundary(end.min(start + SNIPPET_WINDOW) + SNIPPET_WINDOW).min(text.len()),
            )
        } else {
            (0, text.len())
        };
        let shown = &text[from..to];
        let end = end.min(to);
        let lossy = |b: &[u8]| String::from_utf8_lossy(b).len();
        Finding {
            code: problem.code,
            message: problem.message.clone(),
            help: problem.help.clone(),
            tag: tag.name.as_str(),
            line: tag.line,
            column,
            end_column,
            line_text: String::from_utf8_lossy(shown).into_owned(),
            span: lossy(&shown[..start - from])..lossy(&shown[..end - from]),
            count,
            note: None,
            ply: None,
            move_text: None,
            position: None,
        }
    }
}

impl Job for CheckJob {
    type Game = GameFindings;

    fn game(&self, header: &Header<'_>) -> GameFindings {
        if header.is_empty() {
            return GameFindings::default();
        }
        // Without warnings asked for, a game whose problems are all warnings
        // has nothing to place: its tally is all there is to count, and no
        // message is written. Only a game with an error is classified again,
        // for its verdict.
        if !self.warnings && header.unlisted() == 0 {
            let tally = header.tally();
            let counts = |code: Code| tally.problems[code];
            if tally
                .codes
                .iter()
                .all(|c| c.severity() == Severity::Warning && counts(c) < u16::MAX)
            {
                return GameFindings {
                    findings: Vec::new(),
                    counted: tally
                        .codes
                        .iter()
                        .flat_map(|c| std::iter::repeat_n(c, usize::from(counts(c))))
                        .collect(),
                };
            }
        }
        self.place(header, &header.verdict())
    }

    /// The findings' heap: on a file of tiny games that are all problems it
    /// is many times the input's size, which the pipeline bounds per chunk.
    fn weight(&self, game: &GameFindings) -> usize {
        findings_weight(&game.findings)
            + game.counted.capacity() * std::mem::size_of::<Code>()
            + 2 * HEAP_BLOCK
    }
}

impl CheckJob {
    /// The findings of a header whose verdict is known (so that a job that
    /// also needs the class classifies once).
    pub(crate) fn place(&self, header: &Header<'_>, verdict: &Verdict) -> GameFindings {
        let mut game = GameFindings::default();
        for p in &verdict.problems {
            if self.warnings || p.problem.code.severity() == Severity::Error {
                game.findings
                    .push(Self::finding(&header.tag(p.tag), &p.problem, 1));
            } else {
                game.counted.push(p.problem.code);
            }
        }
        game.findings
            .extend(Self::unlisted_finding(header, verdict));
        // In the order of the file, as a compiler lists its errors (the
        // classification finds them tag by tag: a SetUp tag's problem before
        // a Variant tag's above it). Stable: one place keeps its order.
        game.findings.sort_by_key(|f| (f.line, f.column));
        game
    }

    /// The one finding that stands for the duplicate SetUp/FEN/Variant tags
    /// a header did not keep (an error), if there are any.
    fn unlisted_finding(header: &Header<'_>, verdict: &Verdict) -> Option<Finding> {
        header.unlisted_note().map(|note| {
            let n = verdict.unlisted_duplicates;
            let first = header
                .tags()
                .find(|t| t.name == note.name)
                .map_or(&b""[..], |t| t.raw);
            let problem = Problem::new(
                Code::DuplicateTag,
                0..decode_value(note.raw).len(),
                format!(
                    "{}{}",
                    crate::classify::duplicate_message(note.name.as_str(), first),
                    if n > 1 {
                        format!(
                            " (and {} more duplicate tags in this game, not listed one by one)",
                            n - 1
                        )
                    } else {
                        String::new()
                    }
                ),
            )
            .with_help(format!("remove one of the two {} tags", note.name.as_str()));
            Self::finding(&note, &problem, n)
        })
    }
}

/// The bytes of the raw tag value `raw` that decode to `span` of its decoded
/// value (an escaped character keeps its backslash), or `None` when `span` does
/// not lie inside the decoded value.
pub(crate) fn raw_span(raw: &[u8], span: Range<usize>) -> Option<Range<usize>> {
    if memchr::memchr(b'\\', raw).is_none() {
        return (span.start <= span.end && span.end <= raw.len()).then_some(span);
    }
    // Where each decoded byte ends in `raw`, read as [`decode_value`] reads
    // it: a backslash followed by a backslash or a quote is an escape, and
    // the byte after an escape starts anew (`\\\\` is two backslashes).
    let mut ends = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let escape = raw[i] == b'\\' && matches!(raw.get(i + 1), Some(b'\\' | b'"'));
        i += if escape { 2 } else { 1 };
        ends.push(i);
    }
    let at = |d: usize| match d {
        0 => Some(0),
        d => ends.get(d - 1).copied(),
    };
    let (start, end) = (at(span.start)?, at(span.end)?);
    (start <= end).then_some(start..end)
}
