//! `pgnfen explain CODE`: the reference page of a problem code, as
//! `rustc --explain` prints an error code's. The text is docs/codes.md itself,
//! compiled in, so the terminal and the documentation can never disagree.

use std::io::{self, Write};

use crate::commands::{Error, Outcome};

/// The documentation of every problem code: one `## \`code\`` section each.
pub const CODES_MD: &str = include_str!("../../docs/codes.md");

/// The codes documented in docs/codes.md, in the order of the page.
pub fn documented_codes() -> Vec<&'static str> {
    sections().map(|(code, _)| code).collect()
}

/// Each `## \`code\`` section of the page: the code and the section's text,
/// from its heading up to (not including) the next `## ` heading.
fn sections() -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in CODES_MD.split_inclusive('\n') {
        if line.starts_with("## ") {
            starts.push(offset);
        }
        offset += line.len();
    }
    let ends: Vec<usize> = starts
        .iter()
        .skip(1)
        .copied()
        .chain([CODES_MD.len()])
        .collect();
    starts.into_iter().zip(ends).filter_map(|(start, end)| {
        let text = &CODES_MD[start..end];
        let heading = text.lines().next()?;
        let code = heading.strip_prefix("## `")?.strip_suffix('`')?;
        Some((code, text.trim_end_matches('\n')))
    })
}

/// The section of `code`: exactly its text in docs/codes.md.
pub fn explanation(code: &str) -> Option<&'static str> {
    // Written as in reports (`error[fen-syntax]`) or bare; case does not matter.
    let wanted = code
        .trim()
        .trim_start_matches("error[")
        .trim_start_matches("warning[");
    let wanted = wanted.trim_end_matches(']').to_ascii_lowercase();
    sections().find(|(c, _)| *c == wanted).map(|(_, text)| text)
}

/// The documented code nearest to a misspelled one (a small edit distance).
fn nearest(code: &str) -> Option<&'static str> {
    let code = code.to_ascii_lowercase();
    documented_codes()
        .into_iter()
        .map(|c| (strsim::levenshtein(&code, c), c))
        .filter(|&(d, c)| d <= (c.len() / 3).max(2))
        .min()
        .map(|(_, c)| c)
}

pub fn run(code: &str) -> Result<Outcome, Error> {
    let Some(text) = explanation(code) else {
        let hint = match nearest(code) {
            Some(near) => format!("did you mean {near}?"),
            None => format!("the codes are {}", documented_codes().join(", ")),
        };
        return Err(Error::usage(format!(
            "{code:?} is not a problem code; {hint}"
        )));
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(|e| Error::writing("<stdout>", e))?;
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgnfen::Code;

    #[test]
    fn every_code_of_the_library_is_documented() {
        let documented = documented_codes();
        for code in Code::ALL {
            assert!(documented.contains(&code.as_str()), "{code} has no section");
        }
        assert!(documented.contains(&"illegal-move"));
    }

    #[test]
    fn a_section_runs_to_the_next_heading() {
        let text = explanation("missing-clocks").unwrap();
        assert!(text.starts_with("## `missing-clocks`\n"));
        assert!(!text.contains("## `noncanonical`"));
        assert!(text.contains("append ' 0 1'"));
        assert_eq!(explanation("error[MISSING-CLOCKS]"), Some(text));
    }

    #[test]
    fn misspelled_codes_get_a_suggestion() {
        assert_eq!(explanation("fen-sintax"), None);
        assert_eq!(nearest("fen-sintax"), Some("fen-syntax"));
        assert_eq!(nearest("castling"), None);
        assert_eq!(nearest("zzzzzzzzzzzzzzzzzzzzzzzz"), None);
    }
}
