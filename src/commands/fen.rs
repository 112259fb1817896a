//! `pgnfen fen`: converts and classifies bare FEN records, streaming.

use std::io::{self, BufRead, Write};

use rayon::prelude::*;

use crate::cli::{FenArgs, Format, Global};
use crate::commands::{Error, Outcome};
use crate::fen::{self, Analysis, VariantHint};
use crate::problem::Problem;

/// Records handled together on the worker threads when input is plentiful.
const BATCH: usize = 4096;

pub fn run(global: &Global, args: &FenArgs) -> Result<Outcome, Error> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut invalid = 0u64;
    let write_err = |e| Error::writing("<stdout>", e);
    if !args.fens.is_empty() {
        let records: Vec<(u64, &str)> = args
            .fens
            .iter()
            .enumerate()
            .map(|(i, f)| (i as u64 + 1, f.as_str()))
            .collect();
        invalid += emit(&mut out, args, global, "<argument>", &records).map_err(write_err)?;
    } else {
        let stdin = io::stdin();
        let mut reader = io::BufReader::with_capacity(1 << 20, stdin.lock());
        let mut line_no = 0u64;
        let mut batch: Vec<(u64, String)> = Vec::new();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let n = reader
                .read_until(b'\n', &mut buf)
                .map_err(|source| Error::Io {
                    file: "<stdin>".into(),
                    source,
                })?;
            if n > 0 {
                line_no += 1;
                let line = trim_line_end(&buf);
                if !line.iter().all(u8::is_ascii_whitespace) {
                    batch.push((line_no, String::from_utf8_lossy(line).into_owned()));
                }
            }
            // Flush when the batch is full, at the end, or when no more input is
            // waiting (so that interactive use answers each line at once).
            if n == 0 || batch.len() >= BATCH || reader.buffer().is_empty() {
                let records: Vec<(u64, &str)> =
                    batch.iter().map(|(n, s)| (*n, s.as_str())).collect();
                invalid += emit(&mut out, args, global, "<stdin>", &records).map_err(write_err)?;
                batch.clear();
                out.flush().map_err(write_err)?;
            }
            if n == 0 {
                break;
            }
        }
    }
    out.flush().map_err(write_err)?;
    Ok(if invalid > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Analyses and writes a batch of records in order; returns how many were invalid.
fn emit(
    out: &mut impl Write,
    args: &FenArgs,
    global: &Global,
    source: &str,
    records: &[(u64, &str)],
) -> io::Result<u64> {
    let render = |&(line, input): &(u64, &str)| {
        let analysis = fen::analyse(input.as_bytes(), VariantHint::StandardLike);
        let (text, unwritable) = render(args, input, &analysis);
        let mut diagnostics = String::new();
        if !global.quiet && args.format == Format::Text {
            let problems = analysis
                .problems
                .iter()
                .filter(|p| p.is_error())
                .chain(unwritable.as_ref());
            for p in problems {
                diagnostics.push_str(&format!(
                    "{source}:{line}:{}: {}[{}]: {}\n",
                    p.column(),
                    p.severity(),
                    p.code,
                    p.message
                ));
            }
        }
        (text, diagnostics, !analysis.is_valid())
    };
    let rendered: Vec<_> = if records.len() > 64 {
        records.par_iter().map(render).collect()
    } else {
        records.iter().map(render).collect()
    };
    let mut invalid = 0;
    for (text, diagnostics, bad) in rendered {
        if !diagnostics.is_empty() {
            eprint!("{diagnostics}");
        }
        out.write_all(text.as_bytes())?;
        invalid += u64::from(bad);
    }
    Ok(invalid)
}

/// The output line of a record, and the problem that kept it from being written
/// in the asked dialect, if any.
fn render(args: &FenArgs, input: &str, analysis: &Analysis) -> (String, Option<Problem>) {
    match args.format {
        Format::Json => {
            let mut s = serde_json::to_string(&fen::report(input, analysis)).unwrap_or_default();
            s.push('\n');
            (s, None)
        }
        Format::Text => match (args.to, &analysis.position) {
            (None, _) => (format!("{}\t{input}\n", analysis.class), None),
            (Some(_), None) => (format!("{input}\n"), None),
            (Some(dialect), Some(p)) => match p.write(dialect, args.ep) {
                Ok(fen) => (format!("{fen}\n"), None),
                Err(problem) => (format!("{input}\n"), Some(problem)),
            },
        },
    }
}
