//! `pgnfen fen`: classifies and converts FEN and EPD books, one record a line,
//! streaming.
//!
//! The streaming is the library's ([`pgnfen::book::stream`], which Python's
//! `fen_records()` uses too): input read in blocks of whole lines, the records
//! of a block analysed on the worker threads in runs of lines, the runs handed
//! back in input order, so memory stays bounded by the block size whatever the
//! size of the book. This module renders the runs: blank lines and `#` lines
//! are copied as they are; every line keeps its own line end (`\n`, `\r\n` or
//! a lone `\r`).

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use crate::cli::{FenArgs, Format, Global};
use crate::commands::{
    Error, Outcome, check_inputs_exist, options, refuse_output_among_inputs,
    refuse_streams_among_inputs,
};
use pgnfen::book::{self, Line, Render, StreamError};
use pgnfen::fen::{self, Dialect, Record, VariantHint};
use pgnfen::pipeline::Input;
use pgnfen::pipeline::output::Output;
use pgnfen::problem::Problem;

/// What the records of a run, a block or the whole command came to.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    records: u64,
    invalid: u64,
    unwritable: u64,
    /// Invalid records that are PGN tag pairs (`[Event "x"]`): a PGN file
    /// given to `fen` by mistake.
    tag_pairs: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.records += other.records;
        self.invalid += other.invalid;
        self.unwritable += other.unwritable;
        self.tag_pairs += other.tag_pairs;
    }
}

/// Whether a line is a PGN tag pair (`[Name "value"]`), which no FEN is.
fn is_tag_pair(text: &[u8]) -> bool {
    let text = text.trim_ascii();
    text.starts_with(b"[") && text.ends_with(b"\"]") && text.contains(&b' ')
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

impl Located<'_> {
    /// Appends the object and a line end to `out`.
    fn write_line(&self, out: &mut Vec<u8>) {
        // A report of strings and numbers always serializes, and a `Vec`
        // never refuses bytes.
        serde_json::to_writer(&mut *out, self).ok();
        out.push(b'\n');
    }
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
    /// Not `--quiet`: a terminal at standard input is told how to end it.
    notes: bool,
    /// The last input written to the output ended inside a line (no line end
    /// after its last record). Before the next input's first byte a `\n` is
    /// written, else the two records would be glued into one line.
    open_line: std::sync::atomic::AtomicBool,
    /// An invalid record was reported: a standard output closed after it
    /// (`| head`) still ends the run with status 1, as the whole run would.
    invalid_seen: std::sync::atomic::AtomicBool,
}

pub fn run(global: &Global, args: &FenArgs) -> Result<Outcome, Error> {
    let inputs: Vec<Input> = if args.inputs.is_empty() && args.records.is_empty() {
        vec![Input::Stdin]
    } else {
        args.inputs.iter().map(Input::from_arg).collect()
    };
    if args.in_place && args.format == Format::Json {
        return Err(Error::usage(
            "--in-place rewrites each book in its dialect: it does not go with --format json",
        ));
    }
    // Every input is checked before the first is rewritten or anything written.
    let in_place = if args.in_place {
        pgnfen::convert::in_place_paths(&inputs)?
    } else {
        check_inputs_exist(&inputs)?;
        refuse_output_among_inputs(args.output.as_deref(), &args.inputs)?;
        // (Records given as arguments without files: standard input is not read.)
        if !args.inputs.is_empty() || args.records.is_empty() {
            refuse_streams_among_inputs(&args.inputs, &[args.output.as_deref()])?;
        }
        Vec::new()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(pgnfen::pipeline::worker_threads(options(global).threads))
        .build()
        .map_err(|e| {
            Error::usage(format!(
                "cannot start the worker threads ({e}); the limit on processes and threads \
                 (ulimit -u) may be too low"
            ))
        })?;
    let converter = Converter {
        args,
        notes: !global.quiet,
        open_line: std::sync::atomic::AtomicBool::new(false),
        invalid_seen: std::sync::atomic::AtomicBool::new(false),
    };
    match converter.run(global, &inputs, &in_place, &pool) {
        // A closed output ends the run quietly, with the status of what it
        // found until then.
        Err(Error::BrokenPipe) if converter.invalid_seen.load(Relaxed) => Ok(Outcome::Problems),
        result => result,
    }
}

/// The last words of a run on standard error, as `convert` says them: the
/// records read, the invalid ones and, with `--to`, how many were written in
/// the dialect and how many left as they were.
fn summary(counts: Counts, to: Option<Dialect>, rewritten: usize) -> String {
    let plural = |n: u64, one: &str, many: &str| crate::format::count(n, one, many);
    let records = plural(counts.records, "record", "records");
    let n = crate::format::thousands;
    let mut msg = match to {
        None => format!("pgnfen: {records}, {} invalid", n(counts.invalid)),
        Some(d) => {
            let unchanged = counts.invalid + counts.unwritable;
            format!(
                "pgnfen: {records}, {} written as {d}, {} left unchanged \
                 ({} invalid, {} not writable in {d})",
                n(counts.records - unchanged),
                n(unchanged),
                n(counts.invalid),
                n(counts.unwritable),
                d = d.as_str(),
            )
        }
    };
    if rewritten > 0 {
        let files = plural(rewritten as u64, "file", "files");
        msg.push_str(&format!("; {files} rewritten in place"));
    }
    if counts.tag_pairs > 0 {
        msg.push_str(&format!(
            "\npgnfen: {} of the invalid records are PGN tag pairs: fen reads FEN and EPD \
             books, a record a line; for the FEN tags of PGN games use check or convert",
            n(counts.tag_pairs)
        ));
    }
    msg
}

/// A line of a book as the listing shows it: as it is, unless it holds a
/// control character (an escape sequence would act on the terminal, a tab
/// would shift the columns), which is then written escaped as in every
/// other report (`\u{1b}`, `\t`; pgnfen_core::escape). A rewritten book
/// (`--to`) keeps its bytes instead.
fn listed(text: &[u8], out: &mut Vec<u8>) {
    // Valid UTF-8 through the shared escaping (C0, DEL and the C1 range as
    // characters); a byte that is not UTF-8 is kept (a Windows-1252 letter
    // reads on as before) unless it is a C1 control on its own (0x9B is
    // CSI on an 8-bit terminal): `\x9b`.
    for chunk in text.utf8_chunks() {
        out.extend_from_slice(pgnfen::escape::controls(chunk.valid()).as_bytes());
        for &b in chunk.invalid() {
            if (0x80..0xA0).contains(&b) {
                out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
            } else {
                out.push(b);
            }
        }
    }
}

impl Converter<'_> {
    /// The run once its inputs are checked: every input converted into the
    /// output (or each book rewritten in place), then the summary.
    fn run(
        &self,
        global: &Global,
        inputs: &[Input],
        in_place: &[&std::path::Path],
        pool: &rayon::ThreadPool,
    ) -> Result<Outcome, Error> {
        let mut counts = Counts::default();

        if self.args.in_place {
            for path in in_place {
                let name = path.display().to_string();
                let write_err = |e| Error::writing(&name, e);
                let mut out = Output::in_place(path).map_err(write_err)?;
                // Each file is an output of its own: the line end the last file
                // lacked is not owed to this one.
                self.open_line
                    .store(false, std::sync::atomic::Ordering::Relaxed);
                let input = Input::File(path.to_path_buf());
                counts.add(pool.install(|| self.input(&input, &mut out, &name))?);
                out.commit().map_err(write_err)?;
            }
        } else {
            let name = self
                .args
                .output
                .as_ref()
                .map_or("<stdout>".to_string(), |p| p.display().to_string());
            let write_err = |e| Error::writing(&name, e);
            let mut out = Output::create(self.args.output.as_deref()).map_err(write_err)?;
            // Literal records come first, in the order given, then the files.
            if !self.args.records.is_empty() {
                let mut text = Vec::new();
                for r in &self.args.records {
                    text.extend_from_slice(r.as_bytes());
                    text.push(b'\n');
                }
                let c = pool
                    .install(|| self.stream(&mut text.as_slice(), "<argument>", &mut out, false));
                counts.add(c.map_err(|e| match e {
                    StreamError::Read(e) | StreamError::Sink(e) => write_err(e),
                })?);
            }
            for input in inputs {
                counts.add(pool.install(|| self.input(input, &mut out, &name))?);
            }
            out.commit().map_err(write_err)?;
        }
        if !global.quiet {
            // Only text output is rewritten: the JSON objects hold all three
            // dialects whatever `--to` says, so nothing is "written as" one.
            let to = self.args.to.filter(|_| self.args.format == Format::Text);
            say!("{}", summary(counts, to, in_place.len()));
        }
        Ok(if counts.invalid > 0 {
            Outcome::Problems
        } else {
            Outcome::Clean
        })
    }

    /// Converts one input into `out` (named `out_name` in messages): each
    /// stream of it on its own, so that a zip member is named as
    /// `ARCHIVE:MEMBER` and its lines are counted from 1, as `check` does.
    fn input(&self, input: &Input, out: &mut Output, out_name: &str) -> Result<Counts, Error> {
        let read_err = |file: String| move |error| Error::Io { file, error };
        let mut streams = input
            .open_streams(Arc::new(AtomicU64::new(0)))
            .map_err(read_err(input.display_name()))?;
        let mut counts = Counts::default();
        while let Some(mut stream) = streams.next().map_err(read_err(input.display_name()))? {
            let file = stream.input.display_name();
            let interactive = stream.input == Input::Stdin;
            if interactive && self.notes && io::stdin().is_terminal() {
                // As the other commands say it (the pipeline's note): a
                // silent wait for typed records looks like a hang.
                say!(
                    "pgnfen: reading FEN or EPD records from standard input (end it with Ctrl-D; see --help for files)"
                );
            }
            let c = self.stream(&mut *stream.reader, &file, out, interactive);
            counts.add(c.map_err(|e| match e {
                StreamError::Read(e) => read_err(file.clone())(e),
                StreamError::Sink(e) => Error::writing(out_name, e),
            })?);
        }
        Ok(counts)
    }

    /// Converts one stream (named `file` in messages) through the library's
    /// book streaming.
    fn stream(
        &self,
        reader: &mut (dyn io::Read + Send),
        file: &str,
        out: &mut Output,
        interactive: bool,
    ) -> Result<Counts, StreamError<io::Error>> {
        // Only the text output with --to copies line ends as they are; the
        // other outputs end every line themselves.
        let copies_line_ends = self.args.to.is_some() && self.args.format == Format::Text;
        let mut sink = Emitter {
            out,
            invalid_seen: &self.invalid_seen,
            counts: Counts::default(),
            open_line: copies_line_ends && self.open_line.load(Relaxed),
            last: None,
        };
        book::stream(
            reader,
            &StreamRenderer {
                converter: self,
                file,
            },
            interactive,
            &mut sink,
        )?;
        if let Some(b) = sink.last {
            self.open_line.store(b != b'\n' && b != b'\r', Relaxed);
        }
        Ok(sink.counts)
    }

    /// The verdict on a line too long to be a record, once its end is seen.
    fn long_line_end(&self, line_end: &[u8], file: &str, line: u64) -> Rendered {
        let mut r = Rendered::default();
        r.counts.records = 1;
        r.counts.invalid = 1;
        match (self.args.format, self.args.to) {
            (Format::Text, Some(_)) => r.out.extend_from_slice(line_end),
            (Format::Text, None) => {
                r.out.extend_from_slice(b"malformed\t(line too long)");
                r.out
                    .extend_from_slice(if line_end.is_empty() { b"\n" } else { line_end });
            }
            (Format::Json, _) => {
                let report = Located {
                    file,
                    line,
                    report: Line::too_long_report(),
                };
                report.write_line(&mut r.out);
            }
        }
        if self.args.format == Format::Text {
            let message = Line::too_long_message();
            r.diagnostics = format!("{file}:{line}:1: error[fen-syntax]: {message}\n");
        }
        r
    }

    fn line(&self, data: &[u8], line: &Line, file: &str, no: u64, r: &mut Rendered) {
        let text = &data[line.start..line.text_end];
        let ending = &data[line.text_end..line.end];
        if Line::is_blank_or_comment(text) {
            match (self.args.format, self.args.to) {
                // The listing is read by people: no byte of the book may act
                // on their terminal (see `listed`).
                (Format::Text, None) => {
                    listed(text, &mut r.out);
                    r.out.extend_from_slice(ending);
                }
                // A rewritten book keeps its lines as they are.
                (Format::Text, Some(_)) => r.out.extend_from_slice(&data[line.start..line.end]),
                (Format::Json, _) => {}
            }
            return;
        }
        let record = fen::analyse_record(text, VariantHint::StandardLike);
        let analysis = &record.analysis;
        r.counts.records += 1;
        r.counts.invalid += u64::from(!analysis.is_valid());
        r.counts.tag_pairs += u64::from(!analysis.is_valid() && is_tag_pair(text));
        let mut unwritable: Option<Problem> = None;
        match (self.args.format, self.args.to) {
            (Format::Json, _) => {
                let report = Located {
                    file,
                    line: no,
                    report: fen::report_record(text, &record, self.args.ep),
                };
                report.write_line(&mut r.out);
            }
            (Format::Text, None) => {
                r.out.extend_from_slice(analysis.class.as_str().as_bytes());
                r.out.push(b'\t');
                listed(text, &mut r.out);
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
        if self.args.format == Format::Text {
            self.diagnose(
                text,
                &record,
                unwritable.as_ref(),
                file,
                no,
                &mut r.diagnostics,
            );
        }
    }

    fn diagnose(
        &self,
        text: &[u8],
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
                p.column_in(text),
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

/// The runs of one stream, rendered on the worker threads.
struct StreamRenderer<'a> {
    converter: &'a Converter<'a>,
    file: &'a str,
}

impl Render for StreamRenderer<'_> {
    type Run = Rendered;

    fn run(&self, data: &[u8], lines: &[Line], first: u64) -> Rendered {
        let mut r = Rendered {
            out: Vec::with_capacity(lines.len() * 96),
            ..Rendered::default()
        };
        for (i, line) in lines.iter().enumerate() {
            self.converter
                .line(data, line, self.file, first + i as u64, &mut r);
        }
        r
    }

    /// Only the text output with `--to` copies the parts of an over-long line.
    fn long_part(&self, bytes: &[u8]) -> Option<Rendered> {
        let args = self.converter.args;
        (args.to.is_some() && args.format == Format::Text).then(|| Rendered {
            out: bytes.to_vec(),
            ..Rendered::default()
        })
    }

    fn long_line_end(&self, line_end: &[u8], line: u64) -> Rendered {
        self.converter.long_line_end(line_end, self.file, line)
    }
}

/// Writes the rendered runs and their diagnostics in order, and counts them.
struct Emitter<'a> {
    out: &'a mut Output,
    /// Set once an invalid record is handed on (before it is written).
    invalid_seen: &'a std::sync::atomic::AtomicBool,
    counts: Counts,
    /// The input before this one ended inside a line, and line ends are
    /// copied: a `\n` goes before this stream's first byte.
    open_line: bool,
    /// The last byte written for this stream.
    last: Option<u8>,
}

impl book::Sink<Rendered> for Emitter<'_> {
    type Error = io::Error;

    fn emit(&mut self, r: Rendered) -> io::Result<()> {
        if r.counts.invalid > 0 {
            self.invalid_seen.store(true, Relaxed);
        }
        if !r.diagnostics.is_empty() {
            say_raw!("{}", r.diagnostics);
        }
        if let Some(&b) = r.out.last() {
            if std::mem::take(&mut self.open_line) {
                self.out.write_all(b"\n")?;
            }
            self.last = Some(b);
        }
        self.out.write_all(&r.out)?;
        self.counts.add(r.counts);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
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
            tag_pairs: 0,
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
        // Every count with thousands separators, as the other commands write them.
        assert_eq!(
            summary(c(20_000, 1_500, 1_000), Some(Dialect::Xfen), 0),
            "pgnfen: 20,000 records, 17,500 written as xfen, 2,500 left unchanged \
             (1,500 invalid, 1,000 not writable in xfen)"
        );
        assert_eq!(
            summary(c(20_000, 1_500, 0), None, 0),
            "pgnfen: 20,000 records, 1,500 invalid"
        );
        // A PGN file given by mistake: said once, after the counts.
        let pgn = Counts {
            tag_pairs: 7,
            ..c(9, 9, 0)
        };
        assert_eq!(
            summary(pgn, None, 0),
            "pgnfen: 9 records, 9 invalid\npgnfen: 7 of the invalid records are PGN tag pairs: \
             fen reads FEN and EPD books, a record a line; for the FEN tags of PGN games use \
             check or convert"
        );
        assert!(is_tag_pair(b"[Event \"Rated Blitz game\"]\r"));
        assert!(!is_tag_pair(
            b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ));
    }
}
