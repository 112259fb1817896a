//! Which columns an export has: the fixed ones, the tag columns (the default
//! list, a named list, or every tag name met), `other_tags`; and the Arrow
//! schema they make.

use crate::pgn::tags::same_bytes;
use crate::pipeline::Input;
use crate::pipeline::source::FileStamp;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

/// The tag columns of the default export: the Seven Tag Roster, then the
/// tags lichess and most databases add that people group and filter by.
pub const DEFAULT_TAGS: [&str; 15] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteElo",
    "BlackElo",
    "ECO",
    "Opening",
    "TimeControl",
    "Termination",
    "UTCDate",
    "UTCTime",
];

/// The columns every export has before the tag columns, in order.
pub const FIXED: [&str; 13] = [
    "file",
    "game",
    "offset",
    "length",
    "line",
    "class",
    "chess960_position",
    "speed",
    "time_base",
    "time_increment",
    "variant",
    "fen",
    "problems",
];

/// The last column: every tag of a game that has no column of its own.
pub const OTHER_TAGS: &str = "other_tags";

/// Tag columns whose values are integers (null when not a number).
pub const INTEGER_TAGS: [&str; 2] = ["WhiteElo", "BlackElo"];

/// Most tag columns an export makes: `--tags all` leaves the names met after
/// that in `other_tags` (a hostile file with a million tag names must not
/// make a million columns), and a longer `--tags` list is refused. Each
/// Parquet column costs the writer about 100 KiB (its zstd contexts, its
/// page in progress) however few values it holds: with 1,000 columns an
/// export peaked at 190 MiB, with 256 at 108 MiB, with 128 at 85 MiB (a
/// 97 MB file of 900,000 games with 1,001 tag names, 2026-12-05). Real
/// archives have a few dozen tag names.
pub const MAX_ALL_COLUMNS: usize = 128;

/// Most distinct tag names the first pass of `--tags all` collects (past a few
/// times the column limit no further name can get a column).
pub const SEEN_CAP: usize = 4 * MAX_ALL_COLUMNS;

/// Longest tag name `--tags all` makes a column of.
pub const MAX_COLUMN_NAME: usize = 256;

/// Which tag columns to write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TagColumns {
    /// Fifteen tags: the Seven Tag Roster (Event, Site, Date, Round, White,
    /// Black, Result), then WhiteElo, BlackElo, ECO, Opening, TimeControl,
    /// Termination, UTCDate, UTCTime.
    #[default]
    Default,
    /// These names, in this order.
    Named(Vec<String>),
    /// One column for every tag name met in the exported games, in order of
    /// first appearance (found by a first pass over the inputs).
    All,
}

impl TagColumns {
    /// `--tags` as given: `all` (in any case), or names separated by commas
    /// (checked by [`Columns::named`], which refuses `all` among them).
    pub fn parse(arg: &str) -> TagColumns {
        if arg.eq_ignore_ascii_case("all") {
            return TagColumns::All;
        }
        TagColumns::Named(arg.split(',').map(str::to_string).collect())
    }
}

/// Why the tag columns asked for cannot be made. Displayed as the command
/// line words it ([`Spelling::COMMAND_LINE`]); [`ColumnError::message`]
/// words it for another front end.
#[derive(Debug)]
#[non_exhaustive]
pub enum ColumnError {
    /// A name that no PGN tag can have.
    NotATagName(String),
    /// The same name twice.
    NamedTwice(String),
    /// Two names that differ only in case.
    DifferInCase(String, String),
    /// A name that is a fixed column's (`fen`, `class`, ...), ignoring case;
    /// `holds_the_tag` when that column already holds the tag (FEN, Variant).
    FixedColumn {
        /// The name asked for.
        name: String,
        /// The fixed column holds this very tag.
        holds_the_tag: bool,
    },
    /// More names than an export makes columns ([`Columns::MAX_ALL`]).
    TooMany(usize),
    /// `all` in a list of names: it stands alone.
    AllAmongNames(String),
    /// `TagColumns::All` reads the inputs twice, which standard input cannot be.
    AllFromStdin,
    /// `TagColumns::All` and an input that is not a regular file (a pipe).
    AllFromNonFile(std::path::PathBuf),
}

/// How a front end names the setting of the tag columns, for
/// [`ColumnError::message`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// The setting (`--tags`).
    pub option: &'static str,
    /// The setting asking for every tag (`--tags all`).
    pub all: &'static str,
    /// The setting naming columns (`--tags NAME,...`).
    pub names: &'static str,
}

impl Spelling {
    /// The command line's: `--tags`, `--tags all`, `--tags NAME,...`.
    pub const COMMAND_LINE: Spelling = Spelling {
        option: "--tags",
        all: "--tags all",
        names: "--tags NAME,...",
    };
}

impl ColumnError {
    /// The message, with the setting named as `spelling` names it.
    pub fn message(&self, spelling: &Spelling) -> String {
        let Spelling { option, all, names } = spelling;
        match self {
            ColumnError::NotATagName(name) => format!(
                "{option}: {name:?} is not a tag name (printable ASCII without blanks, quotes, brackets or commas)"
            ),
            ColumnError::NamedTwice(name) => format!("{option}: {name} is named twice"),
            ColumnError::DifferInCase(a, b) => format!(
                "{option}: {a} and {b} differ only in case (SQL engines such as DuckDB would not tell the columns apart)"
            ),
            ColumnError::FixedColumn {
                name,
                holds_the_tag,
            } => {
                let column = name.to_lowercase();
                let held = if *holds_the_tag {
                    format!(" (the {name} tag is in the column {column})")
                } else {
                    String::new()
                };
                format!(
                    "{option}: a tag column {name} would collide with the column {column}{held}"
                )
            }
            ColumnError::TooMany(count) => format!(
                "{option} names {count} tags, and an export makes at most {MAX_ALL_COLUMNS} tag columns (every other tag of a game is in other_tags)"
            ),
            ColumnError::AllAmongNames(word) => format!(
                "{option}: {word} makes a column of every tag name; it stands alone, not in a list of names"
            ),
            ColumnError::AllFromStdin => format!(
                "{all} reads the inputs twice (once for the tag names), so it cannot read standard input; name the columns with {names} or export a file"
            ),
            ColumnError::AllFromNonFile(path) => format!(
                "{all} reads the inputs twice (once for the tag names), so it cannot read {}, which is not a regular file; name the columns with {names}",
                path.display()
            ),
        }
    }
}

impl std::fmt::Display for ColumnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(&Spelling::COMMAND_LINE))
    }
}

impl std::error::Error for ColumnError {}

/// A tag name a column can be made of: not empty, printable ASCII without
/// blanks, quotes or brackets (a PGN tag name cannot hold those).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'"' | b'[' | b']' | b','))
}

/// The column a tag has of its own, apart from tag columns: `FEN` is in `fen`,
/// `Variant` in `variant` (those columns hold the first such tag's value).
pub fn fixed_tag_column(name: &[u8]) -> Option<usize> {
    match name {
        b"Variant" => Some(0),
        b"FEN" => Some(1),
        _ => None,
    }
}

/// Whether a tag column named `name` would collide with a fixed column or
/// another column. Names are compared ignoring ASCII case: DuckDB, Spark and
/// SQL in general do, so `Class` next to `class` would be ambiguous there.
fn collides(name: &str, taken: &[String]) -> bool {
    FIXED
        .iter()
        .copied()
        .chain([OTHER_TAGS])
        .chain(taken.iter().map(String::as_str))
        .any(|other| other.eq_ignore_ascii_case(name))
}

/// The resolved columns of an export.
#[derive(Clone, Debug)]
pub struct Columns {
    tags: Vec<String>,
    integer: Vec<bool>,
    /// For a few columns: each name's [`short_key`], compared in a row (faster
    /// than hashing for the 15 default columns); for many, a map.
    keys: Vec<u64>,
    lookup: NameMap,
    /// See [`Columns::past_limit`].
    past_limit: Option<(usize, bool)>,
    /// For `--tags all`: the input files as they were when their names were
    /// read (see [`Columns::check_unchanged`]).
    read_from: Vec<(Input, FileStamp)>,
}

/// Up to this many tag columns are looked up by [`short_key`].
const LINEAR: usize = 32;

/// A name's first 7 bytes and its length (up to 255) in one word: equal keys
/// mean equal names for names of up to 7 bytes; longer ones are compared whole.
///
/// Made from loads of the name only. Copying the name's bytes into a zeroed
/// word on the stack and reading that word back stalled: the read waits for
/// the smaller stores before it to reach the cache (a load cannot take its
/// bytes from several pending stores), about three quarters of this lookup's
/// samples in a profile of `export`.
#[inline]
fn short_key(name: &[u8]) -> u64 {
    let n = name.len();
    let low = match n {
        0 => 0,
        // Byte `i` of the name at bits `8 i` (the middle and last byte may be
        // the first again: the same byte in the same place).
        1..=3 => {
            u64::from(name[0])
                | u64::from(name[n / 2]) << (8 * (n / 2))
                | u64::from(name[n - 1]) << (8 * (n - 1))
        }
        // Two 4-byte loads that overlap when n < 8, each byte where it belongs.
        4..=7 => {
            let word = |at: usize| {
                u64::from(u32::from_le_bytes(
                    name[at..at + 4].try_into().expect("4 bytes"),
                ))
            };
            word(0) | word(n - 4) << (8 * (n - 4))
        }
        _ => u64::from_le_bytes(name[..8].try_into().expect("8 bytes")) & 0x00ff_ffff_ffff_ffff,
    };
    low | (n.min(255) as u64) << 56
}

/// A map of short byte strings with a cheap hash (tag names are a few bytes;
/// the map is looked up for every tag of every game on the worker threads).
pub(crate) type NameMap = HashMap<Vec<u8>, usize, BuildHasherDefault<NameHasher>>;

/// FNV-1a: fast on short keys, and the keys are tag names from the input,
/// which only the maker of a file controls (a collision costs time, not results).
#[derive(Default)]
pub(crate) struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Columns {
    /// The columns every export has, in order, before the tag columns.
    pub const FIXED: [&'static str; FIXED.len()] = FIXED;
    /// The most tag columns an export makes: `TagColumns::All` leaves the
    /// other names in `other_tags`, [`Columns::named`] refuses a longer list.
    pub const MAX_ALL: usize = MAX_ALL_COLUMNS;

    /// The columns for a named list (or the default list): at most
    /// [`Columns::MAX_ALL`] names, which must be valid tag names, distinct,
    /// other than `all`, and must not collide with a fixed column (ignoring
    /// case; `FEN` and `Variant` are the `fen` and `variant` columns already).
    pub fn named(names: &[String]) -> Result<Columns, ColumnError> {
        if names.len() > MAX_ALL_COLUMNS {
            return Err(ColumnError::TooMany(names.len()));
        }
        let mut tags: Vec<String> = Vec::new();
        for name in names {
            if name.eq_ignore_ascii_case("all") {
                return Err(ColumnError::AllAmongNames(name.clone()));
            }
            if !valid_name(name) {
                return Err(ColumnError::NotATagName(name.clone()));
            }
            if let Some(other) = tags.iter().find(|t| t.eq_ignore_ascii_case(name)) {
                return Err(if other == name {
                    ColumnError::NamedTwice(name.clone())
                } else {
                    ColumnError::DifferInCase(other.clone(), name.clone())
                });
            }
            if collides(name, &[]) {
                return Err(ColumnError::FixedColumn {
                    name: name.clone(),
                    holds_the_tag: fixed_tag_column(name.as_bytes()).is_some(),
                });
            }
            tags.push(name.clone());
        }
        Ok(Columns::from_names(tags))
    }

    /// The default columns.
    pub fn default_tags() -> Columns {
        Columns::from_names(DEFAULT_TAGS.iter().map(|s| s.to_string()).collect())
    }

    /// The columns of `--tags all`, from the tag names met in order of first
    /// appearance: names that are not valid UTF-8 column names, that collide
    /// with a fixed or earlier column (ignoring case), that are longer than
    /// 256 bytes, or past the first [`Columns::MAX_ALL`], get no
    /// column (their tags stay in `other_tags`).
    pub(crate) fn from_seen(seen: &[Vec<u8>]) -> Columns {
        let mut tags: Vec<String> = Vec::new();
        let mut past_limit = 0;
        for name in seen {
            let Ok(name) = std::str::from_utf8(name) else {
                continue;
            };
            if name.len() > MAX_COLUMN_NAME
                || !valid_name(name)
                || fixed_tag_column(name.as_bytes()).is_some()
                || collides(name, &tags)
            {
                continue;
            }
            if tags.len() >= MAX_ALL_COLUMNS {
                // Would have had a column: counted for the warning.
                past_limit += 1;
                continue;
            }
            tags.push(name.to_string());
        }
        let mut columns = Columns::from_names(tags);
        // The first pass stops collecting at this many names: more may exist.
        let at_least = seen.len() >= SEEN_CAP;
        columns.past_limit = (past_limit > 0).then_some((past_limit, at_least));
        columns
    }

    /// For `--tags all`: how many tag names got no column because of
    /// [`Columns::MAX_ALL`] (their tags are in `other_tags`), and whether that
    /// is only a lower bound (the first pass stopped counting names).
    pub fn past_limit(&self) -> Option<(usize, bool)> {
        self.past_limit
    }

    fn from_names(tags: Vec<String>) -> Columns {
        let integer = tags
            .iter()
            .map(|t| INTEGER_TAGS.contains(&t.as_str()))
            .collect();
        let lookup = tags
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_bytes().to_vec(), i))
            .collect();
        let keys = tags.iter().map(|t| short_key(t.as_bytes())).collect();
        Columns {
            tags,
            integer,
            keys,
            lookup,
            past_limit: None,
            read_from: Vec::new(),
        }
    }

    /// Remembers the input files as they are now, before their names are
    /// read for `--tags all`.
    pub(crate) fn stamp_inputs(inputs: &[Input]) -> Vec<(Input, FileStamp)> {
        inputs
            .iter()
            .filter_map(|input| match input {
                Input::File(path) => FileStamp::of(path).ok().map(|s| (input.clone(), s)),
                _ => None,
            })
            .collect()
    }

    /// Sets the stamps [`Columns::check_unchanged`] compares with.
    pub(crate) fn read_from(mut self, stamps: Vec<(Input, FileStamp)>) -> Columns {
        self.read_from = stamps;
        self
    }

    /// `--tags all` reads its inputs twice, once for the names and once for
    /// the rows: a file that changed in between (appended to, rewritten,
    /// replaced by a rename) would give columns of one version and rows of
    /// another. The error names the first such file.
    pub(crate) fn check_unchanged(&self) -> Result<(), crate::pipeline::InputError> {
        for (input, stamp) in &self.read_from {
            let Input::File(path) = input else { continue };
            if let Some(what) = stamp.change(path) {
                return Err(crate::pipeline::InputError {
                    file: input.display_name(),
                    error: std::io::Error::other(format!(
                        "the file changed between the reading of its tag names and of its rows ({what}); run again"
                    )),
                });
            }
        }
        Ok(())
    }

    /// The tag columns' names, in order.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Whether tag column `i` holds integers.
    pub fn is_integer(&self, i: usize) -> bool {
        self.integer[i]
    }

    /// The tag column of a tag name.
    #[inline]
    pub fn index(&self, name: &[u8]) -> Option<usize> {
        if self.keys.len() > LINEAR {
            return self.lookup.get(name).copied();
        }
        let key = short_key(name);
        self.keys
            .iter()
            .enumerate()
            .filter(|&(_, &k)| k == key)
            .map(|(i, _)| i)
            .find(|&i| name.len() <= 7 || self.tags[i].as_bytes() == name)
    }

    /// The tag column of a tag name, trying column `hint` first: headers
    /// mostly list their tags in the order of the columns (the Seven Tag
    /// Roster first; `--tags all` takes the order of first appearance), so
    /// that the column after the previous tag's is usually the one.
    #[inline]
    pub(crate) fn index_from(&self, name: &[u8], hint: usize) -> Option<usize> {
        if self
            .tags
            .get(hint)
            .is_some_and(|t| same_bytes(t.as_bytes(), name))
        {
            return Some(hint);
        }
        self.index(name)
    }

    /// Every column name, in order.
    pub fn names(&self) -> Vec<&str> {
        FIXED
            .iter()
            .copied()
            .chain(self.tags.iter().map(String::as_str))
            .chain([OTHER_TAGS])
            .collect()
    }

    /// The Arrow schema of the rows.
    pub fn schema(&self) -> SchemaRef {
        let utf8 = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
        let mut fields = vec![
            utf8("file", false),
            Field::new("game", DataType::Int64, false),
            Field::new("offset", DataType::Int64, false),
            Field::new("length", DataType::Int64, false),
            Field::new("line", DataType::Int64, false),
            utf8("class", false),
            Field::new("chess960_position", DataType::Int16, true),
            utf8("speed", true),
            Field::new("time_base", DataType::Float64, true),
            Field::new("time_increment", DataType::Float64, true),
            utf8("variant", true),
            utf8("fen", true),
            Field::new("problems", problems_type(), false),
        ];
        for (i, name) in self.tags.iter().enumerate() {
            fields.push(if self.integer[i] {
                Field::new(name, DataType::Int32, true)
            } else {
                utf8(name, true)
            });
        }
        fields.push(Field::new(OTHER_TAGS, other_tags_type(), false));
        Arc::new(Schema::new(fields))
    }
}

/// `problems`: a list of problem codes.
pub fn problems_type() -> DataType {
    DataType::List(Arc::new(problems_item()))
}

pub(crate) fn problems_item() -> Field {
    Field::new("item", DataType::Utf8, false)
}

/// `other_tags`: a map from tag name to value, in the layout Parquet's MAP
/// type has (`entries` of `key`, `value`).
pub fn other_tags_type() -> DataType {
    DataType::Map(Arc::new(other_tags_entries()), false)
}

pub(crate) fn other_tags_key() -> Field {
    Field::new("key", DataType::Utf8, false)
}

pub(crate) fn other_tags_value() -> Field {
    Field::new("value", DataType::Utf8, false)
}

pub(crate) fn other_tags_entries() -> Field {
    Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![other_tags_key(), other_tags_value()])),
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_changed_after_its_names_were_read_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn");
        std::fs::write(&path, "[Event \"a\"]\n\n*\n").unwrap();
        let inputs = [Input::File(path.clone()), Input::Stdin];
        let columns = Columns::default_tags().read_from(Columns::stamp_inputs(&inputs));
        assert!(columns.check_unchanged().is_ok());
        // Appended to.
        std::fs::write(&path, "[Event \"a\"]\n\n*\n\n[Event \"b\"]\n\n*\n").unwrap();
        let e = columns.check_unchanged().unwrap_err();
        assert_eq!(e.file, path.display().to_string());
        assert!(
            e.error
                .to_string()
                .contains("changed between the reading of its tag names")
        );
        // Replaced by another file of the same size.
        let columns = Columns::default_tags().read_from(Columns::stamp_inputs(&inputs));
        let other = dir.path().join("b.pgn");
        std::fs::write(&other, std::fs::read(&path).unwrap()).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(
            columns
                .check_unchanged()
                .unwrap_err()
                .error
                .to_string()
                .contains("replaced")
        );
        // Gone.
        std::fs::remove_file(&path).unwrap();
        assert!(columns.check_unchanged().is_err());
    }

    #[test]
    fn named_lists_are_checked() {
        let n = |v: &[&str]| Columns::named(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(n(&["White", "Black"]).unwrap().tags(), ["White", "Black"]);
        let err = |v: &[&str]| n(v).unwrap_err();
        assert!(
            matches!(err(&["White", "White"]), ColumnError::NamedTwice(name) if name == "White")
        );
        assert!(matches!(
            err(&["White", "white"]),
            ColumnError::DifferInCase(..)
        ));
        assert_eq!(
            err(&["White", "all"]).to_string(),
            "--tags: all makes a column of every tag name; it stands alone, not in a list of names"
        );
        // Another front end's words for the setting, in every message that
        // names it (Python's `tags=`).
        let python = Spelling {
            option: "tags",
            all: "tags=\"all\"",
            names: "tags=[NAME, ...]",
        };
        assert_eq!(
            err(&["White", "White"]).message(&python),
            "tags: White is named twice"
        );
        assert_eq!(
            ColumnError::AllFromStdin.message(&python),
            "tags=\"all\" reads the inputs twice (once for the tag names), so it cannot read \
             standard input; name the columns with tags=[NAME, ...] or export a file"
        );
        assert_eq!(
            ColumnError::AllFromStdin.to_string(),
            "--tags all reads the inputs twice (once for the tag names), so it cannot read \
             standard input; name the columns with --tags NAME,... or export a file"
        );
        assert!(matches!(TagColumns::parse("ALL"), TagColumns::All));
        let names: Vec<String> = (0..=MAX_ALL_COLUMNS).map(|i| format!("T{i}")).collect();
        assert_eq!(
            Columns::named(&names).unwrap_err().to_string(),
            "--tags names 129 tags, and an export makes at most 128 tag columns \
             (every other tag of a game is in other_tags)"
        );
        assert!(Columns::named(&names[1..]).is_ok());
        let fen = err(&["FEN"]);
        assert!(matches!(
            fen,
            ColumnError::FixedColumn {
                holds_the_tag: true,
                ..
            }
        ));
        assert!(
            fen.to_string()
                .ends_with("column fen (the FEN tag is in the column fen)"),
            "{fen}"
        );
        let class = err(&["Class"]);
        assert!(matches!(
            class,
            ColumnError::FixedColumn {
                holds_the_tag: false,
                ..
            }
        ));
        assert!(
            class.to_string().ends_with("with the column class"),
            "{class}"
        );
        assert!(matches!(err(&[""]), ColumnError::NotATagName(_)));
        assert!(matches!(err(&["a b"]), ColumnError::NotATagName(_)));
        let c = n(&["WhiteElo", "X"]).unwrap();
        assert!(c.is_integer(0) && !c.is_integer(1));
        assert_eq!(c.index(b"X"), Some(1));
        assert_eq!(c.index(b"x"), None);
        let c = Columns::default_tags();
        assert_eq!(c.index(b"TimeControl"), Some(11));
        assert_eq!(c.index(b"TimeControlX"), None);
        assert_eq!(c.index(b"TimeContrXl"), None);
        assert_eq!(c.index(b"UTCTime"), Some(14));
        assert_eq!(c.index(b"UTCTim"), None);
        let seen: Vec<Vec<u8>> = (0..100).map(|i| format!("Tag{i}").into_bytes()).collect();
        let c = Columns::from_seen(&seen);
        assert_eq!(c.index(b"Tag57"), Some(57));
        assert_eq!(c.index(b"Tag100"), None);
    }

    /// The hint only saves the search: any hint gives `index`'s answer.
    #[test]
    fn index_from_agrees_with_index_whatever_the_hint() {
        let seen: Vec<Vec<u8>> = (0..40).map(|i| format!("Tag{i}").into_bytes()).collect();
        for c in [Columns::default_tags(), Columns::from_seen(&seen)] {
            let mut names: Vec<Vec<u8>> = c.tags().iter().map(|t| t.clone().into_bytes()).collect();
            names.extend(
                [&b"TimeControlX"[..], b"White ", b"", b"Tag400", b"whiteelo"].map(<[u8]>::to_vec),
            );
            for name in &names {
                for hint in 0..c.tags().len() + 2 {
                    assert_eq!(
                        c.index_from(name, hint),
                        c.index(name),
                        "{:?} from {hint}",
                        String::from_utf8_lossy(name)
                    );
                }
            }
        }
    }

    /// The key as its definition says: the first (up to) 7 bytes in a
    /// zeroed word, the length (up to 255) in its last byte.
    fn plain_short_key(name: &[u8]) -> u64 {
        let mut word = [0u8; 8];
        let n = name.len().min(7);
        word[..n].copy_from_slice(&name[..n]);
        word[7] = name.len().min(255) as u8;
        u64::from_le_bytes(word)
    }

    proptest::proptest! {
        /// The key made by loads is the plain one, for every length (up to
        /// past 255, where the length saturates) and any bytes.
        #[test]
        fn short_key_is_the_plain_key(name in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            for n in 0..name.len().min(12) {
                proptest::prop_assert_eq!(short_key(&name[..n]), plain_short_key(&name[..n]));
            }
            proptest::prop_assert_eq!(short_key(&name), plain_short_key(&name));
        }
    }

    #[test]
    fn all_skips_collisions_and_bad_names() {
        let seen: Vec<Vec<u8>> = [&b"Event"[..], b"FEN", b"event", b"Line", b"\xff", b"Site"]
            .iter()
            .map(|s| s.to_vec())
            .collect();
        assert_eq!(Columns::from_seen(&seen).tags(), ["Event", "Site"]);
        let many: Vec<Vec<u8>> = (0..2000).map(|i| format!("T{i}").into_bytes()).collect();
        assert_eq!(Columns::from_seen(&many).tags().len(), MAX_ALL_COLUMNS);
    }

    #[test]
    fn schema_has_every_column() {
        let c = Columns::default_tags();
        let schema = c.schema();
        assert_eq!(schema.fields().len(), FIXED.len() + DEFAULT_TAGS.len() + 1);
        // The schema's fields are written out apart from FIXED: the same
        // names in the same order, or a batch's arrays land in the wrong
        // columns (the batch builder follows FIXED's order).
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, c.names());
        assert_eq!(
            schema.field_with_name("WhiteElo").unwrap().data_type(),
            &DataType::Int32
        );
        assert_eq!(c.names().last(), Some(&OTHER_TAGS));
        assert_eq!(
            c.names()[6..10],
            ["chess960_position", "speed", "time_base", "time_increment"]
        );
        assert_eq!(
            schema.field_with_name("time_base").unwrap().data_type(),
            &DataType::Float64
        );
    }
}
