//! Untrusted text made safe to show: PGN values, file names and zip member
//! names end up in terminals, CI logs and spreadsheets, where some bytes act
//! instead of being read (an ESC starts a terminal sequence, a line end followed
//! by `::` a GitHub workflow command, a leading `=` a spreadsheet formula).
//!
//! One rule for every output: each control character (Unicode `Cc`: C0, DEL and
//! C1) and each bidirectional embedding, override or isolate (U+202A–U+202E,
//! U+2066–U+2069) is written as Rust's `char::escape_debug` writes it
//! (`\u{1b}`, `\n`, `\t`, `\r`, `\0`, `\u{202e}`); every other character is
//! kept as it is, backslashes included. The text is the same in every format
//! and whether or not the output is a terminal.
//!
//! ```
//! use pgnfen_core::escape::controls;
//!
//! // A tag value that would start a terminal sequence is shown, not obeyed.
//! assert_eq!(controls("Carlsen\u{1b}[2J"), "Carlsen\\u{1b}[2J");
//! assert_eq!(controls("plain text"), "plain text");
//! ```

use std::borrow::Cow;

/// `s` with every control character escaped (`\u{1b}` style), and every
/// bidirectional embedding, override or isolate ([`is_bidi_control`]);
/// borrowed when there is none (the common case costs one scan).
pub fn controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_escaped(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether [`controls`] shows `c` escaped: a control character or a
/// bidirectional control.
pub fn is_escaped(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// The characters that reorder the text around them when shown (U+202A to
/// U+202E, the embeddings and overrides, and U+2066 to U+2069, the
/// isolates): a name holding U+202E shows `evil.pgn` where the file is
/// `nfp.live`, as in the "Trojan Source" attacks on code, so they are shown
/// escaped as control characters are. The marks U+200E and U+200F, which
/// right-to-left text uses, reorder nothing around them and stay.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether a spreadsheet would read a cell starting with this character as a
/// formula (OWASP's list: `=`, `+`, `-`, `@`, tab, carriage return).
fn formula_start(c: char) -> bool {
    matches!(c, '=' | '+' | '-' | '@' | '\t' | '\r')
}

/// A text cell of a CSV output: control characters escaped (as [`controls`])
/// and, when it would start a formula, a single quote put in front (as OWASP
/// recommends: spreadsheets show the cell as text). `raw` (`--csv-raw`): the
/// text unchanged.
pub fn csv_cell(s: &str, raw: bool) -> Cow<'_, str> {
    if raw {
        return Cow::Borrowed(s);
    }
    let shown = controls(s);
    if shown.starts_with(formula_start) {
        Cow::Owned(format!("'{shown}"))
    } else {
        shown
    }
}

/// A file name as reports show it (after [`controls`]): a name that begins
/// with `:`, after any blanks, gets `./` in front, the same file, so that no
/// line of pgnfen's (`FILE:LINE:COL: error[...]`, a CSV row) begins with
/// `::`, which a GitHub runner obeys as a workflow command (it skips the
/// blanks at the start of a line first).
pub fn line_start_name(name: &str) -> Cow<'_, str> {
    if name.trim_start().starts_with(':') {
        Cow::Owned(format!("./{name}"))
    } else {
        Cow::Borrowed(name)
    }
}

/// A name as reports show it, with every `##[` written `#\u{23}[` (`\u{23}`
/// is `#`, in the notation of [`controls`]): a GitHub runner also obeys the
/// older form of its workflow commands, `##[error]...`, found anywhere in a
/// line of either output stream, so a name holding it could act through any
/// line that quotes the name (`pgnfen: warning: ##[error]x.pgn: ...`).
pub fn legacy_command_free(name: &str) -> Cow<'_, str> {
    if name.contains("##[") {
        Cow::Owned(name.replace("##[", "#\\u{23}["))
    } else {
        Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reordering_characters_are_escaped_and_marks_kept() {
        assert_eq!(controls("uni\u{202e}nfp.pgn"), "uni\\u{202e}nfp.pgn");
        assert_eq!(controls("a\u{2066}b\u{2069}"), "a\\u{2066}b\\u{2069}");
        assert_eq!(controls("a\u{202a}"), "a\\u{202a}");
        // Right-to-left text and its marks are not touched.
        let hebrew = "\u{5e9}\u{5dc}\u{5d5}\u{5dd}\u{200f} 1-0";
        assert!(matches!(controls(hebrew), Cow::Borrowed(_)));
        assert!(!is_bidi_control('\u{2029}') && !is_bidi_control('\u{2065}'));
    }

    #[test]
    fn a_name_holds_no_legacy_workflow_command() {
        assert_eq!(
            legacy_command_free("##[error]x.pgn"),
            "#\\u{23}[error]x.pgn"
        );
        assert_eq!(legacy_command_free("a###[b"), "a##\\u{23}[b");
        assert!(!legacy_command_free("###[##[x").contains("##["));
        assert!(matches!(
            legacy_command_free("#1 [x].pgn"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_name_never_starts_a_line_with_a_colon() {
        assert_eq!(
            line_start_name("::error title=x::a.pgn"),
            "./::error title=x::a.pgn"
        );
        assert_eq!(line_start_name(":a.pgn"), "./:a.pgn");
        assert_eq!(
            line_start_name(" \u{a0}::error::a.pgn"),
            "./ \u{a0}::error::a.pgn"
        );
        assert!(matches!(
            line_start_name("games/a::b.pgn"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(line_start_name("<stdin>"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_characters_are_escaped_and_nothing_else() {
        assert!(matches!(controls("Café \\ \"x\""), Cow::Borrowed(_)));
        assert_eq!(
            controls("2\u{1b}]0;T\u{7}\u{1b}[31mRED"),
            "2\\u{1b}]0;T\\u{7}\\u{1b}[31mRED"
        );
        assert_eq!(
            controls("a\nb\rc\td\0e\u{7f}\u{9b}"),
            "a\\nb\\rc\\td\\0e\\u{7f}\\u{9b}"
        );
        // Idempotent: the escaped form holds no control character.
        let once = controls("x\u{0}\n").into_owned();
        assert_eq!(controls(&once), once);
    }

    #[test]
    fn formula_cells_are_neutralised() {
        for cell in ["=1+1", "+1", "-2", "@SUM(A1)", "=HYPERLINK(\"x\")"] {
            assert_eq!(csv_cell(cell, false), format!("'{cell}"));
            assert_eq!(csv_cell(cell, true), cell);
        }
        assert_eq!(csv_cell("1-0", false), "1-0");
        assert_eq!(csv_cell("", false), "");
        assert_eq!(csv_cell("a=b", false), "a=b");
        // A leading tab or CR is escaped, which already disarms it.
        assert_eq!(csv_cell("\t=1", false), "\\t=1");
        assert_eq!(csv_cell("\r=1", false), "\\r=1");
        assert_eq!(csv_cell("x\0y\u{1b}", false), "x\\0y\\u{1b}");
        assert_eq!(csv_cell("\t=1", true), "\t=1");
    }
}
