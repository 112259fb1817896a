//! `pgnfen check`: every problem of a SetUp/FEN/Variant header, reported like a
//! compiler diagnostic (`FILE:LINE:COLUMN: error[CODE]: message`, the tag line,
//! a caret under the fault, a help line), or as JSON lines, CSV, GitHub Actions
//! workflow commands or one SARIF 2.1.0 log.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use pgnfen::check::{self, Diagnostic, Summary};
use pgnfen::pipeline::Watch;
use pgnfen::{Code, Severity};

use crate::cli::{CheckArgs, CheckFormat, Global};
use crate::commands::{Error, Outcome, inputs, options_streaming, refuse_streams_among_inputs};
use crate::format::{count, thousands};
use pgnfen::ci::{Sarif, github_data, github_property};

/// Prints problems as they come, in the format asked for.
pub struct Report<W: Write> {
    out: W,
    format: CheckFormat,
    renderer: Renderer,
    header_pending: bool,
    /// `--csv-raw`: CSV cells as they are (no quote before a formula start).
    csv_raw: bool,
    /// SARIF is one JSON document, written as a stream: its head (the tool and
    /// its rules, known up front) first, each result as it is found, the end
    /// of the run object last, so that no list of problems is kept.
    sarif: Sarif,
    /// The CSV rows, written by one writer for the whole report (a writer
    /// per row cost an 8 KiB buffer, zeroed, per problem), and how much of
    /// its bytes is already in `out`.
    csv: csv::Writer<Vec<u8>>,
    csv_sent: usize,
}

/// Bytes of CSV after which the rows' writer starts again with an empty buffer.
const CSV_RESTART: usize = 1 << 20;

fn csv_writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new())
}

impl<W: Write> Report<W> {
    pub fn new(out: W, format: CheckFormat, color: bool, csv_raw: bool) -> Self {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        Report {
            out,
            format,
            renderer,
            header_pending: format == CheckFormat::Csv,
            csv_raw,
            sarif: Sarif::default(),
            csv: csv_writer(),
            csv_sent: 0,
        }
    }

    /// The CSV header row comes first, also when nothing is found.
    fn write_csv_header(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.header_pending) {
            self.out
                .write_all(b"file,game,line,column,tag,code,severity,message,end_column,help\n")?;
        }
        Ok(())
    }

    /// Prints one problem (`check::run` hands over warnings only when they
    /// are shown: `check::Options::warnings`).
    fn add(&mut self, d: &Diagnostic<'_>) -> io::Result<()> {
        self.write_csv_header()?;
        let (f, line) = (d.finding, d.line);
        let severity = f.code.severity();
        // Untrusted text, shown the same way in every format: control
        // characters escaped (names are already, by `display_name`; messages
        // quote values that the library escapes, but not every message is
        // built from `shown_value`, so they are escaped here once more: the
        // escaped form holds no control character, so this changes nothing
        // that was escaped before).
        let file = pgnfen::escape::controls(d.file);
        let message = pgnfen::escape::controls(&f.message);
        match self.format {
            CheckFormat::Text => self.text(d, &file, &message),
            CheckFormat::Json => {
                let mut json = serde_json::to_vec(&Shown {
                    file: &file,
                    message: &message,
                    d,
                })?;
                json.push(b'\n');
                self.out.write_all(&json)
            }
            CheckFormat::Csv => self.csv_row(d, &file, &message),
            CheckFormat::Github => {
                let command = match severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                writeln!(
                    self.out,
                    "::{command} file={},line={line},col={},title={}::{}",
                    github_property(&file),
                    f.column,
                    github_property(f.code.as_str()),
                    github_data(&message)
                )
            }
            CheckFormat::Sarif => self.sarif.result_at(
                &mut self.out,
                // The URI of the very file, from its path's bytes.
                d.input.name_bytes(),
                pgnfen::ci::Region {
                    line,
                    column: f.column,
                    end_column: f.end_column(),
                },
                f.code,
                &message,
                f.help.as_deref().map(pgnfen::escape::controls).as_deref(),
            ),
        }
    }

    /// A problem in the text format: the location, then the message with the
    /// tag line and a caret under the fault (annotate-snippets), its note and
    /// help.
    fn text(&mut self, d: &Diagnostic<'_>, file: &str, message: &str) -> io::Result<()> {
        let (f, line) = (d.finding, d.line);
        let severity = f.code.severity();
        let level = match severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        // The tag line escaped as the message is, the caret span moved
        // along (annotate-snippets would show control pictures instead).
        let text = &f.line_text;
        let start = f.span.start.min(text.len());
        let end = f.span.end.clamp(start, text.len());
        // Tabs are left to the renderer, which lines them up.
        let shown = |s: &str| -> String {
            s.split('\t')
                .map(|part| pgnfen::escape::controls(part))
                .collect::<Vec<_>>()
                .join("\t")
        };
        let (source, span) = if text.is_char_boundary(start) && text.is_char_boundary(end) {
            let before = shown(&text[..start]).len();
            let inside = shown(&text[start..end]).len();
            (shown(text), before..before + inside)
        } else {
            (shown(text), f.span.clone())
        };
        let snippet = Snippet::source(source.as_str())
            .line_start(line as usize)
            .annotation(AnnotationKind::Primary.span(span));
        let help = f.help.as_deref().map(pgnfen::escape::controls);
        let mut group = level
            .primary_title(message)
            .id(f.code.as_str())
            .element(snippet);
        if let Some(note) = &f.note {
            let note = pgnfen::escape::controls(note);
            group = group.element(Level::NOTE.message(note.into_owned()));
        }
        if let Some(help) = &help {
            group = group.element(Level::HELP.message(help.as_ref()));
        }
        let rendered = self.renderer.render(&[group]);
        writeln!(self.out, "{}:{}:{}: {}", file, line, f.column, rendered)?;
        writeln!(self.out)
    }

    /// A problem as one CSV row, passed on as soon as it is written.
    fn csv_row(&mut self, d: &Diagnostic<'_>, file: &str, message: &str) -> io::Result<()> {
        let (f, line) = (d.finding, d.line);
        let severity = f.code.severity();
        let raw = self.csv_raw;
        // Borrowed where the text needs no neutralising (most cells).
        let cell = |s| pgnfen::escape::csv_cell(s, raw);
        let help = f.help.as_deref().map(pgnfen::escape::controls);
        let row: [Cow<'_, str>; 10] = [
            cell(file),
            d.game.to_string().into(),
            line.to_string().into(),
            f.column.to_string().into(),
            cell(f.tag),
            cell(f.code.as_str()),
            cell(severity.as_str()),
            cell(message),
            f.end_column().to_string().into(),
            help.as_deref().map_or(Cow::Borrowed(""), cell),
        ];
        self.csv
            .write_record(row.iter().map(|c| c.as_bytes()))
            .map_err(io::Error::other)?;
        self.csv.flush()?;
        let bytes = self.csv.get_ref();
        self.out.write_all(&bytes[self.csv_sent..])?;
        self.csv_sent = bytes.len();
        if self.csv_sent >= CSV_RESTART {
            self.csv = csv_writer();
            self.csv_sent = 0;
        }
        Ok(())
    }

    /// Ends the report (the CSV header of an empty report, the SARIF log) and
    /// gives back the writer. `notes`, what the run warned about beside the
    /// problems (an input in which no tag line is found), which standard
    /// error showed already, are also given where a CI service looks: as
    /// `::warning::` annotations, and in the SARIF log as notifications of
    /// the run.
    pub fn into_inner(mut self, notes: &[String]) -> io::Result<W> {
        self.write_csv_header()?;
        match self.format {
            CheckFormat::Sarif => self.sarif.finish_noting(&mut self.out, notes)?,
            CheckFormat::Github => {
                for note in notes {
                    writeln!(self.out, "::warning::{}", github_data(note))?;
                }
            }
            _ => {}
        }
        Ok(self.out)
    }
}

/// Most notes kept for the report: past them, standard error alone shows
/// them, so that memory stays bounded for a run of many empty inputs.
const NOTES_KEPT: usize = 1000;

/// The run's watch for the CI formats: shows each note as every run does
/// (through the progress display, else on standard error) and keeps it,
/// without the `pgnfen: warning: ` of the line, for the report's end.
struct KeepNotes {
    inner: Option<Arc<dyn Watch>>,
    notes: Mutex<Vec<String>>,
}

impl Watch for KeepNotes {
    fn start(&self, total: Option<u64>) {
        if let Some(w) = &self.inner {
            w.start(total);
        }
    }

    fn input(&self, raw_read: Arc<std::sync::atomic::AtomicU64>) {
        if let Some(w) = &self.inner {
            w.input(raw_read);
        }
    }

    fn games(&self, games: u64) {
        if let Some(w) = &self.inner {
            w.games(games);
        }
    }

    fn note(&self, line: &str) {
        {
            let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
            if notes.len() < NOTES_KEPT {
                notes.push(pgnfen::pipeline::note_message(line).to_owned());
            }
        }
        match &self.inner {
            Some(w) => w.note(line),
            None => {
                let _ = writeln!(io::stderr(), "{line}");
            }
        }
    }

    fn finish(&self, completed: bool) {
        if let Some(w) = &self.inner {
            w.finish(completed);
        }
    }
}

pub fn run(global: &Global, args: &CheckArgs) -> Result<Outcome, Error> {
    if args.csv_raw && args.format != CheckFormat::Csv {
        return Err(Error::usage(
            "check: --csv-raw is for --format csv, the only report with cells",
        ));
    }
    let started = Instant::now();
    let stdout = anstream::stdout();
    let color = !matches!(stdout.current_choice(), anstream::ColorChoice::Never);
    // Without colour, the report goes to standard output as it is: it holds no
    // escape sequence to strip (the renderer is plain, and every name and value
    // has its control characters escaped), and anstream's stripping pass cost
    // a quarter of the time of a SARIF report of a million problems.
    let sink: Box<dyn Write> = if color {
        Box::new(stdout.lock())
    } else {
        Box::new(io::stdout().lock())
    };
    let out = io::BufWriter::with_capacity(1 << 16, sink);
    // --deny-warnings makes warnings fail the run, so they must be shown too.
    let warnings = args.warnings || args.deny_warnings;
    let mut report = Report::new(out, args.format, color, args.csv_raw);
    let mut run = options_streaming(global, None);
    // The CI formats also give the run's notes where the service shows them.
    let kept = matches!(args.format, CheckFormat::Github | CheckFormat::Sarif).then(|| {
        Arc::new(KeepNotes {
            inner: run.watch.take(),
            notes: Mutex::new(Vec::new()),
        })
    });
    if let Some(kept) = &kept {
        run.watch = Some(kept.clone());
    }
    let options = check::Options {
        run,
        warnings,
        moves: args.moves,
    };
    refuse_streams_among_inputs(&args.inputs, &[None])?;
    // Whether a problem that fails the run was handed to the report: a
    // standard output closed after it (`| head`) ends the run quietly, but
    // with status 1, as the whole run would have.
    let mut failed = false;
    // Whether writing the report failed: the library gives the failure of
    // the function it is given as it is (`Error::Report`), and the report's
    // one output is standard output, named as the other commands name it.
    let mut unwritten = false;
    let totals = check::run(&inputs(&args.inputs), &options, |d| {
        failed |= d.severity() == Severity::Error || args.deny_warnings;
        let written = report.add(d);
        unwritten |= written.is_err();
        written
    });
    let totals = match totals {
        Err(Error::BrokenPipe) if failed => return Ok(Outcome::Problems),
        Err(Error::Report(error)) if unwritten => {
            return Err(Error::writing("<stdout>", error));
        }
        other => other?,
    };
    let summary = summary(&totals, started.elapsed().as_secs_f64(), warnings);
    let failing = totals.errors()
        + if args.deny_warnings {
            totals.warnings()
        } else {
            0
        };
    let outcome = if failing > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    let notes = kept.map_or_else(Vec::new, |k| {
        std::mem::take(&mut *k.notes.lock().unwrap_or_else(|e| e.into_inner()))
    });
    match finish(
        report,
        &notes,
        global,
        &summary,
        &totals,
        args.format,
        warnings,
    ) {
        Err(Error::BrokenPipe) => Ok(outcome),
        other => other.map(|()| outcome),
    }
}

/// Ends the report and writes the summary: after the problems in the text
/// report, on standard error beside the others.
fn finish<W: Write>(
    report: Report<W>,
    notes: &[String],
    global: &Global,
    summary: &str,
    totals: &Summary,
    format: CheckFormat,
    warnings: bool,
) -> Result<(), Error> {
    let write_err = |e| Error::writing("<stdout>", e);
    let mut out = report.into_inner(notes).map_err(write_err)?;
    if format == CheckFormat::Text {
        if !global.quiet {
            out.write_all(summary.as_bytes()).map_err(write_err)?;
            if let Some(hint) = explain_hint(totals, warnings) {
                out.write_all(hint.as_bytes()).map_err(write_err)?;
            }
        }
        return out.flush().map_err(write_err);
    }
    // The report is out (or failed) before the summary tells of a run that
    // ended: a full disk is not followed by a summary, as if all went well.
    out.flush().map_err(write_err)?;
    if !global.quiet {
        say_raw!("{summary}");
    }
    Ok(())
}

fn summary(r: &Summary, seconds: f64, warnings: bool) -> String {
    let mut s = format!(
        "{} read; {} with errors, {} with warnings ({seconds:.2}s){}\n",
        count(r.games, "game", "games"),
        thousands(r.games_with_errors),
        thousands(r.games_with_warnings),
        // Counted but not listed: say how to see them.
        if warnings || r.games_with_warnings == 0 {
            ""
        } else {
            "; --warnings lists them"
        }
    );
    for code in Code::ALL {
        let n = r.counts[code as usize];
        if n > 0 {
            s.push_str(&format!(
                "  {:<20} {:<8} {}\n",
                code.as_str(),
                code.severity().as_str(),
                thousands(n)
            ));
        }
    }
    if r.moves_unfinished > 0 {
        // Not a problem of the game, but a promise not kept: say so.
        s.push_str(&format!(
            "note: {} not replayed to the end: the movetext passes what the replay holds \
             (8 MiB); any moves before that were legal\n",
            count(r.moves_unfinished, "game was", "games were")
        ));
    }
    s
}

/// The last line of the text report when problems were shown: where to read
/// about their codes (as rustc ends with `rustc --explain`).
fn explain_hint(r: &Summary, warnings: bool) -> Option<String> {
    let shown: Vec<&str> = Code::ALL
        .iter()
        .filter(|&&c| r.counts[c as usize] > 0 && (warnings || c.severity() == Severity::Error))
        .map(|c| c.as_str())
        .collect();
    let first = shown.first()?;
    Some(if shown.len() == 1 {
        format!("For more about this problem, try `pgnfen explain {first}`.\n")
    } else {
        format!(
            "For more about a problem, try `pgnfen explain CODE` (e.g. `pgnfen explain {first}`).\n"
        )
    })
}

/// A diagnostic as `--format json` prints it, with the file name and the
/// message in their shown (escaped) form.
struct Shown<'a> {
    file: &'a str,
    message: &'a str,
    d: &'a Diagnostic<'a>,
}

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (d, f) = (self.d, self.d.finding);
        let mut map = serializer.serialize_map(Some(if f.ply.is_some() { 13 } else { 10 }))?;
        map.serialize_entry("file", self.file)?;
        map.serialize_entry("game", &d.game)?;
        map.serialize_entry("line", &d.line)?;
        map.serialize_entry("column", &f.column)?;
        // A problem of the movetext has no tag: `"tag": null`.
        map.serialize_entry("tag", &f.ply.is_none().then_some(f.tag))?;
        map.serialize_entry("code", f.code.as_str())?;
        map.serialize_entry("severity", d.severity().as_str())?;
        map.serialize_entry("message", self.message)?;
        map.serialize_entry("end_column", &d.end_column())?;
        map.serialize_entry("help", &f.help.as_deref().map(pgnfen::escape::controls))?;
        if let Some(ply) = f.ply {
            map.serialize_entry("ply", &ply)?;
            let token = f.move_text.as_deref().unwrap_or_default();
            map.serialize_entry("move", &pgnfen::escape::controls(token))?;
            map.serialize_entry("position", &f.position.as_deref().unwrap_or_default())?;
        }
        map.end()
    }
}
