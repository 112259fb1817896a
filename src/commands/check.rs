//! `pgnfen check`: every problem of a SetUp/FEN/Variant header, reported like a
//! compiler diagnostic (`FILE:LINE:COLUMN: error[CODE]: message`, the tag line,
//! a caret under the fault, a help line), or as JSON lines, CSV, GitHub Actions
//! workflow commands or one SARIF 2.1.0 log.

use std::io::{self, Write};
use std::time::Instant;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use pgnfen::check::{self, Diagnostic, Finding, Summary};
use pgnfen::{Code, Severity};

use crate::cli::{CheckArgs, CheckFormat, Global};
use crate::commands::{Error, Outcome, inputs, options};
use crate::format::{count, thousands};

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
            CheckFormat::Text => {
                let level = match severity {
                    Severity::Error => Level::ERROR,
                    Severity::Warning => Level::WARNING,
                };
                // The tag line escaped as the message is, the caret span moved
                // along (annotate-snippets would show control pictures instead).
                let text = &f.line_text;
                let start = f.span.start.min(text.len());
                let end = f.span.end.clamp(start, text.len());
                let (source, span) = if text.is_char_boundary(start) && text.is_char_boundary(end) {
                    let before = pgnfen::escape::controls(&text[..start]).len();
                    let inside = pgnfen::escape::controls(&text[start..end]).len();
                    (pgnfen::escape::controls(text), before..before + inside)
                } else {
                    (pgnfen::escape::controls(text), f.span.clone())
                };
                let snippet = Snippet::source(source.as_ref())
                    .line_start(line as usize)
                    .annotation(AnnotationKind::Primary.span(span));
                let help = f.help.as_deref().map(pgnfen::escape::controls);
                let mut group = level
                    .primary_title(message.as_ref())
                    .id(f.code.as_str())
                    .element(snippet);
                if let Some(help) = &help {
                    group = group.element(Level::HELP.message(help.as_ref()));
                }
                let rendered = self.renderer.render(&[group]);
                writeln!(self.out, "{}:{}:{}: {}", file, line, f.column, rendered)?;
                writeln!(self.out)
            }
            CheckFormat::Json => {
                let mut json = serde_json::to_vec(&Shown {
                    file: &file,
                    message: &message,
                    d,
                })?;
                json.push(b'\n');
                self.out.write_all(&json)
            }
            CheckFormat::Csv => {
                let raw = self.csv_raw;
                let cell = |s: &str| pgnfen::escape::csv_cell(s, raw).into_owned();
                let mut w = csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(Vec::new());
                w.write_record([
                    cell(&file),
                    d.game.to_string(),
                    line.to_string(),
                    f.column.to_string(),
                    cell(f.tag),
                    cell(f.code.as_str()),
                    cell(severity.as_str()),
                    cell(&message),
                    f.end_column().to_string(),
                    f.help
                        .as_deref()
                        .map(|h| cell(&pgnfen::escape::controls(h)))
                        .unwrap_or_default(),
                ])
                .map_err(io::Error::other)?;
                let bytes = w
                    .into_inner()
                    .map_err(|e| io::Error::other(e.to_string()))?;
                self.out.write_all(&bytes)
            }
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
            CheckFormat::Sarif => self.sarif.result(&mut self.out, &file, line, f, &message),
        }
    }

    /// Ends the report (the CSV header of an empty report, the SARIF log) and
    /// gives back the writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.write_csv_header()?;
        if self.format == CheckFormat::Sarif {
            self.sarif.finish(&mut self.out)?;
        }
        Ok(self.out)
    }
}

pub fn run(global: &Global, args: &CheckArgs) -> Result<Outcome, Error> {
    let started = Instant::now();
    let stdout = anstream::stdout();
    let color = !matches!(stdout.current_choice(), anstream::ColorChoice::Never);
    let out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    // --deny-warnings makes warnings fail the run, so they must be shown too.
    let warnings = args.warnings || args.deny_warnings;
    let mut report = Report::new(out, args.format, color, args.csv_raw);
    let options = check::Options {
        run: options(global),
        warnings,
    };
    let totals = check::run(&inputs(&args.inputs), &options, |d| report.add(d))?;
    let write_err = |e| Error::writing("<stdout>", e);
    let summary = summary(&totals, started.elapsed().as_secs_f64(), warnings);
    let failing = totals.errors()
        + if args.deny_warnings {
            totals.warnings()
        } else {
            0
        };
    let mut out = report.into_inner().map_err(write_err)?;
    if args.format == CheckFormat::Text {
        if !global.quiet {
            out.write_all(summary.as_bytes()).map_err(write_err)?;
            if let Some(hint) = explain_hint(&totals, warnings) {
                out.write_all(hint.as_bytes()).map_err(write_err)?;
            }
        }
    } else if !global.quiet {
        eprint!("{summary}");
    }
    out.flush().map_err(write_err)?;
    Ok(if failing > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

fn summary(r: &Summary, seconds: f64, warnings: bool) -> String {
    let mut s = format!(
        "{} read; {} with errors, {} with warnings{} ({seconds:.2}s)\n",
        count(r.games, "game", "games"),
        thousands(r.games_with_errors),
        thousands(r.games_with_warnings),
        if warnings {
            ""
        } else {
            " (shown with --warnings)"
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

/// A GitHub Actions workflow command's message: `%`, CR and LF are escaped
/// (the runner reads one command per line and unescapes these three).
fn github_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value (`file=`, `title=`): also `:` and `,`,
/// which would end the value or the property list.
fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
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
        let mut map = serializer.serialize_map(Some(10))?;
        map.serialize_entry("file", self.file)?;
        map.serialize_entry("game", &d.game)?;
        map.serialize_entry("line", &d.line)?;
        map.serialize_entry("column", &f.column)?;
        map.serialize_entry("tag", f.tag)?;
        map.serialize_entry("code", f.code.as_str())?;
        map.serialize_entry("severity", d.severity().as_str())?;
        map.serialize_entry("message", self.message)?;
        map.serialize_entry("end_column", &d.end_column())?;
        map.serialize_entry("help", &f.help.as_deref().map(pgnfen::escape::controls))?;
        map.end()
    }
}

/// What a rule of the SARIF log says about a code: a one-line description, a
/// longer one, and how to fix it (the same texts as docs/codes.md).
fn rule_texts(code: Code) -> (&'static str, &'static str, &'static str) {
    match code {
        Code::FenSyntax => (
            "The FEN does not follow the FEN grammar",
            "The FEN tag's value is not a FEN record of six fields (placement, side to move, castling, en passant, halfmove clock, fullmove number); the column points at the first fault.",
            "Fix the field at the column shown; the message says what was expected there.",
        ),
        Code::IllegalPosition => (
            "The position is illegal",
            "The start position breaks a rule of chess: not exactly one king a side, a pawn on the first or last rank, the side not to move in check, an impossible check or too much material.",
            "Correct the placement or the side to move so that the position could occur in a game.",
        ),
        Code::CastlingRights => (
            "A castling right without its king and rook in place",
            "The castling field names a right whose king or rook is not on its back-rank square (or a second right on one side).",
            "Remove the right from the castling field, or put the king and rook where the right needs them.",
        ),
        Code::EnPassant => (
            "An en passant square that cannot follow a double pawn move",
            "The en passant square is on the wrong rank, no pawn can just have moved two squares past it, or the squares it needs are not empty.",
            "Write '-' as the en passant field, or the square the last double pawn move passed over.",
        ),
        Code::SetupWithoutFen => (
            "SetUp \"1\" and no FEN tag",
            "The game says it starts from a set-up position (SetUp \"1\") but has no FEN tag giving it.",
            "Add the FEN tag of the start position, or remove the SetUp tag if the game starts from the initial position.",
        ),
        Code::SetupValue => (
            "A SetUp value other than 0 or 1",
            "The SetUp tag's value is neither \"0\" nor \"1\", or it is \"0\" while the game has a FEN tag.",
            "Write [SetUp \"1\"] before the FEN tag, or remove the FEN tag with SetUp \"0\".",
        ),
        Code::DuplicateTag => (
            "A second SetUp, FEN or Variant tag with another value",
            "The header holds two SetUp, FEN or Variant tags that disagree; the first one is used.",
            "Keep one of the two tags.",
        ),
        Code::VariantMismatch => (
            "The Variant tag contradicts the board",
            "The Variant tag names a variant whose board does not fit the FEN: Chess960 on 10 files, a Capablanca-family variant on 8.",
            "Correct the Variant tag or the FEN so that they name the same board.",
        ),
        Code::VariantWithoutFen => (
            "A Chess960 or 10x8 Variant tag and no FEN tag",
            "Games of Chess960 and of the Capablanca family must record their start position in a FEN tag.",
            "Add [SetUp \"1\"] and the FEN tag of the start position.",
        ),
        Code::FenWithoutSetup => (
            "A FEN tag with no SetUp \"1\"",
            "The PGN standard asks for [SetUp \"1\"] before a FEN tag; some readers ignore a FEN without it.",
            "Add [SetUp \"1\"] before the FEN tag (pgnfen convert --repair does it).",
        ),
        Code::MissingVariant => (
            "Chess960 castling or a 10-file board with no Variant tag",
            "The position needs Chess960 castling or a 10x8 board, but no Variant tag says so; other programs will read it as orthodox chess.",
            "Add a Variant tag (for example [Variant \"Chess960\"]; pgnfen convert --repair does it for Chess960).",
        ),
        Code::MissingClocks => (
            "A FEN of four fields (EPD-like)",
            "The FEN has no halfmove clock and fullmove number; it is read with the clocks 0 1.",
            "Append the clocks (pgnfen convert --repair writes 0 1).",
        ),
        Code::Noncanonical => (
            "A readable FEN that is not canonical",
            "The FEN is read, but it is not written the canonical way: castling letters out of order or repeated, fullmove 0, leading zeros or extra spaces.",
            "Rewrite the FEN canonically (pgnfen convert --to xfen does it).",
        ),
        Code::LossyCastling => (
            "A castling right that classic FEN cannot express",
            "A right held by an inner rook (or an s/m prefix) cannot be written in classic FEN, so the record was left unchanged.",
            "Convert to X-FEN or Shredder-FEN instead.",
        ),
    }
}

/// A SARIF log written as it goes: [`Sarif::result`] writes the head of the
/// log before the first result, each result at once; [`Sarif::finish`] closes
/// the results, the run and the log. The bytes are those of
/// `serde_json::to_writer_pretty` on the whole log.
#[derive(Default)]
struct Sarif {
    /// The rest of the log after its results, once the head is written.
    tail: Option<String>,
    /// Results written so far.
    results: u64,
    /// The file of the last result and its URI (most runs name few files).
    file: String,
    uri: String,
}

/// Indentation of a result inside `runs[0].results` in the pretty log.
const SARIF_RESULT_INDENT: &str = "        ";

fn sarif_level(code: Code) -> &'static str {
    match code.severity() {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

impl Sarif {
    /// The log without results, cut where the results go: the head ends with
    /// `"results": [`, the tail starts with `]`.
    fn frame() -> (String, String) {
        use serde_json::json;
        let rules: Vec<_> = Code::ALL
            .iter()
            .map(|&code| {
                let (short, full, help) = rule_texts(code);
                json!({
                    "id": code.as_str(),
                    "name": code.as_str(),
                    "shortDescription": {"text": short},
                    "fullDescription": {"text": full},
                    "help": {"text": help},
                    "defaultConfiguration": {"level": sarif_level(code)},
                })
            })
            .collect();
        let log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "pgnfen",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }},
                // Columns are counted in characters, as in the text output.
                "columnKind": "unicodeCodePoints",
                // Last, so that everything after it is the tail.
                "results": [],
            }],
        });
        let text = serde_json::to_string_pretty(&log).expect("a JSON value always serialises");
        // Rule texts are fixed strings, none holding this marker.
        let at = text
            .rfind("\"results\": []")
            .expect("the results key is in the log");
        let open = at + "\"results\": [".len();
        (text[..open].to_string(), text[open..].to_string())
    }

    fn head<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if self.tail.is_none() {
            let (head, tail) = Self::frame();
            out.write_all(head.as_bytes())?;
            self.tail = Some(tail);
        }
        Ok(())
    }

    /// Writes one result (the head of the log first, before the first one).
    fn result<W: Write>(
        &mut self,
        out: &mut W,
        file: &str,
        line: u64,
        f: &Finding,
        message: &str,
    ) -> io::Result<()> {
        self.head(out)?;
        if self.results == 0 || self.file != file {
            self.file = file.to_string();
            self.uri = uri_reference(file);
        }
        // The advice of this very problem (the rule's help is generic): in
        // the message, which is what dashboards show, as the lossy-castling
        // line of `convert` writes it, and on its own in the result's
        // properties for tools.
        let (text, properties) = match &f.help {
            Some(help) => {
                let help = pgnfen::escape::controls(help);
                (
                    format!("{message}; help: {help}"),
                    serde_json::json!({"help": help}),
                )
            }
            None => (message.to_string(), serde_json::json!({})),
        };
        // An empty span (a caret between characters) ends where it starts.
        let end = f.end_column().max(f.column);
        let result = serde_json::json!({
            "ruleId": f.code.as_str(),
            "ruleIndex": f.code as usize,
            "level": sarif_level(f.code),
            "message": {"text": text},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": self.uri},
                    "region": {"startLine": line, "startColumn": f.column, "endColumn": end},
                }
            }],
            "properties": properties,
        });
        let text = serde_json::to_string_pretty(&result)?;
        out.write_all(if self.results == 0 { b"\n" } else { b",\n" })?;
        // A JSON string holds no raw line end, so every line is one of the layout's.
        for (i, l) in text.split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(SARIF_RESULT_INDENT.as_bytes())?;
            out.write_all(l.as_bytes())?;
        }
        self.results += 1;
        Ok(())
    }

    /// Closes the results, the run and the log.
    fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.head(out)?;
        let tail = self.tail.take().unwrap_or_default();
        if self.results > 0 {
            // The closing bracket on its own line, under the key.
            out.write_all(b"\n")?;
            out.write_all(&SARIF_RESULT_INDENT.as_bytes()[2..])?;
        }
        out.write_all(tail.as_bytes())?;
        out.write_all(b"\n")
    }
}

/// A file name as a relative URI reference (what code-scanning tools resolve
/// against the repository): bytes other than unreserved characters and `/`
/// are percent-encoded, so `my games.pgn` becomes `my%20games.pgn`.
fn uri_reference(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for &b in file.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_escapes() {
        assert_eq!(github_data("a%b\r\nc: d, e"), "a%25b%0D%0Ac: d, e");
        assert_eq!(github_property("dir,x/a:b%.pgn"), "dir%2Cx/a%3Ab%25.pgn");
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri_reference("games/a-b_c.pgn"), "games/a-b_c.pgn");
        assert_eq!(uri_reference("my games.pgn"), "my%20games.pgn");
        assert_eq!(uri_reference("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri_reference("é.pgn"), "%C3%A9.pgn");
    }

    #[test]
    fn every_code_has_its_rule_at_its_index() {
        for (i, code) in Code::ALL.into_iter().enumerate() {
            assert_eq!(code as usize, i);
            let (short, full, help) = rule_texts(code);
            assert!(!short.is_empty() && full.len() > short.len() && !help.is_empty());
        }
    }
}
