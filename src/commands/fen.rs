//! `pgnfen fen`: classifies and converts FEN and EPD books, one record a line,
//! streaming.
//!
//! Input is read in blocks of whole lines; the records of a block are analysed
//! on the worker threads in runs of lines, and the runs' output is written in
//! input order, so memory stays bounded by the block size whatever the size of
//! the book. Blank lines and `#` lines are copied as they are; every line keeps
//! its own line end (`\n`, `\r\n` or a lone `\r`).

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::cli::{FenArgs, Format, Global};
use crate::commands::{Error, Outcome, check_inputs_exist, options};
use pgnfen::book::{self, Line, Render, StreamError};
use pgnfen::fen::{self, Record, VariantHint};
use pgnfen::pipeline::Input;
use pgnfen::pipeline::output::Output;
use pgnfen::problem::Problem;

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
    /// The input's name in diagnostics.
    file: String,
}

pub fn run(global: &Global, args: &FenArgs) -> Result<Outcome, Error> {
    let inputs: Vec<Input> = if args.inputs.is_empty() && args.records.is_empty() {
        vec![Input::Stdin]
    } else {
        args.inputs.iter().map(|a| Input::from_arg(a)).collect()
    };
    check_inputs_exist(&inputs)?;
    let name = args
        .output
        .as_ref()
        .map_or("<stdout>".to_string(), |p| p.display().to_string());
    let write_err = |e| Error::writing(&name, e);
    let mut out = Output::create(args.output.as_deref()).map_err(write_err)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options(global).threads)
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the worker threads: {e}")))?;
    let converter = |file: String| Converter {
        args,
        quiet: global.quiet,
        file,
    };
    let mut sink = Emit {
        out: &mut out,
        counts: Counts::default(),
    };

    // Literal records come first, in the order given, then the files.
    if !args.records.is_empty() {
        let mut text = Vec::new();
        for r in &args.records {
            text.extend_from_slice(r.as_bytes());
            text.push(b'\n');
        }
        let lines = book::split_lines(&text, true).0;
        let converter = converter("<argument>".into());
        let runs = pool.install(|| book::render_block(&converter, &text, &lines, 1));
        for r in runs {
            book::Sink::emit(&mut sink, r).map_err(write_err)?;
        }
    }
    for input in &inputs {
        let file = input.display_name();
        let read_err = |source| Error::Io {
            file: file.clone(),
            source,
        };
        let mut reader = input.open(Arc::new(AtomicU64::new(0))).map_err(read_err)?;
        let converter = converter(file.clone());
        let interactive = input == &Input::Stdin;
        pool.install(|| book::stream(&mut *reader, &converter, interactive, &mut sink))
            .map_err(|e| match e {
                StreamError::Read(e) => read_err(e),
                StreamError::Sink(e) => write_err(e),
            })?;
    }
    let counts = sink.counts;
    out.commit().map_err(write_err)?;
    if !global.quiet && args.format == Format::Text && (counts.invalid + counts.unwritable) > 0 {
        let mut msg = format!(
            "pgnfen: {} records, {} invalid",
            counts.records, counts.invalid
        );
        if let Some(d) = args.to {
            msg.push_str(&format!(
                ", {} not writable in {}",
                counts.unwritable,
                d.as_str()
            ));
        }
        if args.to.is_some() {
            msg.push_str("; those records were left unchanged");
        }
        eprintln!("{msg}");
    }
    Ok(if counts.invalid > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

/// Writes the rendered runs and their diagnostics, in order, and adds up their counts.
struct Emit<'a> {
    out: &'a mut Output,
    counts: Counts,
}

impl book::Sink<Rendered> for Emit<'_> {
    type Error = io::Error;

    fn emit(&mut self, r: Rendered) -> io::Result<()> {
        self.counts.add(emit(self.out, [r])?);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Render for Converter<'_> {
    type Run = Rendered;

    fn run(&self, data: &[u8], lines: &[Line], first: u64) -> Rendered {
        let mut r = Rendered {
            out: Vec::with_capacity(lines.len() * 96),
            ..Rendered::default()
        };
        for (i, line) in lines.iter().enumerate() {
            self.line(data, line, first + i as u64, &mut r);
        }
        r
    }

    /// Only `--to` copies lines (an over-long one unchanged).
    fn long_part(&self, bytes: &[u8]) -> Option<Rendered> {
        (self.args.to.is_some() && self.args.format == Format::Text).then(|| Rendered {
            out: bytes.to_vec(),
            ..Rendered::default()
        })
    }

    /// The verdict on a line too long to be a record, once its end is seen.
    fn long_line_end(&self, line_end: &[u8], line: u64) -> Rendered {
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
                r.out
                    .extend_from_slice(book::long_line_report().to_string().as_bytes());
                r.out.push(b'\n');
            }
        }
        if !self.quiet && self.args.format == Format::Text {
            r.diagnostics = format!(
                "{}:{line}:1: error[fen-syntax]: {}\n",
                self.file,
                book::long_line_message()
            );
        }
        r
    }
}

impl Converter<'_> {
    fn line(&self, data: &[u8], line: &Line, no: u64, r: &mut Rendered) {
        let text = line.text(data);
        let ending = line.ending(data);
        if book::is_blank_or_comment(text) {
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
                let report = fen::report_record(text, &record);
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
            self.diagnose(&record, unwritable.as_ref(), no, &mut r.diagnostics);
        }
    }

    fn diagnose(&self, record: &Record, unwritable: Option<&Problem>, no: u64, out: &mut String) {
        use std::fmt::Write as _;
        let errors = record.analysis.problems.iter().filter(|p| p.is_error());
        for p in errors.chain(unwritable) {
            let _ = write!(
                out,
                "{}:{no}:{}: {}[{}]: {}{}",
                self.file,
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
