//! Streaming a FEN or EPD book (one record a line) of any size: what
//! `pgnfen fen` and Python's `pgnfen.fen_records()` share.
//!
//! The input is read in blocks of whole lines; the lines of a block are
//! rendered on the current rayon pool in runs, and the runs are handed to a
//! [`Sink`] in input order, so memory stays bounded by the block size. While
//! a block is rendered the next one is read. A line longer than 1 MiB
//! is never held whole: its bytes go by in parts ([`Render::long_part`]) and
//! its end is reported once ([`Render::long_line_end`]).
//!
//! ```
//! use pgnfen::book::{self, Line, Render, Sink};
//!
//! /// Counts the records (lines that are neither blank nor `#` comments).
//! struct Count;
//! impl Render for Count {
//!     type Run = u64;
//!     fn run(&self, data: &[u8], lines: &[Line], _first: u64) -> u64 {
//!         let records = lines.iter().filter(|l| !Line::is_blank_or_comment(l.text(data)));
//!         records.count() as u64
//!     }
//!     fn long_part(&self, _bytes: &[u8]) -> Option<u64> {
//!         None
//!     }
//!     fn long_line_end(&self, _end: &[u8], _line: u64) -> u64 {
//!         1
//!     }
//! }
//! struct Total(u64);
//! impl Sink<u64> for Total {
//!     type Error = std::convert::Infallible;
//!     fn emit(&mut self, run: u64) -> Result<(), Self::Error> {
//!         self.0 += run;
//!         Ok(())
//!     }
//! }
//!
//! let book = "# two records\n8/8/8/8/8/8/8/K6k w - - 0 1\r\n\n4k3/8/8/8/8/8/8/4K3 b - -";
//! let mut total = Total(0);
//! book::stream(&mut book.as_bytes(), &Count, false, &mut total).ok();
//! assert_eq!(total.0, 2);
//! ```

use std::io::{self, Read};

use rayon::prelude::*;

use crate::class::Class;
use crate::fen::report::{Report, ReportProblem};
use crate::problem::Code;

/// Bytes read at a time.
pub(crate) const BLOCK: usize = 1 << 20;
/// A line longer than this is no record: it is passed through in parts, never
/// held in memory whole.
pub(crate) const MAX_LINE: usize = 1 << 20;
/// Lines rendered by one task on the worker threads.
const RUN: usize = 2048;

/// Lines of a block rendered before their runs are emitted, at most: four
/// runs, enough to keep two workers busy.
const GROUP: usize = 4 * RUN;
use crate::pgn::scan::BOM;

/// One line of a block: where its text and its line end lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Offset of its first byte.
    pub start: usize,
    /// Offset just past its text (where its line end starts).
    pub text_end: usize,
    /// Offset just past its line end (`\n`, `\r\n`, a lone `\r` or nothing).
    pub end: usize,
}

impl Line {
    /// The line's text, without its line end.
    pub fn text<'a>(&self, data: &'a [u8]) -> &'a [u8] {
        &data[self.start..self.text_end]
    }

    /// The line's end: `\n`, `\r\n`, `\r`, or empty for a last line without one.
    pub fn ending<'a>(&self, data: &'a [u8]) -> &'a [u8] {
        &data[self.text_end..self.end]
    }

    /// Whether a line's text holds no record: blank (spaces and tabs) or a
    /// `#` comment.
    pub fn is_blank_or_comment(text: &[u8]) -> bool {
        text.first() == Some(&b'#') || text.iter().all(|&b| b == b' ' || b == b'\t')
    }

    /// The message of a line too long to be a record.
    pub fn too_long_message() -> String {
        format!("the line is longer than {MAX_LINE} bytes, more than any FEN or EPD record needs")
    }

    /// The report of a line too long to be a record: no `input` (the line
    /// was never held whole), class `malformed`, and one `fen-syntax` error
    /// at column 1.
    pub fn too_long_report() -> Report {
        Report {
            input: None,
            valid: false,
            class: Class::Malformed.as_str(),
            board: None,
            chess960_position: None,
            fen: None,
            xfen: None,
            shredder: None,
            problems: vec![ReportProblem {
                code: Code::FenSyntax.as_str(),
                severity: Code::FenSyntax.severity().as_str(),
                message: Line::too_long_message(),
                column: 1,
            }],
            operations: None,
        }
    }
}

/// Splits `data` into lines at `\n`, `\r\n` and lone `\r`. Without `eof` the
/// bytes after the last line end (and a final `\r`, whose `\n` may follow in
/// the next block) are left over: the second value is where they start.
pub(crate) fn split_lines(data: &[u8], eof: bool) -> (Vec<Line>, usize) {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while let Some(k) = memchr::memchr2(b'\n', b'\r', &data[at..]) {
        let i = at + k;
        let end = if data[i] == b'\r' {
            match data.get(i + 1) {
                Some(b'\n') => i + 2,
                Some(_) => i + 1,
                None if eof => i + 1,
                None => break,
            }
        } else {
            i + 1
        };
        lines.push(Line {
            start,
            text_end: i,
            end,
        });
        start = end;
        at = end;
    }
    if eof && start < data.len() {
        lines.push(Line {
            start,
            text_end: data.len(),
            end: data.len(),
        });
        start = data.len();
    }
    (lines, start)
}

/// What a caller makes of the lines of a book (called on the worker threads).
pub trait Render: Sync {
    /// The output of a run of lines, handed to the [`Sink`] in input order.
    type Run: Send;
    /// Renders `lines` of `data`; the first is line number `first` (1-based).
    fn run(&self, data: &[u8], lines: &[Line], first: u64) -> Self::Run;
    /// A part of a line longer than 1 MiB (its text only, in order), or the
    /// UTF-8 byte order mark that begins the input (no part of the first
    /// record): bytes to pass on as they are, or `None` to drop them.
    fn long_part(&self, bytes: &[u8]) -> Option<Self::Run>;
    /// The end of a line longer than 1 MiB that started at line
    /// number `line`: `line_end` is its line end (empty at the end of input).
    fn long_line_end(&self, line_end: &[u8], line: u64) -> Self::Run;
}

/// Where the rendered runs go, in input order.
pub trait Sink<T> {
    /// Why the sink failed; the stream stops at once.
    type Error;
    /// Takes the next run.
    fn emit(&mut self, run: T) -> Result<(), Self::Error>;
    /// Called after each block of an interactive input (a terminal waits
    /// for the answer to the line just typed).
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Why [`stream`] stopped early.
#[derive(Debug, thiserror::Error)]
pub enum StreamError<E> {
    /// Reading the input failed.
    #[error("reading the input: {0}")]
    Read(io::Error),
    /// The sink failed.
    #[error("{0}")]
    Sink(E),
}

/// Renders `lines` of `data` (the first is line number `first`) in runs of
/// lines, on the current rayon pool when there are several runs.
pub(crate) fn render_block<R: Render>(
    renderer: &R,
    data: &[u8],
    lines: &[Line],
    first: u64,
) -> Vec<R::Run> {
    if lines.len() > RUN {
        lines
            .par_chunks(RUN)
            .enumerate()
            .map(|(k, run)| renderer.run(data, run, first + (k * RUN) as u64))
            .collect()
    } else {
        vec![renderer.run(data, lines, first)]
    }
}

/// Renders the complete lines of a block. A line longer than [`MAX_LINE`]
/// that came whole within the block goes as one held across blocks goes
/// (its text passed on, then its end reported): which of the two a line
/// takes depends on where the blocks fall, and must not change the output.
fn render_lines<R: Render>(renderer: &R, data: &[u8], lines: &[Line], first: u64) -> Vec<R::Run> {
    let mut runs = Vec::new();
    let (mut rest, mut first) = (lines, first);
    while let Some(k) = rest.iter().position(|l| l.text_end - l.start > MAX_LINE) {
        if k > 0 {
            runs.extend(render_block(renderer, data, &rest[..k], first));
        }
        let long = &rest[k];
        runs.extend(renderer.long_part(long.text(data)));
        runs.push(renderer.long_line_end(long.ending(data), first + k as u64));
        rest = &rest[k + 1..];
        first += k as u64 + 1;
    }
    if !rest.is_empty() {
        runs.extend(render_block(renderer, data, rest, first));
    }
    runs
}

/// Streams one input, block by block, through `renderer` into `sink`.
/// `interactive` (standard input at a terminal): each block is answered
/// before the next is read, and the sink flushed.
///
/// # Errors
///
/// [`StreamError::Read`] when the input cannot be read (the runs before it
/// were emitted), [`StreamError::Sink`] when the sink fails.
pub fn stream<R: Render, S: Sink<R::Run>>(
    reader: &mut (dyn Read + Send),
    renderer: &R,
    interactive: bool,
    sink: &mut S,
) -> Result<(), StreamError<S::Error>> {
    stream_in_blocks(reader, renderer, interactive, BLOCK, sink)
}

/// [`stream`], reading `block` bytes at a time instead of 1 MiB: the runs of
/// a whole block are rendered before they are emitted, so a renderer whose
/// runs are large (Python's dicts of every field) holds less with smaller
/// blocks. Lines longer than 1 MiB are passed on in parts all the same.
///
/// # Errors
///
/// As [`stream`].
pub fn stream_in_blocks<R: Render, S: Sink<R::Run>>(
    reader: &mut (dyn Read + Send),
    renderer: &R,
    interactive: bool,
    block: usize,
    sink: &mut S,
) -> Result<(), StreamError<S::Error>> {
    let block = block.max(1);
    let emit_all = |sink: &mut S, runs: Vec<R::Run>| {
        runs.into_iter()
            .try_for_each(|r| sink.emit(r))
            .map_err(StreamError::Sink)
    };
    // `cur` holds the bytes of this round, `next` receives the next block
    // (after this round's left-over bytes) while this one is rendered.
    let mut cur: Vec<u8> = Vec::with_capacity(block * 2);
    let mut next: Vec<u8> = Vec::with_capacity(block * 2);
    let mut n = read_block(reader, &mut cur, block).map_err(StreamError::Read)?;
    let mut line_no = 1u64;
    // Inside a line longer than MAX_LINE: the line number where it started.
    let mut long: Option<u64> = None;
    let pass = |sink: &mut S, bytes: &[u8]| match renderer.long_part(bytes) {
        Some(r) => sink.emit(r).map_err(StreamError::Sink),
        None => Ok(()),
    };
    // A byte order mark (Notepad writes one) is no part of the first record:
    // passed on as it is, so that a rewritten book keeps it. A pipe may hand
    // over its first bytes one at a time: enough are read to tell.
    while n > 0 && cur.len() < BOM.len() && BOM.starts_with(&cur[..]) {
        n = read_block(reader, &mut cur, block).map_err(StreamError::Read)?;
    }
    if cur.starts_with(&BOM) {
        pass(sink, &BOM)?;
        cur.drain(..BOM.len());
    }
    loop {
        let eof = n == 0;
        let (all, rest) = split_lines(&cur, eof);
        let mut lines = all.as_slice();
        let mut consumed = rest;
        if let Some(start) = long {
            if let Some((first, tail)) = lines.split_first() {
                pass(sink, &cur[..first.text_end])?;
                let r = renderer.long_line_end(first.ending(&cur), start);
                sink.emit(r).map_err(StreamError::Sink)?;
                line_no += 1;
                long = None;
                lines = tail;
            } else {
                // Still inside the line; a final '\r' may be half of a CRLF.
                consumed = cur.len() - usize::from(cur.last() == Some(&b'\r'));
                pass(sink, &cur[..consumed])?;
            }
        }
        // The lines are rendered and emitted a group at a time: what waits
        // to be emitted stays bounded whatever the lines' length (a block of
        // short invalid records holds 20,000 of them, whose Python dicts took
        // fen_records() past 100 MiB). The first group is rendered beside
        // the reading of the next block, the others after it.
        let (head, tail) = lines.split_at(lines.len().min(GROUP));
        let render = || render_lines(renderer, &cur, head, line_no);
        let mut read_next = || -> io::Result<usize> {
            next.clear();
            if eof {
                return Ok(0);
            }
            next.extend_from_slice(&cur[consumed..]);
            read_block(reader, &mut next, block)
        };
        // An interactive input is read after the answer is written, so that a
        // line typed at a terminal is answered at once; other inputs are read
        // beside the rendering, which keeps both cores busy.
        let rest = |sink: &mut S| {
            let mut at = line_no + head.len() as u64;
            for group in tail.chunks(GROUP) {
                emit_all(sink, render_lines(renderer, &cur, group, at))?;
                at += group.len() as u64;
            }
            Ok(())
        };
        let read = if interactive {
            emit_all(sink, render())?;
            rest(sink)?;
            sink.flush().map_err(StreamError::Sink)?;
            read_next()
        } else {
            let (runs, read) = rayon::join(render, read_next);
            emit_all(sink, runs)?;
            rest(sink)?;
            read
        };
        line_no += lines.len() as u64;
        if eof {
            break;
        }
        n = read.map_err(StreamError::Read)?;
        std::mem::swap(&mut cur, &mut next);
        let carry = cur.len() - n;
        // No line end in sight, and the line is already too long to be a
        // record: passed on instead of held.
        let upto = carry.saturating_sub(usize::from(carry > 0 && cur[carry - 1] == b'\r'));
        if long.is_none() && upto > MAX_LINE {
            long = Some(line_no);
            pass(sink, &cur[..upto])?;
            cur.drain(..upto);
        }
    }
    if let Some(start) = long {
        let r = renderer.long_line_end(b"", start);
        sink.emit(r).map_err(StreamError::Sink)?;
    }
    Ok(())
}

/// Appends up to one block read from `reader` to `buf`; returns how many bytes
/// (0 at the end of the input).
pub(crate) fn read_block(
    reader: &mut (dyn Read + Send),
    buf: &mut Vec<u8>,
    block: usize,
) -> io::Result<usize> {
    let filled = buf.len();
    buf.resize(filled + block, 0);
    let n = loop {
        match reader.read(&mut buf[filled..]) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(filled);
                return Err(e);
            }
        }
    };
    buf.truncate(filled + n);
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line's text and its line end.
    type Piece<'a> = (&'a [u8], &'a [u8]);

    fn pieces(data: &[u8], eof: bool) -> (Vec<Piece<'_>>, usize) {
        let (lines, rest) = split_lines(data, eof);
        (
            lines
                .iter()
                .map(|l| (l.text(data), l.ending(data)))
                .collect(),
            rest,
        )
    }

    #[test]
    fn lines_keep_their_ends() {
        let data = b"a\nb\r\nc\rd";
        let (l, rest) = pieces(data, false);
        assert_eq!(l, [(&b"a"[..], &b"\n"[..]), (b"b", b"\r\n"), (b"c", b"\r")]);
        assert_eq!(&data[rest..], b"d");
        let (l, _) = pieces(data, true);
        assert_eq!(l.last(), Some(&(&b"d"[..], &b""[..])));
        // A final '\r' waits for the next block: it may be half of a CRLF.
        let (l, rest) = pieces(b"x\r", false);
        assert!(l.is_empty() && rest == 0);
        let (l, _) = pieces(b"x\r", true);
        assert_eq!(l, [(&b"x"[..], &b"\r"[..])]);
    }

    /// Collects the line numbers and texts it is shown, and long-line events.
    struct Echo;
    impl Render for Echo {
        type Run = Vec<(u64, Vec<u8>)>;
        fn run(&self, data: &[u8], lines: &[Line], first: u64) -> Self::Run {
            (first..)
                .zip(lines.iter().map(|l| l.text(data).to_vec()))
                .collect()
        }
        fn long_part(&self, bytes: &[u8]) -> Option<Self::Run> {
            Some(vec![(0, bytes.to_vec())])
        }
        fn long_line_end(&self, _end: &[u8], line: u64) -> Self::Run {
            vec![(line, b"<long>".to_vec())]
        }
    }
    impl Sink<Vec<(u64, Vec<u8>)>> for Vec<(u64, Vec<u8>)> {
        type Error = ();
        fn emit(&mut self, run: Vec<(u64, Vec<u8>)>) -> Result<(), ()> {
            self.extend(run);
            Ok(())
        }
    }

    #[test]
    fn lines_are_numbered_in_order_across_runs_and_blocks() {
        // More than one run of lines, and more than one block.
        let line = "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n";
        let count = BLOCK / line.len() + RUN * 2;
        let book = line.repeat(count);
        let mut got = Vec::new();
        stream(&mut book.as_bytes(), &Echo, false, &mut got).unwrap();
        assert_eq!(got.len(), count);
        assert!(got.iter().zip(1..).all(|((n, _), k)| *n == k));
    }

    #[test]
    fn any_block_size_gives_the_same_lines() {
        // The long line's parts depend on the blocks: compared joined.
        let joined = |lines: Vec<(u64, Vec<u8>)>| {
            let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
            for (n, text) in lines {
                match out.last_mut() {
                    Some((0, last)) if n == 0 => last.extend(text),
                    _ => out.push((n, text)),
                }
            }
            out
        };
        // Line ends of every kind, a CRLF that a block may cut in two, a
        // byte order mark and blank lines, in blocks down to a byte; then a
        // line too long to be a record (3 MiB: long in any blocks), in
        // blocks of 4 KiB and more (smaller ones rescan the growing line).
        let short = b"\xEF\xBB\xBF8/8/8/8/8/8/8/8 w - -\r\nab\rc\n\n\r\nlast\r".to_vec();
        let mut long = short.clone();
        long.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        long.extend_from_slice(b"\r\nend");
        // Lines just over the limit, which a block may hold whole (then
        // found too long on their own) or not (then passed on in parts);
        // and one exactly at the limit, which is a record.
        let mut edge = short.clone();
        for extra in [1, 100, MAX_LINE / 2, 0] {
            edge.extend(std::iter::repeat_n(b'y', MAX_LINE + extra));
            edge.extend_from_slice(b"\r\nnext\n");
        }
        for (book, blocks) in [
            (short, &[1, 2, 3, 7, 4096][..]),
            (long, &[4096, 256 << 10][..]),
            (edge, &[4096, 256 << 10, 1 << 20, 3 << 20][..]),
        ] {
            let mut whole = Vec::new();
            stream(&mut &book[..], &Echo, false, &mut whole).unwrap();
            let whole = joined(whole);
            assert!(
                whole.iter().any(|(n, t)| *n == 6 && t == b"last"),
                "{:?}",
                whole.len()
            );
            for &block in blocks {
                let mut got = Vec::new();
                stream_in_blocks(&mut &book[..], &Echo, false, block, &mut got).unwrap();
                assert!(joined(got) == whole, "blocks of {block}");
            }
        }
    }

    #[test]
    fn a_line_over_the_limit_is_too_long_in_any_blocks() {
        for text in [MAX_LINE + 1, MAX_LINE + (300 << 10), MAX_LINE] {
            let mut book = b"a\n".to_vec();
            book.extend(std::iter::repeat_n(b'x', text));
            book.extend_from_slice(b"\nb\n");
            for block in [4096, 256 << 10, 1 << 20, 4 << 20] {
                let mut got = Vec::new();
                stream_in_blocks(&mut book.as_slice(), &Echo, false, block, &mut got).unwrap();
                let long = got.iter().filter(|(_, t)| t == b"<long>").count();
                let records = got.iter().filter(|(n, _)| *n != 0).count();
                assert_eq!(
                    (long, records),
                    (usize::from(text > MAX_LINE), 3),
                    "a line of {text} bytes in blocks of {block}"
                );
            }
        }
    }

    #[test]
    fn a_line_too_long_goes_by_in_parts_and_is_reported_once() {
        let mut book = b"a\n".to_vec();
        book.extend(std::iter::repeat_n(b'x', MAX_LINE * 2 + 5));
        book.extend_from_slice(b"\nb\n");
        let mut got = Vec::new();
        stream(&mut book.as_slice(), &Echo, false, &mut got).unwrap();
        let passed: usize = got
            .iter()
            .filter(|(n, _)| *n == 0)
            .map(|(_, b)| b.len())
            .sum();
        assert_eq!(passed, MAX_LINE * 2 + 5);
        let rest: Vec<_> = got.iter().filter(|(n, _)| *n != 0).collect();
        assert_eq!(
            rest,
            [
                &(1, b"a".to_vec()),
                &(2, b"<long>".to_vec()),
                &(3, b"b".to_vec())
            ]
        );
    }

    #[test]
    fn a_failing_sink_stops_the_stream() {
        struct Fail;
        impl Sink<Vec<(u64, Vec<u8>)>> for Fail {
            type Error = &'static str;
            fn emit(&mut self, _: Vec<(u64, Vec<u8>)>) -> Result<(), &'static str> {
                Err("full")
            }
        }
        let r = stream(&mut &b"a\nb\n"[..], &Echo, false, &mut Fail);
        assert!(matches!(r, Err(StreamError::Sink("full"))));
    }

    #[test]
    fn the_long_line_report_is_a_malformed_record_without_input() {
        let v = serde_json::to_value(Line::too_long_report()).unwrap();
        assert_eq!(v["input"], serde_json::Value::Null);
        assert_eq!(v["valid"], false);
        assert_eq!(v["class"], "malformed");
        assert_eq!(v["operations"], serde_json::Value::Null);
        let problems = v["problems"].as_array().unwrap();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0]["code"], "fen-syntax");
        assert_eq!(problems[0]["severity"], "error");
        assert_eq!(problems[0]["column"], 1);
        assert!(
            problems[0]["message"]
                .as_str()
                .unwrap()
                .contains("longer than")
        );
    }
}
