//! `pgnfen fen`: classifies and converts FEN and EPD books, one record a line,
//! streaming.
//!
//! Input is read in blocks of whole lines; the records of a block are analysed
//! on the worker threads in runs of lines, and the runs' output is written in
//! input order, so memory stays bounded by the block size whatever the size of
//! the book. Blank lines and `#` lines are copied as they are; every line keeps
//! its own line end (`\n`, `\r\n` or a lone `\r`).

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use crate::cli::{FenArgs, Format, Global};
use crate::commands::{Error, Outcome, check_inputs_exist, options, refuse_output_among_inputs};
use pgnfen::book::{BLOCK, Line, MAX_LINE, is_blank_or_comment, read_block, split_lines};
use pgnfen::fen::{self, Dialect, Record, VariantHint};
use pgnfen::pipeline::Input;
use pgnfen::pipeline::output::Output;
use pgnfen::problem::{Code, Problem};

/// Lines handled by one task on the worker threads.
const RUN: usize = 2048;

/// What the records of a run, a block or the whole command came to.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    records: u64,
    invalid: u64,
    unwritable: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.records += other.records;
        self.invalid += other.invalid;
        self.unwritable += other.unwritable;
    }
}

/// A `--format json` object: where the record was read (the file, or
/// `ARCHIVE:MEMBER`, or `<argument>` for `-r`; the 1-based line in it), then
/// the record's own keys. First, as in `check --format json`, so that a reader
/// of the lines sees at once where each comes from.
#[derive(serde::Serialize)]
struct Located<'a> {
    file: &'a str,
    line: u64,
    #[serde(flatten)]
    report: fen::report::Report,
}

/// The output of a run of lines, to be written in order.
#[derive(Default)]
struct Rendered {
    out: Vec<u8>,
    diagnostics: String,
    counts: Counts,
}

struct Converter<'a> {
    args: &'a FenArgs,
    quiet: bool,
    /// The last input written to the output ended inside a line (no line end
    /// after its last record). Before the next input's first byte a `\n` is
    /// written, else the two records would be glued into one line.
    open_line: std::sync::atomic::AtomicBool,
}

pub fn run(global: &Global, args: &FenArgs) -> Result<Outcome, Error> {
    let inputs: Vec<Input> = if args.inputs.is_empty() && args.records.is_empty() {
        vec![Input::Stdin]
    } else {
        args.inputs.iter().map(Input::from_arg).collect()
    };
    if args.in_place && args.format == Format::Json {
        return Err(Error::Usage(
            "--in-place rewrites each book in its dialect: it does not go with --format json"
                .into(),
        ));
    }
    // Every input is checked before the first is rewritten or anything written.
    let in_place = if args.in_place {
        pgnfen::convert::in_place_paths(&inputs)?
    } else {
        check_inputs_exist(&inputs)?;
        refuse_output_among_inputs(args.output.as_deref(), &args.inputs)?;
        Vec::new()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options(global).threads)
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the worker threads: {e}")))?;
    let converter = Converter {
        args,
        quiet: global.quiet,
        open_line: std::sync::atomic::AtomicBool::new(false),
    };
    let mut counts = Counts::default();

    if args.in_place {
        for path in &in_place {
            let name = path.display().to_string();
            let write_err = |e| Error::writing(&name, e);
            let mut out = Output::in_place(path).map_err(write_err)?;
            let input = Input::File(path.to_path_buf());
            counts.add(pool.install(|| converter.input(&input, &mut out, &name))?);
            out.commit().map_err(write_err)?;
        }
    } else {
        let name = args
            .output
            .as_ref()
            .map_or("<stdout>".to_string(), |p| p.display().to_string());
        let write_err = |e| Error::writing(&name, e);
        let mut out = Output::create(args.output.as_deref()).map_err(write_err)?;
        // Literal records come first, in the order given, then the files.
        if !args.records.is_empty() {
            let mut text = Vec::new();
            for r in &args.records {
                text.extend_from_slice(r.as_bytes());
                text.push(b'\n');
            }
            let lines = split_lines(&text, true).0;
            let r = pool.install(|| converter.block(&text, &lines, "<argument>", 1));
            counts.add(emit(&mut out, r).map_err(write_err)?);
        }
        for input in &inputs {
            counts.add(pool.install(|| converter.input(input, &mut out, &name))?);
        }
        out.commit().map_err(write_err)?;
    }
    if !global.quiet {
        eprintln!("{}", summary(counts, args.to, in_place.len()));
    }
    Ok(if counts.invalid > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

/// The last words of a run on standard error, as `convert` says them: the
/// records read, the invalid ones and, with `--to`, how many were written in
/// the dialect and how many left as they were.
fn summary(counts: Counts, to: Option<Dialect>, rewritten: usize) -> String {
    let plural = |n: u64, one: &str, many: &str| crate::format::count(n, one, many);
    let records = plural(counts.records, "record", "records");
    let mut msg = match to {
        None => format!("pgnfen: {records}, {} invalid", counts.invalid),
        Some(d) => {
            let unchanged = counts.invalid + counts.unwritable;
            format!(
                "pgnfen: {records}, {} written as {d}, {unchanged} left unchanged \
                 ({} invalid, {} not writable in {d})",
                counts.records - unchanged,
                counts.invalid,
                counts.unwritable,
                d = d.as_str(),
            )
        }
    };
    if rewritten > 0 {
        let files = plural(rewritten as u64, "file", "files");
        msg.push_str(&format!("; {files} rewritten in place"));
    }
    msg
}

enum StreamError {
    Read(io::Error),
    Write(io::Error),
}

impl Converter<'_> {
    /// Converts one input into `out` (named `out_name` in messages): each
    /// stream of it on its own, so that a zip member is named as
    /// `ARCHIVE:MEMBER` and its lines are counted from 1, as `check` does.
    fn input(&self, input: &Input, out: &mut Output, out_name: &str) -> Result<Counts, Error> {
        let read_err = |file: String| move |source| Error::Io { file, source };
        let mut streams = input
            .open_streams(Arc::new(AtomicU64::new(0)))
            .map_err(read_err(input.display_name()))?;
        let mut counts = Counts::default();
        while let Some(stream) = streams.next().map_err(read_err(input.display_name()))? {
            let file = stream.input.display_name();
            let interactive = stream.input == Input::Stdin;
            let c = self.stream(stream.reader, &file, out, interactive);
            counts.add(c.map_err(|e| match e {
                StreamError::Read(e) => read_err(file.clone())(e),
                StreamError::Write(e) => Error::writing(out_name, e),
            })?);
        }
        Ok(counts)
    }

    /// Converts one stream, block by block.
    fn stream(
        &self,
        mut reader: Box<dyn Read + Send>,
        file: &str,
        out: &mut Output,
        interactive: bool,
    ) -> Result<Counts, StreamError> {
        let mut counts = Counts::default();
        // `cur` holds the bytes of this round, `next` receives the next block
        // (after this round's left-over bytes) while this one is rendered.
        let mut cur: Vec<u8> = Vec::with_capacity(BLOCK * 2);
        let mut next: Vec<u8> = Vec::with_capacity(BLOCK * 2);
        let mut n = read_block(&mut *reader, &mut cur).map_err(StreamError::Read)?;
        // Only the text output with --to copies line ends as they are; the
        // other outputs end every line themselves.
        let copies_line_ends = self.args.to.is_some() && self.args.format == Format::Text;
        if n > 0 && self.open_line.swap(false, Relaxed) && copies_line_ends {
            out.write_all(b"\n").map_err(StreamError::Write)?;
        }
        let mut last = cur.last().copied();
        let mut line_no = 1u64;
        // Inside a line longer than MAX_LINE: the line number where it started.
        let mut long: Option<u64> = None;
        loop {
            let eof = n == 0;
            let (all, rest) = split_lines(&cur, eof);
            let mut lines = all.as_slice();
            let mut consumed = rest;
            if let Some(start) = long {
                if let Some((first, tail)) = lines.split_first() {
                    self.pass(out, &cur[..first.text_end])?;
                    let r = self.long_line_end(&cur[first.text_end..first.end], file, start);
                    counts.add(emit(out, [r]).map_err(StreamError::Write)?);
                    line_no += 1;
                    long = None;
                    lines = tail;
                } else {
                    // Still inside the line; a final '\r' may be half of a CRLF.
                    consumed = cur.len() - usize::from(cur.last() == Some(&b'\r'));
                    self.pass(out, &cur[..consumed])?;
                }
            }
            let render = || {
                if lines.is_empty() {
                    Vec::new()
                } else {
                    self.block(&cur, lines, file, line_no)
                }
            };
            let mut read_next = || -> io::Result<usize> {
                next.clear();
                if eof {
                    return Ok(0);
                }
                next.extend_from_slice(&cur[consumed..]);
                read_block(&mut *reader, &mut next)
            };
            // Standard input is read after the answer is written, so that a line
            // typed at a terminal is answered at once; other inputs are read
            // beside the rendering, which keeps both cores busy.
            let (runs, read) = if interactive {
                let runs = render();
                counts.add(emit(out, runs).map_err(StreamError::Write)?);
                out.flush().map_err(StreamError::Write)?;
                (Vec::new(), read_next())
            } else {
                rayon::join(render, read_next)
            };
            line_no += lines.len() as u64;
            counts.add(emit(out, runs).map_err(StreamError::Write)?);
            if eof {
                break;
            }
            n = read.map_err(StreamError::Read)?;
            std::mem::swap(&mut cur, &mut next);
            if n > 0 {
                last = cur.last().copied();
            }
            let carry = cur.len() - n;
            if long.is_none() && carry >= MAX_LINE {
                // No line end in sight: pass the line through instead of holding it.
                long = Some(line_no);
                let upto = carry - usize::from(cur[carry - 1] == b'\r');
                self.pass(out, &cur[..upto])?;
                cur.drain(..upto);
            }
        }
        if let Some(start) = long {
            let r = self.long_line_end(b"", file, start);
            counts.add(emit(out, [r]).map_err(StreamError::Write)?);
        }
        if let Some(b) = last {
            self.open_line.store(b != b'\n' && b != b'\r', Relaxed);
        }
        Ok(counts)
    }

    /// Copies part of an over-long line to the output (only `--to` copies lines).
    fn pass(&self, out: &mut Output, bytes: &[u8]) -> Result<(), StreamError> {
        if self.args.to.is_some() && self.args.format == Format::Text {
            out.write_all(bytes).map_err(StreamError::Write)?;
        }
        Ok(())
    }

    /// The verdict on a line too long to be a record, once its end is seen.
    fn long_line_end(&self, line_end: &[u8], file: &str, line: u64) -> Rendered {
        let mut r = Rendered::default();
        r.counts.records = 1;
        r.counts.invalid = 1;
        let message = format!("the line is longer than {MAX_LINE} bytes; no FEN or EPD record is");
        match (self.args.format, self.args.to) {
            (Format::Text, Some(_)) => r.out.extend_from_slice(line_end),
            (Format::Text, None) => {
                r.out.extend_from_slice(b"malformed\t(line too long)");
                r.out
                    .extend_from_slice(if line_end.is_empty() { b"\n" } else { line_end });
            }
            (Format::Json, _) => {
                let report = serde_json::json!({
                    "file": file, "line": line,
                    "input": null, "valid": false, "class": "malformed", "board": null,
                    "chess960_position": null, "fen": null, "xfen": null, "shredder": null,
                    "problems": [{"code": Code::FenSyntax.as_str(), "severity": "error",
                                  "message": message, "column": 1}],
                    "operations": null,
                });
                r.out.extend_from_slice(report.to_string().as_bytes());
                r.out.push(b'\n');
            }
        }
        if !self.quiet && self.args.format == Format::Text {
            r.diagnostics = format!("{file}:{line}:1: error[fen-syntax]: {message}\n");
        }
        r
    }

    /// Renders the `lines` of `data` (the first is line number `first`).
    fn block(&self, data: &[u8], lines: &[Line], file: &str, first: u64) -> Vec<Rendered> {
        let render_run = |(k, run): (usize, &[Line])| {
            let mut r = Rendered {
                out: Vec::with_capacity(run.len() * 96),
                ..Rendered::default()
            };
            for (i, line) in run.iter().enumerate() {
                let no = first + (k * RUN + i) as u64;
                self.line(data, line, file, no, &mut r);
            }
            r
        };
        let runs: Vec<Rendered> = if lines.len() > RUN {
            lines.par_chunks(RUN).enumerate().map(render_run).collect()
        } else {
            vec![render_run((0, lines))]
        };
        runs
    }

    fn line(&self, data: &[u8], line: &Line, file: &str, no: u64, r: &mut Rendered) {
        let text = &data[line.start..line.text_end];
        let ending = &data[line.text_end..line.end];
        if is_blank_or_comment(text) {
            if self.args.format == Format::Text {
                r.out.extend_from_slice(&data[line.start..line.end]);
            }
            return;
        }
        let record = fen::analyse_record(text, VariantHint::StandardLike);
        let analysis = &record.analysis;
        r.counts.records += 1;
        r.counts.invalid += u64::from(!analysis.is_valid());
        let mut unwritable: Option<Problem> = None;
        match (self.args.format, self.args.to) {
            (Format::Json, _) => {
                let report = Located {
                    file,
                    line: no,
                    report: fen::report_record(text, &record),
                };
                // A report of strings and numbers always serializes.
                if let Ok(json) = serde_json::to_string(&report) {
                    r.out.extend_from_slice(json.as_bytes());
                }
                r.out.push(b'\n');
            }
            (Format::Text, None) => {
                r.out.extend_from_slice(analysis.class.as_str().as_bytes());
                r.out.push(b'\t');
                r.out.extend_from_slice(text);
                r.out
                    .extend_from_slice(if ending.is_empty() { b"\n" } else { ending });
            }
            (Format::Text, Some(dialect)) => {
                match record.write(text, dialect, self.args.ep) {
                    Some(Ok(written)) => r.out.extend_from_slice(&written),
                    Some(Err(problem)) => {
                        r.counts.unwritable += 1;
                        unwritable = Some(problem);
                        r.out.extend_from_slice(text);
                    }
                    None => r.out.extend_from_slice(text),
                }
                // The last line keeps its lack of a line end.
                r.out.extend_from_slice(ending);
            }
        }
        if !self.quiet && self.args.format == Format::Text {
            self.diagnose(&record, unwritable.as_ref(), file, no, &mut r.diagnostics);
        }
    }

    fn diagnose(
        &self,
        record: &Record,
        unwritable: Option<&Problem>,
        file: &str,
        no: u64,
        out: &mut String,
    ) {
        use std::fmt::Write as _;
        let errors = record.analysis.problems.iter().filter(|p| p.is_error());
        for p in errors.chain(unwritable) {
            let _ = write!(
                out,
                "{file}:{no}:{}: {}[{}]: {}{}",
                p.column(),
                p.severity(),
                p.code,
                if self.args.to.is_some() {
                    "record left unchanged: "
                } else {
                    ""
                },
                p.message
            );
            if let Some(help) = &p.help {
                let _ = write!(out, "; help: {help}");
            }
            out.push('\n');
        }
    }
}

/// Appends up to one block read from `reader` to `buf`; returns how many bytes
/// (0 at the end of the input).
/// Writes rendered runs and their diagnostics in order; returns their counts.
fn emit(out: &mut Output, runs: impl IntoIterator<Item = Rendered>) -> io::Result<Counts> {
    let mut counts = Counts::default();
    for r in runs {
        if !r.diagnostics.is_empty() {
            eprint!("{}", r.diagnostics);
        }
        out.write_all(&r.out)?;
        counts.add(r.counts);
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_like_convert() {
        let c = |records, invalid, unwritable| Counts {
            records,
            invalid,
            unwritable,
        };
        assert_eq!(summary(c(1, 0, 0), None, 0), "pgnfen: 1 record, 0 invalid");
        assert_eq!(
            summary(c(5, 2, 1), Some(Dialect::Fen), 0),
            "pgnfen: 5 records, 2 written as fen, 3 left unchanged (2 invalid, 1 not writable in fen)"
        );
        assert_eq!(
            summary(c(3, 0, 0), Some(Dialect::Shredder), 2),
            "pgnfen: 3 records, 3 written as shredder, 0 left unchanged \
             (0 invalid, 0 not writable in shredder); 2 files rewritten in place"
        );
    }

    /// A line's text and its line end.
    type Piece<'a> = (&'a [u8], &'a [u8]);

    fn pieces(data: &[u8], eof: bool) -> (Vec<Piece<'_>>, usize) {
        let (lines, rest) = split_lines(data, eof);
        (
            lines
                .iter()
                .map(|l| (&data[l.start..l.text_end], &data[l.text_end..l.end]))
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
}
