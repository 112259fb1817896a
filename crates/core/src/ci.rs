//! The writers of `check`'s machine formats for CI (GitHub Actions workflow
//! commands and SARIF 2.1.0 logs): text only, no I/O, so they live in this
//! layer, where the program, the library and the fuzz target `ci_output`
//! (which parses what they write back) all reach them.
//!
//! ```
//! use pgnfen_core::ci::{github_data, github_property};
//!
//! assert_eq!(github_data("50% done\n::warning::x"), "50%25 done%0A::warning::x");
//! assert_eq!(github_property("a:b,c"), "a%3Ab%2Cc");
//! ```

use std::io::{self, Write};

use serde::Serialize;

use crate::problem::{Code, Severity};

/// A GitHub Actions workflow command's message: `%`, CR and LF are escaped
/// (the runner reads one command per line and unescapes these three).
pub fn github_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value (`file=`, `title=`): also `:` and `,`,
/// which would end the value or the property list.
pub fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// What a rule of the SARIF log says about a code: a one-line description, a
/// longer one, and how to fix it (docs/codes.md's table says the same in as
/// few words; `pgnfen explain CODE` prints that page's section).
pub fn rule_texts(code: Code) -> (&'static str, &'static str, &'static str) {
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
            "A castling right whose king or rook is not on its square",
            "The castling field names a right whose king or rook is not on its back-rank square (or a second right on one side).",
            "Remove the right from the castling field, or put the king and rook where the right needs them.",
        ),
        Code::EnPassant => (
            "An en passant square that no double pawn step can have left",
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
            "Two SetUp, FEN or Variant tags that disagree",
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
            "A Chess960 or Capablanca-family game starts from one of many arrays, so without a FEN tag its start position is unknown.",
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
            "A castling right that the target dialect cannot express",
            "The conversion's target dialect cannot write one of the record's castling rights (an inner rook's right in classic FEN; an s/m prefix in any dialect but X-FEN), so the record was left unchanged.",
            "Convert to X-FEN instead (or, for an inner rook's right, to Shredder-FEN).",
        ),
        Code::IllegalMove => (
            "A mainline move that does not fit the start position",
            "With --moves, the game's mainline is replayed from its FEN tag (or the standard or variant start position) in the rules of its class or variant; this move is not SAN, is ambiguous, or is not legal in the position where it is played. A FEN holding the game's final position, a FEN copied from another game, a dropped castling right or en passant square, or a lost Variant tag shows up this way.",
            "Correct the FEN tag (the note gives the position the move was played in; the message says when the moves fit the standard start position), the Variant tag, or the move.",
        ),
    }
}

/// Where a SARIF result lies: its line, and its first and past-the-end
/// columns (in characters, as the text format's carets).
#[derive(Clone, Copy, Debug)]
pub struct Region {
    /// 1-based line.
    pub line: u64,
    /// 1-based first column.
    pub column: usize,
    /// The column just past the part at fault.
    pub end_column: usize,
}

/// A SARIF log written as it goes: [`Sarif::result`] writes the head of the
/// log before the first result, each result at once; [`Sarif::finish`] closes
/// the results, the run and the log. The bytes are those of
/// `serde_json::to_writer_pretty` on the whole log.
#[derive(Debug, Default)]
pub struct Sarif {
    /// The rest of the log after its results, once the head is written.
    tail: Option<String>,
    /// Results written so far.
    results: u64,
    /// The file of the last result and its URI (most runs name few files).
    file: Vec<u8>,
    uri: String,
    /// The last result's JSON, kept for its room.
    buffer: Vec<u8>,
}

// One SARIF result, its keys in the order the log has always written them:
// typed, rather than a `serde_json::Value` of maps, so that a report of a
// million problems does not build a million small maps.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'a str,
    message: SarifText<'a>,
    locations: [SarifLocation<'a>; 1],
    properties: SarifProperties<'a>,
}

#[derive(Serialize)]
struct SarifText<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation<'a> {
    physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation<'a> {
    artifact_location: ArtifactLocation<'a>,
    region: SarifRegion,
}

#[derive(Serialize)]
struct ArtifactLocation<'a> {
    uri: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: u64,
    start_column: usize,
    end_column: usize,
}

/// The advice of this very problem, for tools (`{}` without one).
#[derive(Serialize)]
struct SarifProperties<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
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

    /// Writes one result (the head of the log first, before the first one):
    /// [`Sarif::result_at`] with a region of one column and no advice.
    pub fn result<W: Write>(
        &mut self,
        out: &mut W,
        file: impl AsRef<[u8]>,
        line: u64,
        column: usize,
        code: Code,
        message: &str,
    ) -> io::Result<()> {
        let region = Region {
            line,
            column,
            end_column: column,
        };
        self.result_at(out, file, region, code, message, None)
    }

    /// Writes one result with the region's end column and the advice of
    /// this very problem (the rule's help is generic): the advice goes in the
    /// message, which is what dashboards show, and on its own in the
    /// result's properties for tools.
    ///
    /// `file` is the file's name as bytes ([`uri_reference`]): give the path's
    /// own bytes where there is a path, so that a name that is not UTF-8, or
    /// that holds control characters, still makes the URI of that very file.
    pub fn result_at<W: Write>(
        &mut self,
        out: &mut W,
        file: impl AsRef<[u8]>,
        region: Region,
        code: Code,
        message: &str,
        help: Option<&str>,
    ) -> io::Result<()> {
        self.head(out)?;
        let file = file.as_ref();
        if self.results == 0 || self.file != file {
            self.file = file.to_vec();
            self.uri = uri_reference(file);
        }
        let text = match help {
            Some(help) => std::borrow::Cow::Owned(format!("{message}; help: {help}")),
            None => std::borrow::Cow::Borrowed(message),
        };
        // An empty span (a caret between characters) ends where it starts.
        let end = region.end_column.max(region.column);
        let result = SarifResult {
            rule_id: code.as_str(),
            rule_index: code as usize,
            level: sarif_level(code),
            message: SarifText { text: &text },
            locations: [SarifLocation {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation { uri: &self.uri },
                    region: SarifRegion {
                        start_line: region.line,
                        start_column: region.column,
                        end_column: end,
                    },
                },
            }],
            properties: SarifProperties { help },
        };
        self.buffer.clear();
        serde_json::to_writer_pretty(&mut self.buffer, &result)?;
        out.write_all(if self.results == 0 { b"\n" } else { b",\n" })?;
        // A JSON string holds no raw line end, so every line is one of the layout's.
        for (i, l) in self.buffer.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(SARIF_RESULT_INDENT.as_bytes())?;
            out.write_all(l)?;
        }
        self.results += 1;
        Ok(())
    }

    /// Closes the results, the run and the log.
    pub fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.finish_noting(out, &[])
    }

    /// Closes the results, the run and the log, with `notes` (what the run
    /// warned about beside the problems, such as an input in which no tag
    /// line is found) as the warnings of the run's invocation
    /// (`invocations[0].toolExecutionNotifications`), where SARIF keeps what
    /// a tool says about its run rather than about the code.
    pub fn finish_noting<W: Write>(&mut self, out: &mut W, notes: &[String]) -> io::Result<()> {
        self.head(out)?;
        let tail = self.tail.take().unwrap_or_default();
        if self.results > 0 {
            // The closing bracket on its own line, under the key.
            out.write_all(b"\n")?;
            out.write_all(&SARIF_RESULT_INDENT.as_bytes()[2..])?;
        }
        // The tail closes the results first: `]`, then the run and the log.
        let (close, rest) = tail.split_at(tail.find(']').map_or(0, |i| i + 1));
        out.write_all(close.as_bytes())?;
        if !notes.is_empty() {
            let notifications: Vec<serde_json::Value> = notes
                .iter()
                .map(|note| serde_json::json!({"level": "warning", "message": {"text": note}}))
                .collect();
            let invocations = serde_json::json!([{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }]);
            let text = serde_json::to_string_pretty(&invocations)?;
            // At the results' key's depth in the run object.
            let indent = &SARIF_RESULT_INDENT[2..];
            write!(out, ",\n{indent}\"invocations\": ")?;
            for (i, line) in text.split('\n').enumerate() {
                if i > 0 {
                    write!(out, "\n{indent}")?;
                }
                out.write_all(line.as_bytes())?;
            }
        }
        out.write_all(rest.as_bytes())?;
        out.write_all(b"\n")
    }
}

/// A file name as a URI reference: bytes other than unreserved characters
/// and `/` are percent-encoded, so `my games.pgn` becomes `my%20games.pgn`
/// (and a name's bytes that are not UTF-8 keep their values: `\xE9` is `%E9`).
/// A relative name stays relative (code-scanning tools resolve it against
/// the repository); an absolute one becomes a `file://` URI
/// (`/data/a.pgn` → `file:///data/a.pgn`), as SARIF wants absolute URIs.
pub fn uri_reference(file: impl AsRef<[u8]>) -> String {
    let file = file.as_ref();
    let mut out = String::with_capacity(file.len() + 7);
    if file.starts_with(b"/") {
        out.push_str("file://");
    }
    for &b in file {
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
        assert_eq!(uri_reference("/data/my a.pgn"), "file:///data/my%20a.pgn");
        assert_eq!(uri_reference("./a.pgn"), "./a.pgn");
        assert_eq!(uri_reference(b"caf\xE9\x1B.pgn"), "caf%E9%1B.pgn");
    }

    /// The streamed log, parsed and printed again in one piece, gives the same
    /// bytes: the stream is the pretty document, whatever the number of results.
    #[test]
    fn streamed_sarif_is_the_pretty_document() {
        for n in 0..3u64 {
            let mut out = Vec::new();
            let mut sarif = Sarif::default();
            for i in 0..n {
                let file = if i == 0 { "a b.pgn" } else { "c.pgn" };
                sarif
                    .result(&mut out, file, i + 1, 2, Code::ALL[i as usize], "x \"y\"\n")
                    .unwrap();
            }
            sarif.finish(&mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            let log: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(serde_json::to_string_pretty(&log).unwrap() + "\n", text);
            let results = log["runs"][0]["results"].as_array().unwrap();
            assert_eq!(results.len() as u64, n);
            if n > 0 {
                let place = &results[0]["locations"][0]["physicalLocation"];
                assert_eq!(place["artifactLocation"]["uri"], "a%20b.pgn");
                assert_eq!(results[0]["message"]["text"], "x \"y\"\n");
            }
        }
    }

    /// A result as a JSON value, with the keys in the log's order: what the
    /// typed result must print as.
    fn expected_result(
        uri: &str,
        region: Region,
        code: Code,
        text: &str,
        help: Option<&str>,
    ) -> String {
        let properties = match help {
            Some(help) => serde_json::json!({"help": help}),
            None => serde_json::json!({}),
        };
        let value = serde_json::json!({
            "ruleId": code.as_str(),
            "ruleIndex": code as usize,
            "level": sarif_level(code),
            "message": {"text": text},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": {
                        "startLine": region.line,
                        "startColumn": region.column,
                        "endColumn": region.end_column.max(region.column),
                    },
                }
            }],
            "properties": properties,
        });
        serde_json::to_string_pretty(&value).unwrap()
    }

    #[test]
    fn results_print_as_their_json_values() {
        let cases = [
            (
                Region {
                    line: 7,
                    column: 3,
                    end_column: 9,
                },
                Some("write \"AHah\""),
            ),
            (
                Region {
                    line: 1,
                    column: 5,
                    end_column: 2,
                },
                None,
            ),
        ];
        for (region, help) in cases {
            let mut out = Vec::new();
            let mut sarif = Sarif::default();
            let code = Code::IllegalMove;
            sarif
                .result_at(
                    &mut out,
                    "dir/é x.pgn",
                    region,
                    code,
                    "bad\tmove \u{1b}",
                    help,
                )
                .unwrap();
            let text = String::from_utf8(out).unwrap();
            let result = &text[text.rfind("\"results\": [").unwrap() + "\"results\": [\n".len()..];
            let message = match help {
                Some(help) => format!("bad\tmove \u{1b}; help: {help}"),
                None => "bad\tmove \u{1b}".to_string(),
            };
            let expected = expected_result("dir/%C3%A9%20x.pgn", region, code, &message, help);
            let indented: Vec<String> = expected
                .lines()
                .map(|l| format!("{SARIF_RESULT_INDENT}{l}"))
                .collect();
            assert_eq!(result, indented.join("\n"));
        }
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
