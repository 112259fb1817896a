//! The error of reading one of pgnfen's names (a class, a speed, a dialect,
//! an en passant policy, an encoding, a `--moves` mode) from text.

use std::fmt;

/// A name that is none of the names of its kind: `"blitzz".parse::<Speed>()`.
///
/// ```
/// use pgnfen_core::Class;
///
/// let e = "chess961".parse::<Class>().unwrap_err();
/// assert_eq!(e.kind(), "class");
/// assert!(e.to_string().starts_with(r#"unknown class "chess961"; expected standard"#));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseNameError {
    kind: &'static str,
    given: String,
    expected: Option<&'static str>,
}

impl ParseNameError {
    /// The error for `given`, which is no name of `kind` (`"class"`); the
    /// message lists `expected` when given (`"auto, utf-8 or latin-1"`).
    pub fn new(kind: &'static str, given: &str, expected: Option<&'static str>) -> Self {
        ParseNameError {
            kind,
            given: given.to_string(),
            expected,
        }
    }

    /// The item of `all` whose name (`name`) is `given`, ignoring ASCII
    /// case; else the error for `given`, listing `expected`. The `FromStr`
    /// of the crates' closed sets of names ([`crate::Class`], ...) reads
    /// names this way.
    pub fn find<T: Copy>(
        all: &[T],
        name: impl Fn(T) -> &'static str,
        kind: &'static str,
        given: &str,
        expected: &'static str,
    ) -> Result<T, ParseNameError> {
        all.iter()
            .copied()
            .find(|&item| name(item).eq_ignore_ascii_case(given))
            .ok_or_else(|| ParseNameError::new(kind, given, Some(expected)))
    }

    /// What kind of name was expected (`"class"`, `"speed"`, ...).
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The text given.
    pub fn given(&self) -> &str {
        &self.given
    }
}

impl fmt::Display for ParseNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {:?}", self.kind, self.given)?;
        if let Some(expected) = self.expected {
            write!(f, "; expected {expected}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseNameError {}
