//! EPD records: the first four FEN fields followed by operations
//! (`opcode operand ...;`, e.g. `bm Nf3; id "BK.01";`), one a line, as opening
//! books and test suites keep them.
//!
//! The position is read as a FEN without clocks, and without the
//! `missing-clocks` warning (an EPD has no clocks). The operations are kept byte
//! for byte: they are parsed only far enough to find where the position ends and
//! to reject a broken line (an unterminated string, an opcode that does not
//! start with a letter), with the column of the fault. Decisions (also
//! in docs/books.md):
//!
//! * A string operand runs from `"` to the next `"` not escaped by a backslash,
//!   so `c0 "with ; inside";` is one operation whose `;` is part of the string.
//! * The last operation of a line may lack its `;` (`... pv e4 e5; c0 8`, as
//!   python-chess's pv.epd and some tablebase suites write it): the end of the
//!   line ends it, and a `noncanonical` warning says so. Its bytes are kept as
//!   they are (no `;` is added), like every other operation's.
//! * An empty operation (a `;` with nothing before it, e.g. a trailing `;;` or a
//!   lone `;` after the four fields) is read and kept, with a `noncanonical`
//!   warning.
//! * `hmvc N;` and `fmvn N;` also set the position's clocks (as python-chess
//!   does); they stay in the operations too. Their operand must be one integer
//!   (≥ 0; an `fmvn` of 0 is read as 1 with a `noncanonical` warning, as a
//!   FEN's fullmove 0), else the record is invalid.
//! * A line without `;` whose fifth field starts with a digit or `-`, or that
//!   has six fields ending in a number (`... - x 2`), is a FEN whose clocks are
//!   at fault, not an EPD, and gets the FEN's messages.

use std::ops::Range;

use super::{Analysis, Dialect, EpPolicy, VariantHint, analyse};
use crate::class::Class;
use crate::problem::{Code, Problem};

/// Where a record's position and operations lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The bytes analysed as a FEN.
    pub position: Range<usize>,
    /// From the first opcode to the end of the line; `None` for a FEN.
    pub operations: Option<Range<usize>>,
}

/// Finds the operations after the first four space-separated fields.
pub fn split(line: &[u8]) -> Split {
    let whole = Split {
        position: 0..line.len(),
        operations: None,
    };
    // A tab is not a separator of the FEN (its parser says so), but it is
    // found as one here, so that the operations after it are still told
    // apart from the position's fields.
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut i = 0;
    let mut fourth_end = None;
    for _ in 0..4 {
        while i < line.len() && blank(line[i]) {
            i += 1;
        }
        if i == line.len() {
            return whole;
        }
        while i < line.len() && !blank(line[i]) {
            i += 1;
        }
        fourth_end = Some(i);
    }
    let Some(fourth_end) = fourth_end else {
        return whole;
    };
    let mut start = fourth_end;
    while start < line.len() && blank(line[start]) {
        start += 1;
    }
    // A FEN never holds a ';': with one, the rest is operations however it
    // starts. Without one, a fifth field that starts like a clock, or two more
    // fields of which the last is a number (`- x 2`: a bad halfmove clock), make
    // it a FEN with a fault in its clocks.
    let rest = &line[start..];
    let fen_like = |b: u8| b.is_ascii_digit() || b == b'-';
    let mut tokens = rest.split(|&b| blank(b)).filter(|t| !t.is_empty());
    let clock_pair = tokens.clone().count() == 2
        && tokens
            .nth(1)
            .is_some_and(|t| t.iter().all(u8::is_ascii_digit));
    match rest.first() {
        None => whole,
        Some(&b) if (fen_like(b) || clock_pair) && !rest.contains(&b';') => whole,
        Some(_) => Split {
            // One separating space is the operations'; more are the FEN's spacing
            // fault, reported as such by the FEN parser, and so is a tab.
            position: 0..if line[start - 1] == b' ' {
                start - 1
            } else {
                start
            },
            operations: Some(start..line.len()),
        },
    }
}

/// A record read as a FEN whose halfmove clock reads as an opcode (`... - dm
/// 13`, see [`split`]) may be an EPD whose one operation lacks its `;`: the
/// clock's error says how to write it so.
fn opcode_as_clock_help(line: &[u8], problems: &mut [Problem]) {
    // Most records have no syntax fault: nothing to read again.
    if !problems.iter().any(|p| p.code == Code::FenSyntax) {
        return;
    }
    let mut fields = line
        .split(|&b| b == b' ')
        .scan(0, |at, field| {
            let start = *at;
            *at += field.len() + 1;
            Some((start, field))
        })
        .filter(|(_, f)| !f.is_empty());
    let (Some((at, opcode)), Some((_, operand)), None) =
        (fields.nth(4), fields.next(), fields.next())
    else {
        return;
    };
    let opcode_like = opcode[0].is_ascii_alphabetic()
        && opcode
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_');
    if let Some(p) = problems.iter_mut().find(|p| {
        opcode_like && p.code == Code::FenSyntax && p.span.start == at && p.help.is_none()
    }) {
        p.help = Some(format!(
            "if '{} {}' is an EPD operation, end it with ';' ('{0} {1};'): a line of four fields and two more ending in a number reads as a FEN",
            String::from_utf8_lossy(opcode),
            String::from_utf8_lossy(operand)
        ));
    }
}

/// What the operations say about the clocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clocks {
    /// The halfmove clock (`hmvc`), if given.
    pub halfmove: Option<u32>,
    /// The fullmove number (`fmvn`), if given.
    pub fullmove: Option<u32>,
}

fn syntax(span: Range<usize>, message: impl Into<String>) -> Problem {
    Problem::new(Code::FenSyntax, span, message)
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A control byte other than a blank: not text.
fn is_control(b: u8) -> bool {
    (b < 0x20 && !is_space(b)) || b == 0x7f
}

/// The error of a control byte `b` at `at` in the operations.
fn control_byte(at: usize, b: u8) -> Problem {
    syntax(
        at..at + 1,
        format!("control byte 0x{b:02x} in the operations; expected printable text"),
    )
}

/// Checks the operations in `line[ops]`; problems' spans are inside `line`.
/// Returns the clocks `hmvc`/`fmvn` give, or `None` after an error.
pub fn check_operations(
    line: &[u8],
    ops: Range<usize>,
    problems: &mut Vec<Problem>,
) -> Option<Clocks> {
    let mut clocks = Clocks::default();
    let end = ops.end;
    let mut i = ops.start;
    loop {
        while i < end && is_space(line[i]) {
            i += 1;
        }
        if i == end {
            return Some(clocks);
        }
        if line[i] == b';' {
            problems.push(
                Problem::new(
                    Code::Noncanonical,
                    i..i + 1,
                    "empty operation: a ';' with no opcode before it",
                )
                .with_help("remove the extra ';'"),
            );
            i += 1;
            continue;
        }
        // The opcode: a letter, then letters, digits or '_'.
        let op_start = i;
        if !line[i].is_ascii_alphabetic() {
            problems.push(
                syntax(
                    i..i + 1,
                    format!(
                        "'{}' cannot start an opcode; expected an opcode (a letter, then letters, digits or '_') such as 'bm' or 'id'",
                        shown(line[i])
                    ),
                )
                .with_help("each operation is 'opcode operand ...;'"),
            );
            return None;
        }
        while i < end && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
            i += 1;
        }
        let opcode = &line[op_start..i];
        if i < end && !is_space(line[i]) && line[i] != b';' {
            problems.push(syntax(
                i..i + 1,
                format!(
                    "'{}' in the opcode '{}'; expected letters, digits or '_', then a space or ';'",
                    shown(line[i]),
                    String::from_utf8_lossy(opcode)
                ),
            ));
            return None;
        }
        // Operands up to the ';' that ends the operation.
        let mut operands: Vec<Range<usize>> = Vec::new();
        loop {
            while i < end && is_space(line[i]) {
                i += 1;
            }
            if i == end {
                // Only the line's last operation can get here: some books
                // (python-chess's own pv.epd, tablebase test suites) leave out
                // its ';'. The end of the line closes it just as well, so the
                // record is read and the deviation is a warning, not an error.
                problems.push(
                    Problem::new(
                        Code::Noncanonical,
                        end..end,
                        format!(
                            "the last operation '{}' has no ending ';'",
                            String::from_utf8_lossy(opcode)
                        ),
                    )
                    .with_help("end every operation with ';'"),
                );
                break;
            }
            match line[i] {
                b';' => {
                    i += 1;
                    break;
                }
                b'"' => {
                    let open = i;
                    i += 1;
                    loop {
                        match line.get(i) {
                            _ if i >= end => {
                                problems.push(
                                    syntax(
                                        open..end,
                                        "unterminated string; expected a closing '\"'",
                                    )
                                    .with_help("close the string with '\"' before the ';'"),
                                );
                                return None;
                            }
                            // A string is printable text too: a control byte
                            // in it (a tab is a blank) is the error it is
                            // outside one, escaped or not.
                            Some(&b)
                                if is_control(b)
                                    || (b == b'\\' && i + 1 < end && is_control(line[i + 1])) =>
                            {
                                let at = if b == b'\\' { i + 1 } else { i };
                                problems.push(control_byte(at, line[at]));
                                return None;
                            }
                            Some(b'\\') => i += 2,
                            Some(b'"') => {
                                i += 1;
                                break;
                            }
                            _ => i += 1,
                        }
                    }
                    operands.push(open..i.min(end));
                }
                b if is_control(b) => {
                    problems.push(control_byte(i, b));
                    return None;
                }
                _ => {
                    let start = i;
                    while i < end
                        && !is_space(line[i])
                        && line[i] != b';'
                        && line[i] >= 0x20
                        && line[i] != 0x7f
                    {
                        i += 1;
                    }
                    operands.push(start..i);
                }
            }
        }
        let clock = match opcode {
            b"hmvc" => Some((&mut clocks.halfmove, "halfmove clock")),
            // 0 is read as 1, with a warning, as in a FEN's sixth field.
            b"fmvn" => Some((&mut clocks.fullmove, "fullmove number")),
            _ => None,
        };
        if let Some((slot, noun)) = clock {
            let value = match operands.as_slice() {
                // Read as the FEN's clock fields are: a number that is too
                // large, or written with leading zeros, is said so alike.
                [one] => Some(super::parse::clock_general(
                    line,
                    one.clone(),
                    noun,
                    problems,
                )?),
                _ => None,
            };
            match value {
                Some(0) if opcode == b"fmvn" => {
                    problems.push(
                        Problem::new(
                            Code::Noncanonical,
                            operands[0].clone(),
                            "fullmove number 0; the fullmove number starts at 1",
                        )
                        .with_help("write 1"),
                    );
                    *slot = Some(1);
                }
                Some(n) => *slot = Some(n),
                None => {
                    let span = match (operands.first(), operands.last()) {
                        (Some(a), Some(b)) => a.start..b.end,
                        _ => op_start..i,
                    };
                    problems.push(syntax(
                        span,
                        format!(
                            "'{}' expects one {noun} (a whole number)",
                            String::from_utf8_lossy(opcode)
                        ),
                    ));
                    return None;
                }
            }
        }
    }
}

fn shown(b: u8) -> String {
    if (0x20..0x7f).contains(&b) {
        char::from(b).to_string()
    } else {
        format!("\\x{b:02x}")
    }
}

/// One line of a FEN or EPD book, analysed.
#[derive(Clone, Debug)]
pub struct Record {
    /// The analysis of the record's position (four fields and the clocks from the operations).
    pub analysis: Analysis,
    /// Where the operations lie in the line (`None` for a FEN).
    pub operations: Option<Range<usize>>,
}

/// Analyses one FEN or EPD record (a line without its line end).
pub fn analyse_record(line: &[u8], hint: VariantHint) -> Record {
    let split = split(line);
    let Some(ops) = split.operations else {
        let mut analysis = analyse(line, hint);
        opcode_as_clock_help(line, &mut analysis.problems);
        return Record {
            analysis,
            operations: None,
        };
    };
    let position = split.position;
    let mut analysis = analyse(&line[position.clone()], hint);
    analysis.problems.retain(|p| p.code != Code::MissingClocks);
    // Spaces beyond the one before the operations end the four fields, and
    // the FEN reader calls them trailing; they stand between the fields and
    // the operations, a spacing fault as between two fields.
    if let Some(p) = analysis.problems.iter_mut().find(|p| {
        p.code == Code::Noncanonical && !p.span.is_empty() && p.span.end == position.len()
    }) && line[p.span.start..ops.start].iter().all(|&b| b == b' ')
    {
        p.span.end = ops.start;
        p.message = super::parse::REPEATED_SPACES.into();
    }
    let before = analysis.problems.len();
    let unreadable = analysis.position.is_none();
    let syntax_error = analysis.problems.iter().any(|p| p.code == Code::FenSyntax);
    let clocks = check_operations(line, ops.clone(), &mut analysis.problems);
    if syntax_error {
        // Reading stops at the first syntax error: the operations after a
        // position that does not parse are not judged (they may be the rest
        // of its broken fields).
        analysis.problems.truncate(before);
    }
    if unreadable {
        // A record whose position cannot be read is reported by that error
        // alone: a missing last ';' is no deviation of a record never read
        // (random text of four words and a fifth would otherwise get one).
        let mut i = before;
        while i < analysis.problems.len() {
            if analysis.problems[i].code == Code::Noncanonical {
                analysis.problems.remove(i);
            } else {
                i += 1;
            }
        }
    }
    match clocks {
        Some(clocks) => {
            if let Some(p) = &mut analysis.position {
                p.halfmove = clocks.halfmove.unwrap_or(p.halfmove);
                p.fullmove = clocks.fullmove.unwrap_or(p.fullmove);
            }
        }
        None => {
            analysis.class = Class::Malformed;
            analysis.chess960_position = None;
            analysis.position = None;
        }
    }
    Record {
        analysis,
        operations: Some(ops),
    }
}

impl Record {
    /// The record in `dialect`: a FEN is written whole; an EPD as its four
    /// fields, one space and its operations exactly as in `line`.
    ///
    /// # Panics
    ///
    /// When `line` is not the line the record was read from and is too
    /// short to hold its operations where that line held them (the record
    /// keeps their place, not a copy).
    pub fn write(
        &self,
        line: &[u8],
        dialect: Dialect,
        ep: Option<EpPolicy>,
    ) -> Option<Result<Vec<u8>, Problem>> {
        let position = self.analysis.position.as_ref()?;
        Some(position.write_read_from(line, dialect, ep).map(|fen| {
            let Some(ops) = &self.operations else {
                return fen.into_bytes();
            };
            let mut out = four_fields(&fen).as_bytes().to_vec();
            out.push(b' ');
            out.extend_from_slice(&line[ops.clone()]);
            out
        }))
    }
}

/// The round-trip oracle of the `epd` fuzz target (and of the tests): a valid
/// record written in each dialect (en passant as is, so nothing is dropped)
/// reads back as the same position with the same operations byte for byte, and
/// writing the read-back gives the same text again.
#[doc(hidden)]
pub fn check_round_trip(line: &[u8]) -> Result<(), String> {
    let first = analyse_record(line, VariantHint::StandardLike);
    let Some(position) = &first.analysis.position else {
        return Ok(());
    };
    let ops = first.operations.clone().map(|r| &line[r]);
    for dialect in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
        let Some(written) = first.write(line, dialect, Some(EpPolicy::AsIs)) else {
            return Err("a valid record has nothing to write".into());
        };
        let Ok(written) = written else {
            continue;
        };
        let shown = String::from_utf8_lossy(&written).into_owned();
        let back = analyse_record(&written, VariantHint::StandardLike);
        let Some(again) = &back.analysis.position else {
            return Err(format!("{shown:?} ({dialect:?}) does not read back"));
        };
        if again != position {
            return Err(format!(
                "{shown:?} ({dialect:?}) reads back as another position"
            ));
        }
        if back.operations.clone().map(|r| &written[r]) != ops {
            return Err(format!("{shown:?} ({dialect:?}) changed the operations"));
        }
        match back.write(&written, dialect, Some(EpPolicy::AsIs)) {
            Some(Ok(twice)) if twice == written => {}
            _ => {
                return Err(format!(
                    "{shown:?} ({dialect:?}) is written differently the second time"
                ));
            }
        }
    }
    Ok(())
}

/// The first four fields of a FEN written by pgnfen (single spaces).
fn four_fields(fen: &str) -> &str {
    let mut spaces = fen.match_indices(' ').map(|(i, _)| i);
    spaces.nth(3).map_or(fen, |i| &fen[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    fn rec(s: &str) -> Record {
        analyse_record(s.as_bytes(), VariantHint::StandardLike)
    }

    fn codes(s: &str) -> Vec<(Code, usize)> {
        rec(s)
            .analysis
            .problems
            .iter()
            .map(|p| (p.code, p.column()))
            .collect()
    }

    fn shredder(s: &str) -> Option<String> {
        let r = rec(s);
        r.write(s.as_bytes(), Dialect::Shredder, None)
            .and_then(Result::ok)
            .map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn four_fields_alone_are_a_fen_with_missing_clocks() {
        assert_eq!(codes(START), [(Code::MissingClocks, 53)]);
        assert!(rec(START).operations.is_none());
        let full = format!("{START} 0 1");
        assert!(rec(&full).operations.is_none() && codes(&full).is_empty());
    }

    #[test]
    fn operations_are_kept_byte_for_byte() {
        let line = format!("{START} bm e4; id \"BK.01\"; c0 \"with ; inside\";");
        let r = rec(&line);
        assert!(r.analysis.is_valid(), "{:?}", r.analysis.problems);
        assert!(r.analysis.problems.is_empty());
        assert_eq!(r.analysis.class, Class::Standard);
        assert_eq!(r.operations, Some(53..line.len()));
        assert_eq!(
            shredder(&line).unwrap(),
            line.replace("KQkq", "HAha"),
            "operations unchanged"
        );
    }

    #[test]
    fn a_control_byte_is_an_error_inside_a_string_as_outside_one() {
        for ops in [
            "c0 a\x01b;",
            "c0 \"a\x01b\";",
            "c0 \"a\\\x01b\";",
            "c0 \"a\x7fb\";",
        ] {
            let line = format!("{START} {ops}");
            let at = 1 + line.find(['\x01', '\x7f']).unwrap();
            assert_eq!(codes(&line), [(Code::FenSyntax, at)], "{ops:?}");
        }
        // A tab is a blank, in a string or not.
        assert!(codes(&format!("{START} c0 \"a\tb\";\tbm e4;")).is_empty());
    }

    #[test]
    fn clocks_from_hmvc_and_fmvn() {
        let line = format!("{START} hmvc 7; fmvn 23;");
        let p = rec(&line).analysis.position.unwrap();
        assert_eq!((p.halfmove, p.fullmove), (7, 23));
        // fmvn 0 is read as 1 with a warning, as a FEN's fullmove 0 is.
        let line = format!("{START} fmvn 0;");
        assert_eq!(codes(&line), [(Code::Noncanonical, 59)]);
        assert_eq!(rec(&line).analysis.position.unwrap().fullmove, 1);
        assert_eq!(codes(&format!("{START} fmvn -1;")), [(Code::FenSyntax, 59)]);
        assert_eq!(codes(&format!("{START} hmvc x;")), [(Code::FenSyntax, 59)]);
        assert_eq!(codes(&format!("{START} hmvc;")), [(Code::FenSyntax, 54)]);
        // Leading zeros and numbers too large, said as of a FEN's clocks.
        let line = format!("{START} hmvc 07;");
        assert_eq!(codes(&line), [(Code::Noncanonical, 59)]);
        assert_eq!(rec(&line).analysis.position.unwrap().halfmove, 7);
        let line = format!("{START} hmvc 99999999999;");
        assert_eq!(codes(&line), [(Code::FenSyntax, 59)]);
        let message = &rec(&line).analysis.problems[0].message;
        assert_eq!(message, "halfmove clock '99999999999' is too large");
    }

    #[test]
    fn a_tab_among_the_fields_is_its_fault_and_leaves_the_operations_whole() {
        // Before the operations: the tab is reported where it stands, and the
        // operations are what follows it (not the record's last words).
        let line = format!("{START}\tbm e4; id \"x\";");
        let r = rec(&line);
        assert_eq!(codes(&line), [(Code::FenSyntax, 53)]);
        assert_eq!(&line[r.operations.unwrap()], "bm e4; id \"x\";");
        // Between two fields of the position.
        let line = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq\t- bm e4;";
        let r = rec(line);
        assert_eq!(codes(line), [(Code::FenSyntax, 51)]);
        assert_eq!(&line[r.operations.unwrap()], "bm e4;");
    }

    #[test]
    fn operations_after_a_position_that_does_not_parse_are_not_judged() {
        // The first syntax error is the record's only one.
        assert_eq!(
            codes("2 6r-q/3rr45K b31p2 Kw4bbK5n861-R Q5q1KBb4wrk6p5-N24QKbpwNq1 3kw"),
            [(Code::FenSyntax, 1)]
        );
        assert_eq!(codes("8/8/8 w - - 1bm e4"), [(Code::FenSyntax, 6)]);
        // A position that parses keeps the operations' own errors.
        assert_eq!(codes(&format!("{START} 1bm e4;"))[0], (Code::FenSyntax, 54));
    }

    #[test]
    fn broken_operations_have_a_column() {
        use Code::*;
        // Unterminated string: the opening quote.
        assert_eq!(codes(&format!("{START} id \"BK.01;")), [(FenSyntax, 57)]);
        // An escaped quote does not end the string.
        assert!(codes(&format!("{START} id \"a\\\"b\";")).is_empty());
        // Bad opcodes.
        assert_eq!(codes(&format!("{START} 1bm e4;"))[0], (FenSyntax, 54));
        assert_eq!(codes(&format!("{START} \"x\";")), [(FenSyntax, 54)]);
        assert_eq!(codes(&format!("{START} b.m e4;")), [(FenSyntax, 55)]);
        // The position's faults keep their columns.
        assert_eq!(
            codes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - bm e4;"),
            [(FenSyntax, 45)]
        );
        for bad in [
            "id \"x",
            "1x;",
            "hmvc -1;",
            "bm e4; hmvc x",
            "bm e4; id \"x",
        ] {
            let r = rec(&format!("{START} {bad}"));
            assert!(!r.analysis.is_valid(), "{bad}");
            assert_eq!(r.analysis.class, Class::Malformed);
        }
    }

    #[test]
    fn a_last_operation_without_its_semicolon_is_a_warning() {
        // As python-chess's pv.epd writes it: every operation but the last ends in ';'.
        let line = format!("{START} bm e4; pv e4 e5 Nf3; c0 8");
        let r = rec(&line);
        assert!(r.analysis.is_valid(), "{:?}", r.analysis.problems);
        assert_eq!(r.analysis.class, Class::Standard);
        assert_eq!(codes(&line), [(Code::Noncanonical, line.len() + 1)]);
        assert!(r.analysis.problems[0].message.contains("'c0'"));
        // Converted with the operations byte for byte: no ';' is added.
        assert_eq!(shredder(&line).unwrap(), line.replace("KQkq", "HAha"));
        check_round_trip(line.as_bytes()).unwrap();
        // A lone operation, an opcode with no operand, trailing spaces.
        for ops in ["bm e4", "draw", "bm e4; c0 8  "] {
            let line = format!("{START} {ops}");
            let c = codes(&line);
            assert_eq!(c.len(), 1, "{ops}: {c:?}");
            assert_eq!(c[0].0, Code::Noncanonical, "{ops}");
            assert!(rec(&line).analysis.is_valid(), "{ops}");
        }
        // hmvc/fmvn still set the clocks when last and unterminated.
        let p = rec(&format!("{START} hmvc 7; fmvn 23"))
            .analysis
            .position
            .unwrap();
        assert_eq!((p.halfmove, p.fullmove), (7, 23));
        // An unterminated string is still an error: its end cannot be known.
        assert_eq!(codes(&format!("{START} c0 \"8")), [(Code::FenSyntax, 57)]);
    }

    #[test]
    fn a_lone_numeric_operation_without_its_semicolon_is_a_fen_with_advice() {
        // Read as a FEN whose halfmove clock is a word (as `- x 22` must be),
        // with the way to have it read as an EPD in the error's help.
        let line = format!("{START} dm 13");
        let r = rec(&line);
        assert!(r.operations.is_none() && !r.analysis.is_valid());
        assert_eq!(codes(&line), [(Code::FenSyntax, 54)]);
        let help = r.analysis.problems[0].help.as_deref().unwrap();
        assert!(
            help.starts_with("if 'dm 13' is an EPD operation, end it with ';'"),
            "{help}"
        );
        // With its ';' it is one.
        assert!(rec(&format!("{START} dm 13;")).analysis.is_valid());
        // A clock that is no word gets no such advice.
        for line in [format!("{START} +1 13"), format!("{START} 1x 13")] {
            let r = rec(&line);
            assert!(!r.analysis.is_valid(), "{line}");
            assert!(r.analysis.problems[0].help.is_none(), "{line}");
        }
    }

    #[test]
    fn empty_operations_are_warned_about() {
        for line in [format!("{START} ;"), format!("{START} bm e4;;")] {
            let r = rec(&line);
            assert!(r.analysis.is_valid());
            assert_eq!(codes(&line), [(Code::Noncanonical, line.len())]);
            assert_eq!(shredder(&line).unwrap(), line.replace("KQkq", "HAha"));
        }
    }

    #[test]
    fn extra_spaces_before_the_operations_are_a_spacing_warning() {
        let line = format!("{START}  bm e4;");
        let c = codes(&line);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].0, Code::Noncanonical);
        // Named as between two fields, over the whole run of spaces: they
        // trail the fields, but the operations follow.
        let record = analyse_record(line.as_bytes(), VariantHint::StandardLike);
        let p = &record.analysis.problems[0];
        assert_eq!(p.message, "fields are separated by more than one space");
        assert_eq!(p.span, START.len()..START.len() + 2);
        assert_eq!(
            shredder(&line).unwrap(),
            format!("{} bm e4;", START.replace("KQkq", "HAha"))
        );
    }

    #[test]
    fn round_trips_in_every_dialect() {
        for line in [
            format!("{START} bm e4; id \"a\\\"b\"; c0 \"with ; inside\";"),
            format!("{START}  ;  acd 3 ;"),
            "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - hmvc 4; fmvn 11;".into(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 c0 \"é\";".into(),
            "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w sKQkq - id \"x\";".into(),
            "4k3/8/8/8/8/8/8/4K3 w - - 3 9".into(),
        ] {
            assert!(rec(&line).analysis.is_valid(), "{line}");
            check_round_trip(line.as_bytes()).unwrap();
        }
    }

    #[test]
    fn never_panics_on_hostile_operations() {
        let mut inputs = vec![
            format!("{START} \"\\"),
            format!("{START} a\\"),
            format!("{START} id \"\\"),
            format!("{START} ;;;;"),
            format!("{START} x\u{1}y;"),
            format!("{START} c0 \"é ♞\";"),
        ];
        inputs.push(format!("{START} {}", "a ".repeat(50_000)));
        for line in inputs {
            let r = rec(&line);
            for d in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
                let _ = r.write(line.as_bytes(), d, None);
            }
        }
    }
}
