//! The classes of SPEC §3: what kind of game a start position makes.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Class {
    Standard,
    Setup,
    Chess960,
    Crc,
    Other,
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
