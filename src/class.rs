//! The classes of SPEC §3: what kind of game a start position makes.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
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
    pub const ALL: [Class; 6] = [
        Class::Standard,
        Class::Setup,
        Class::Chess960,
        Class::Crc,
        Class::Other,
        Class::Malformed,
    ];

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

    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == name)
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
