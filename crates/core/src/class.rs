//! The classes (docs/classes.md): what kind of game a start position makes.
//!
//! ```
//! use pgnfen_core::Class;
//!
//! let class: Class = "chess960".parse()?;
//! assert_eq!(class, Class::Chess960);
//! assert_eq!(class.as_str(), "chess960");
//! assert_eq!(Class::ALL.len(), 6);
//! # Ok::<(), pgnfen_core::ParseNameError>(())
//! ```

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// The kind of game a header describes (see docs/classes.md).
pub enum Class {
    /// Orthodox chess from the initial position (no FEN tag, or the initial FEN)
    Standard,
    /// Orthodox 8x8 chess from another legal position, castling with king on e and rooks on a/h
    Setup,
    /// 8x8 Chess960: a Chess960 Variant tag, Chess960 castling or a Chess960 start array
    Chess960,
    /// 10x8 Capablanca family: Capablanca, Capablanca Random, Gothic, Embassy
    Crc,
    /// Another variant named by the Variant tag (Crazyhouse, Atomic, ...); position not judged
    Other,
    /// Headers with an error-severity problem (see `pgnfen check`)
    Malformed,
}

impl Class {
    /// Every class, in the order reports list them.
    pub const ALL: [Class; 6] = [
        Class::Standard,
        Class::Setup,
        Class::Chess960,
        Class::Crc,
        Class::Other,
        Class::Malformed,
    ];

    /// The class name as the commands write it: `standard`, `setup`, `chess960`, `crc`, `other`, `malformed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Standard => "standard",
            Class::Setup => "setup",
            Class::Chess960 => "chess960",
            Class::Crc => "crc",
            Class::Other => "other",
            Class::Malformed => "malformed",
        }
    }

    /// One line on what the class holds (the command line's `--help` shows it).
    pub fn description(self) -> &'static str {
        match self {
            Class::Standard => {
                "Orthodox chess from the initial position (no FEN tag, or the initial FEN)"
            }
            Class::Setup => {
                "Orthodox 8x8 chess from another legal position, castling with king on e and rooks on a/h"
            }
            Class::Chess960 => {
                "8x8 Chess960: a Chess960 Variant tag, Chess960 castling or a Chess960 start array"
            }
            Class::Crc => "10x8 Capablanca family: Capablanca, Capablanca Random, Gothic, Embassy",
            Class::Other => {
                "Another variant named by the Variant tag (Crazyhouse, Atomic, ...); position not judged"
            }
            Class::Malformed => "Headers with an error-severity problem (see `pgnfen check`)",
        }
    }

    /// The class of a name written by [`Class::as_str`].
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The position of the class in [`Class::ALL`], for per-class arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::str::FromStr for Class {
    type Err = crate::ParseNameError;

    /// A name written by [`Class::as_str`], in any case (`"Chess960"`).
    ///
    /// ```
    /// use pgnfen_core::Class;
    /// assert_eq!("Chess960".parse::<Class>(), Ok(Class::Chess960));
    /// let e = "960".parse::<Class>().unwrap_err();
    /// assert_eq!(e.to_string(), r#"unknown class "960"; expected standard, setup, chess960, crc, other or malformed"#);
    /// ```
    fn from_str(s: &str) -> Result<Class, crate::ParseNameError> {
        crate::ParseNameError::find(
            &Class::ALL,
            Class::as_str,
            "class",
            s,
            "standard, setup, chess960, crc, other or malformed",
        )
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
