//! The verdict on one game's start-position tags: the classes (docs/classes.md) for whole games and the
//! tag rules of the problem codes (docs/codes.md: SetUp, FEN and Variant consistency).
//!
//! Pure and allocation-free for the common game without FEN or Variant tag
//! (FEN analyses go through a small per-thread cache, which changes no result).
//! [`tally`] applies the same rules (one implementation, reporting to
//! either) for callers that only count: it writes no message and copies no
//! analysis.
//!
//! ```
//! use pgnfen_core::classify::{TagInput, classify};
//! use pgnfen_core::pgn::scan::TagName;
//! use pgnfen_core::{Class, Code};
//!
//! // A FEN tag without SetUp: read, classified, and the missing SetUp reported.
//! let tags = [TagInput {
//!     name: TagName::Fen,
//!     raw: b"8/8/8/8/8/8/8/K6k w - - 0 1",
//! }];
//! let verdict = classify(&tags);
//! assert_eq!(verdict.class, Class::Setup);
//! assert!(verdict.problems.iter().any(|p| p.problem.code == Code::FenWithoutSetup));
//! ```

use std::cell::RefCell;

use crate::class::Class;
use crate::fen::{self, Analysis, BoardSize, VariantHint};
use crate::memo::Memo;
use crate::pgn::scan::TagName;
use crate::pgn::tags::decode_value;
use crate::problem::{Code, CodeList, Problem, ProblemCounts, Severity};

/// A SetUp, FEN or Variant tag of a game, with its raw value (escapes not decoded).
#[derive(Clone, Copy, Debug)]
pub struct TagInput<'a> {
    /// Which of the three tags it is.
    pub name: TagName,
    /// The raw value between the quotes (escapes not decoded).
    pub raw: &'a [u8],
}

/// What the Variant tag names .
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantFamily {
    /// Chess, or a variant played from the standard array (no Variant tag, or one naming chess).
    StandardLike,
    /// Chess960 (Fischer Random): X-FEN or Shredder-FEN castling.
    Chess960,
    /// A Capablanca-family 10×8 variant (Capablanca Random Chess and kin).
    Capablanca,
    /// Any other variant: its FEN is not read.
    Other,
}

impl VariantFamily {
    /// Classifies a Variant value, compared after lower-casing and removing
    /// spaces, hyphens, underscores and tabs.
    pub fn of(value: &[u8]) -> VariantFamily {
        // The spellings of the servers and databases that write most games
        // (lichess, chess.com, ChessBase), answered before the normalising
        // loop, which costs more than the compare (a call per Variant tag).
        match value {
            b"Standard" | b"From Position" => VariantFamily::StandardLike,
            b"Chess960" | b"chess960" => VariantFamily::Chess960,
            _ => Self::normalised(value),
        }
    }

    /// The rule itself: lower-cased, without spaces, hyphens, underscores
    /// and tabs, then compared.
    fn normalised(value: &[u8]) -> VariantFamily {
        let mut key = [0u8; 32];
        let mut len = 0;
        for &b in value {
            if matches!(b, b' ' | b'-' | b'_' | b'\t') {
                continue;
            }
            if len == key.len() {
                return VariantFamily::Other;
            }
            key[len] = b.to_ascii_lowercase();
            len += 1;
        }
        match &key[..len] {
            b"" | b"standard" | b"chess" | b"normal" | b"classical" | b"orthodox"
            | b"fromposition" => VariantFamily::StandardLike,
            b"chess960"
            | b"960"
            | b"fischerandom"
            | b"fischerrandom"
            | b"fischerrandomchess"
            | b"frc" => VariantFamily::Chess960,
            b"capablanca"
            | b"capablancachess"
            | b"capablancarandom"
            | b"capablancarandomchess"
            | b"caparandom"
            | b"crc"
            | b"gothic"
            | b"gothicchess"
            | b"embassy"
            | b"embassychess" => VariantFamily::Capablanca,
            _ => VariantFamily::Other,
        }
    }

    /// How the FEN model should judge a position under this Variant tag.
    pub fn hint(self) -> VariantHint {
        match self {
            VariantFamily::Chess960 => VariantHint::Chess960,
            VariantFamily::Capablanca => VariantHint::Capablanca,
            VariantFamily::StandardLike | VariantFamily::Other => VariantHint::StandardLike,
        }
    }
}

/// A problem and the index (into the game's tags) of the tag it concerns. For
/// FEN problems the span lies inside the decoded FEN value; for the others it
/// covers the tag's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagProblem {
    /// The index of the tag at fault in the header's tag list.
    pub tag: usize,
    /// The problem, with its span in the decoded value.
    pub problem: Problem,
}

/// The verdict on a game.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The class of the game.
    pub class: Class,
    /// The Scharnagl number, for games of class `chess960` that start from a start array.
    pub chess960_position: Option<u16>,
    /// Every problem of the header's SetUp/FEN/Variant tags.
    pub problems: Vec<TagProblem>,
    /// The FEN tag that gives the start (index into the tags) and its analysis.
    pub fen: Option<(usize, Analysis)>,
    /// `duplicate-tag` problems of tags that were not kept (a header with more
    /// SetUp/FEN/Variant tags than pgnfen keeps, see `pipeline::game`): counted,
    /// not in `problems`. Always 0 from [`classify`].
    pub unlisted_duplicates: u64,
}

impl Verdict {
    /// Whether a problem of error severity was found.
    pub fn has_error(&self) -> bool {
        self.unlisted_duplicates > 0 || self.problems.iter().any(|p| p.problem.is_error())
    }
}

/// The class and problems of a game's SetUp, FEN and Variant tags.
pub fn classify(tags: &[TagInput<'_>]) -> Verdict {
    let mut report = Kept::default();
    let (class, chess960_position) = classify_into(tags, &mut report);
    Verdict {
        class,
        chess960_position,
        problems: report.problems,
        fen: report.fen,
        unlisted_duplicates: 0,
    }
}

/// What [`tally`] tells of a game's SetUp, FEN and Variant tags: what
/// [`classify`] tells, without the problems' text or the FEN's analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The class of the game.
    pub class: Class,
    /// The Scharnagl number, for games of class `chess960` that start from a start array.
    pub chess960_position: Option<u16>,
    /// How many problems of each code, at most `u16::MAX` each.
    pub problems: ProblemCounts,
    /// The codes found, each once, in the order [`classify`] first reports
    /// them (as `check` lists a game's problems).
    pub codes: CodeList,
}

/// [`classify`] for a caller that only counts: the class, the Chess960
/// number and the number of problems of each code, the same as
/// [`classify`]'s, with no message written and the FEN's analysis not
/// copied (it is read where the per-thread cache keeps it). `stats`,
/// `filter` and `export` take this.
///
/// ```
/// use pgnfen_core::classify::{TagInput, classify, tally};
/// use pgnfen_core::pgn::scan::TagName;
/// use pgnfen_core::{Class, Code};
///
/// let tags = [TagInput { name: TagName::Fen, raw: b"8/8/8/8/8/8/8/K6k w - - 0 1" }];
/// let counted = tally(&tags);
/// assert_eq!(counted.class, classify(&tags).class);
/// assert_eq!(counted.problems[Code::FenWithoutSetup], 1);
/// ```
pub fn tally(tags: &[TagInput<'_>]) -> Tally {
    let mut report = Counted {
        problems: ProblemCounts::default(),
        codes: CodeList::default(),
    };
    let (class, chess960_position) = classify_into(tags, &mut report);
    Tally {
        class,
        chess960_position,
        problems: report.problems,
        codes: report.codes,
    }
}

/// Where [`classify_into`] puts what it finds, in order.
trait Report {
    /// A problem of `code` on the tag at index `tag`; `problem` writes it (a
    /// report that only counts never calls it, so no message is formatted).
    fn problem(&mut self, tag: usize, code: Code, problem: impl FnOnce() -> Problem);
    /// The analysis of the FEN tag at index `tag` that gives the start.
    fn analysis(&mut self, tag: usize, analysis: &Analysis);
}

/// The report of [`classify`]: every problem and the analysis.
#[derive(Default)]
struct Kept {
    problems: Vec<TagProblem>,
    fen: Option<(usize, Analysis)>,
}

impl Report for Kept {
    fn problem(&mut self, tag: usize, _: Code, problem: impl FnOnce() -> Problem) {
        self.problems.push(TagProblem {
            tag,
            problem: problem(),
        });
    }

    fn analysis(&mut self, tag: usize, analysis: &Analysis) {
        self.fen = Some((tag, analysis.clone()));
    }
}

/// The report of [`tally`]: counts by code, and the order of the codes.
struct Counted {
    problems: ProblemCounts,
    codes: CodeList,
}

impl Report for Counted {
    fn problem(&mut self, _: usize, code: Code, _: impl FnOnce() -> Problem) {
        if self.problems[code] == 0 {
            self.codes.add(code);
        }
        self.problems.add(code);
    }

    fn analysis(&mut self, _: usize, _: &Analysis) {}
}

/// The rules of [`classify`], reporting each problem to `report` as it is
/// found; returns the class and the Chess960 number.
fn classify_into(tags: &[TagInput<'_>], report: &mut impl Report) -> (Class, Option<u16>) {
    if tags.is_empty() {
        return (Class::Standard, None);
    }
    let mut report = Judged {
        report,
        error: false,
    };
    let first = |name: TagName| tags.iter().position(|t| t.name == name);
    let setup = first(TagName::SetUp);
    let fen_tag = first(TagName::Fen);
    let variant = first(TagName::Variant);

    report_duplicates(tags, &mut report);

    let family = variant.map_or(VariantFamily::StandardLike, |i| {
        VariantFamily::of(&decode_value(tags[i].raw))
    });
    let needs_start = matches!(family, VariantFamily::Chess960 | VariantFamily::Capablanca);

    if let Some(i) = setup {
        match tags[i].raw {
            b"1" if fen_tag.is_none() => report.problem(i, Code::SetupWithoutFen, || {
                Problem::new(Code::SetupWithoutFen, 0..1, "SetUp \"1\" says the game starts from a set-up position, but there is no FEN tag")
                    .with_help("add the start position as a [FEN \"...\"] tag, or remove [SetUp \"1\"]")
            }),
            b"0" if fen_tag.is_some() => report.problem(i, Code::SetupValue, || {
                Problem::new(Code::SetupValue, 0..1, "SetUp \"0\" says the game starts from the initial position, but a FEN tag is present")
                    .with_help("write [SetUp \"1\"] when a FEN tag gives the start position")
            }),
            b"0" | b"1" => {}
            other => report.problem(i, Code::SetupValue, || {
                Problem::new(
                    Code::SetupValue,
                    0..decode_value(other).len(),
                    format!("SetUp value \"{}\" is not allowed; expected \"0\" or \"1\"", shown_value(other)),
                )
                .with_help(if fen_tag.is_some() { "write [SetUp \"1\"]" } else { "write [SetUp \"0\"] or remove the tag" })
            }),
        }
    } else if let Some(i) = fen_tag {
        report.problem(i, Code::FenWithoutSetup, || {
            Problem::new(
                Code::FenWithoutSetup,
                0..0,
                "a FEN tag gives the start position, but there is no [SetUp \"1\"] tag",
            )
            .with_help("add [SetUp \"1\"] before the FEN tag")
        });
    }

    if needs_start && fen_tag.is_none() {
        let i = variant.unwrap_or(0);
        report.problem(i, Code::VariantWithoutFen, || {
            Problem::new(
                Code::VariantWithoutFen,
                0..decode_value(tags[i].raw).len(),
                "a Chess960 or 10×8 game must record its start position, but there is no FEN tag",
            )
            .with_help("add [SetUp \"1\"] and the start position as a [FEN \"...\"] tag")
        });
    }

    let mut chess960_position = None;
    let mut class = match family {
        VariantFamily::Other => Class::Other,
        _ => Class::Standard,
    };
    if let (Some(i), true) = (fen_tag, family != VariantFamily::Other) {
        let value = decode_value(tags[i].raw);
        // The analysis is read where the memo keeps it: a report that does
        // not keep it copies nothing.
        (class, chess960_position) = with_analysis(&value, family.hint(), |a| {
            for p in &a.problems {
                report.problem(i, p.code, || p.clone());
            }
            judge_board(tags, i, variant, family, a, &mut report);
            report.report.analysis(i, a);
            (a.class, a.chess960_position)
        });
    }

    if report.error {
        class = Class::Malformed;
    }
    if class != Class::Chess960 {
        chess960_position = None;
    }
    (class, chess960_position)
}

/// The problems of the FEN tag at `i` that come of its board and the Variant
/// tag (`variant`, of `family`): a board of the wrong width for the variant,
/// or a position that needs a variant the header does not name.
fn judge_board<R: Report>(
    tags: &[TagInput<'_>],
    i: usize,
    variant: Option<usize>,
    family: VariantFamily,
    a: &Analysis,
    report: &mut Judged<'_, R>,
) {
    let Some(board) = a.board else {
        return;
    };
    let v = variant.unwrap_or(i);
    let mismatch = match (family, board) {
        (VariantFamily::Chess960, BoardSize::Ten) => Some((
            "the Variant tag names Chess960, which is played on 8 files, but the FEN has 10 files",
            "for a 10×8 game write its variant, e.g. [Variant \"Capablanca\"]; otherwise fix the FEN",
        )),
        (VariantFamily::Capablanca, BoardSize::Eight) => Some((
            "the Variant tag names a Capablanca-family variant, which is played on 10 files, but the FEN has 8 files",
            "for an 8×8 game write [Variant \"Chess960\"] or remove the Variant tag; otherwise fix the FEN",
        )),
        _ => None,
    };
    if let Some((message, help)) = mismatch {
        report.problem(v, Code::VariantMismatch, || {
            Problem::new(
                Code::VariantMismatch,
                0..decode_value(tags[v].raw).len(),
                message,
            )
            .with_help(help)
        });
    } else if family == VariantFamily::StandardLike && a.position.is_some() {
        let needed = if board == BoardSize::Ten {
            Some((
                "a 10-file board needs a 10×8 variant",
                "Capablanca",
                " (or the variant played)",
            ))
        } else if a.needs_chess960_castling {
            Some((
                "a castling right needs Chess960 castling (king off the e-file or rook off the a/h-files)",
                "Chess960",
                "",
            ))
        } else {
            None
        };
        if let Some((what, name, or)) = needed {
            let written = variant.map(|v| tags[v].raw);
            report.problem(i, Code::MissingVariant, || {
                missing_variant(written, what, name, or)
            });
        }
    }
}

/// A [`Report`] and whether a problem of error severity went to it.
struct Judged<'r, R> {
    report: &'r mut R,
    error: bool,
}

impl<R: Report> Judged<'_, R> {
    fn problem(&mut self, tag: usize, code: Code, problem: impl FnOnce() -> Problem) {
        self.error |= code.severity() == Severity::Error;
        self.report.problem(tag, code, problem);
    }
}

/// Entries of the per-thread memo of FEN analyses.
const FEN_MEMO_SLOTS: usize = 16384;

thread_local! {
    static FEN_MEMO: RefCell<Memo<Analysis>> = const { RefCell::new(Memo::new()) };
}

/// `fen::analyse`, through this thread's memo (same result, computed once per
/// distinct string while it stays in the memo).
pub fn analyse_cached(value: &[u8], hint: VariantHint) -> Analysis {
    with_analysis(value, hint, Analysis::clone)
}

/// [`analyse_cached`] lent to `f` where the memo keeps it, for a caller
/// that reads the analysis without keeping it (no copy is made).
///
/// # Panics
/// If `f` analyses a FEN through this thread's memo itself ([`classify`],
/// [`tally`], [`analyse_cached`] or this function): the memo is borrowed
/// while `f` runs.
pub fn with_analysis<R>(value: &[u8], hint: VariantHint, f: impl FnOnce(&Analysis) -> R) -> R {
    FEN_MEMO.with_borrow_mut(|memo| {
        memo.with_or_compute(
            FEN_MEMO_SLOTS,
            value,
            hint as u64,
            || fen::analyse(value, hint),
            f,
        )
    })
}

/// Asks the memory for what the analyses of these games' FEN values through
/// this thread's memo will read ([`Memo::prefetch`]), ahead of the look-ups
/// of [`tally`] and [`classify`]: a caller with a batch of headers to judge
/// passes each one's first FEN value and first Variant value (raw) first, so
/// that the memory's waits of the batch overlap. The games are not read
/// while the memo rarely hits (then only a sample of values is looked up). A
/// value with an escape makes a request that the look-up does not use; the
/// results never change.
pub fn prefetch_analyses<'v>(games: impl Iterator<Item = (&'v [u8], Option<&'v [u8]>)>) {
    FEN_MEMO.with(|memo| {
        let Ok(memo) = memo.try_borrow() else {
            return;
        };
        if !memo.prefetches(FEN_MEMO_SLOTS) {
            return;
        }
        let keys = games.filter_map(|(fen, variant)| {
            let family = variant.map_or(VariantFamily::StandardLike, VariantFamily::of);
            (family != VariantFamily::Other).then(|| (fen, family.hint() as u64))
        });
        memo.prefetch(FEN_MEMO_SLOTS, keys);
    });
}

/// `missing-variant` on the FEN tag `tag`: `what` its position needs, `name`
/// the variant to write (`or`: what follows the help). A Variant tag that
/// names standard chess (`written`: `Standard`, `From Position`) is quoted,
/// so that the message does not say that a tag is missing which the header
/// has. Made only when the problem is found: no text for the other games.
fn missing_variant(written: Option<&[u8]>, what: &str, name: &str, or: &str) -> Problem {
    let (but, help) = match written {
        Some(raw) => (
            format!("but the Variant tag says \"{}\"", shown_value(raw)),
            format!("write [Variant \"{name}\"] instead{or}"),
        ),
        None => (
            "but there is no Variant tag".to_string(),
            format!("add [Variant \"{name}\"]{or}"),
        ),
    };
    Problem::new(Code::MissingVariant, 0..0, format!("{what}, {but}")).with_help(help)
}

/// A repeated SetUp, FEN or Variant tag with another value than the first is a
/// `duplicate-tag` (one per extra tag). Variant values compare loosely ([`same_tag_value`]).
/// Linear in the number of tags: each is compared with the first of its name only.
fn report_duplicates<R: Report>(tags: &[TagInput<'_>], report: &mut Judged<'_, R>) {
    let mut first: [Option<&TagInput<'_>>; 3] = [None; 3];
    for (i, tag) in tags.iter().enumerate() {
        let slot = &mut first[tag.name.index()];
        let Some(first) = *slot else {
            *slot = Some(tag);
            continue;
        };
        if !same_tag_value(tag.name, first.raw, tag.raw) {
            report.problem(i, Code::DuplicateTag, || {
                Problem::new(
                    Code::DuplicateTag,
                    0..decode_value(tag.raw).len(),
                    duplicate_message(tag.name.as_str(), first.raw),
                )
                .with_help(format!("remove one of the two {} tags", tag.name.as_str()))
            });
        }
    }
}

/// Most bytes of a value quoted in a message (a hostile header's values can be
/// megabytes long, and every duplicate's message quotes the first value).
const SHOWN_VALUE: usize = 200;

/// The message of a `duplicate-tag`: the value quoted is the first tag's,
/// the one used (the span points at the second).
#[doc(hidden)] // for the command line and the Python binding
pub fn duplicate_message(name: &str, first_raw: &[u8]) -> String {
    format!(
        "a second {name} tag with another value; the first, \"{}\", is used",
        shown_value(first_raw)
    )
}

/// A raw value for a message: lossy UTF-8, control characters escaped
/// (`crate::escape::controls`), cut after 200 bytes with `…`.
#[doc(hidden)] // for the command line and the Python binding
pub fn shown_value(raw: &[u8]) -> String {
    if raw.len() <= SHOWN_VALUE {
        return crate::escape::controls(&String::from_utf8_lossy(raw)).into_owned();
    }
    let mut cut = SHOWN_VALUE;
    while cut > 0 && (raw[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    format!(
        "{}…",
        crate::escape::controls(&String::from_utf8_lossy(&raw[..cut]))
    )
}

/// Whether a repeated tag `name` with raw value `later` says the same as the
/// first one, `first`: Variant values compare as the classes compare them
/// (case, spaces, hyphens and underscores aside), the others byte for byte.
pub fn same_tag_value(name: TagName, first: &[u8], later: &[u8]) -> bool {
    match name {
        TagName::Variant => {
            first == later || normalized_variant(first) == normalized_variant(later)
        }
        _ => first == later,
    }
}

fn normalized_variant(raw: &[u8]) -> Vec<u8> {
    decode_value(raw)
        .iter()
        .filter(|b| !matches!(b, b' ' | b'-' | b'_' | b'\t'))
        .map(u8::to_ascii_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags<'a>(list: &[(TagName, &'a str)]) -> Vec<TagInput<'a>> {
        list.iter()
            .map(|&(name, v)| TagInput {
                name,
                raw: v.as_bytes(),
            })
            .collect()
    }

    fn codes(v: &Verdict) -> Vec<&'static str> {
        let mut c: Vec<_> = v.problems.iter().map(|p| p.problem.code.as_str()).collect();
        c.sort();
        c
    }

    #[test]
    fn variant_names_compare_loosely() {
        assert_eq!(
            VariantFamily::of(b" Fischer Random "),
            VariantFamily::Chess960
        );
        assert_eq!(VariantFamily::of(b"chess 960"), VariantFamily::Chess960);
        assert_eq!(
            VariantFamily::of(b"From Position"),
            VariantFamily::StandardLike
        );
        assert_eq!(VariantFamily::of(b""), VariantFamily::StandardLike);
        assert_eq!(
            VariantFamily::of(b"Capablanca Random Chess"),
            VariantFamily::Capablanca
        );
        assert_eq!(VariantFamily::of(b"Seirawan960"), VariantFamily::Other);
        assert_eq!(VariantFamily::of(b"Crazyhouse"), VariantFamily::Other);
        assert_eq!(VariantFamily::of(&[b'x'; 100]), VariantFamily::Other);
    }

    /// The spellings answered before the rule get the rule's answer.
    #[test]
    fn common_variant_spellings_follow_the_rule() {
        for value in [&b"Standard"[..], b"From Position", b"Chess960", b"chess960"] {
            assert_eq!(VariantFamily::of(value), VariantFamily::normalised(value));
            assert_ne!(VariantFamily::of(value), VariantFamily::Other);
        }
    }

    /// Tag values that reach every rule: both SetUp values and a bad one, FENs
    /// valid and not on both widths (a start array, Chess960 castling, an
    /// EPD-like record, castling letters out of order, escapes, junk), and
    /// Variant names of each family.
    const VALUES: [(TagName, &str); 21] = [
        (TagName::SetUp, "1"),
        (TagName::SetUp, "0"),
        (TagName::SetUp, "yes"),
        (
            TagName::Fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ),
        (
            TagName::Fen,
            "rknnbbrq/pppppppp/8/8/8/8/PPPPPPPP/RKNNBBRQ w KQkq - 0 1",
        ),
        (
            TagName::Fen,
            "rknnbbrq/pppppppp/8/8/8/8/PPPPPPPP/RKNNBBRQ w GAga - 0 1",
        ),
        (
            TagName::Fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w qkQK - 0 1",
        ),
        (
            TagName::Fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        ),
        (
            TagName::Fen,
            "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
        ),
        (TagName::Fen, "8/8/8/8/8/8/8/K6k w - - 0 1"),
        (TagName::Fen, "8/8/8/8/8/8/8/KK5k w - - 0 1"),
        (TagName::Fen, "4k3/8/8/8/8/8/8/4K2R w K e3 0 1"),
        (TagName::Fen, "r\\nb"),
        (TagName::Fen, "junk"),
        (TagName::Variant, "Chess960"),
        (TagName::Variant, "Capablanca"),
        (TagName::Variant, "Standard"),
        (TagName::Variant, "From Position"),
        (TagName::Variant, "Crazyhouse"),
        (TagName::Variant, "fischerandom"),
        (TagName::Variant, ""),
    ];

    proptest::proptest! {
        /// `tally` is `classify` counted: the same class and number, each
        /// code as often, and the codes in the order of their first report.
        #[test]
        fn tallies_count_the_verdicts_problems(
            picks in proptest::collection::vec(0..VALUES.len(), 0..6),
        ) {
            let tags: Vec<TagInput<'_>> = picks
                .iter()
                .map(|&k| TagInput { name: VALUES[k].0, raw: VALUES[k].1.as_bytes() })
                .collect();
            // Twice: the FEN's analysis computed, then taken from the memo.
            for _ in 0..2 {
                let verdict = classify(&tags);
                let counted = tally(&tags);
                proptest::prop_assert_eq!(counted.class, verdict.class);
                proptest::prop_assert_eq!(counted.chess960_position, verdict.chess960_position);
                let mut counts = ProblemCounts::default();
                let mut order = Vec::new();
                for p in &verdict.problems {
                    if counts[p.problem.code] == 0 {
                        order.push(p.problem.code);
                    }
                    counts.add(p.problem.code);
                }
                proptest::prop_assert_eq!(counted.problems, counts);
                proptest::prop_assert_eq!(counted.codes.iter().collect::<Vec<_>>(), order);
            }
        }
    }

    #[test]
    #[should_panic(expected = "borrowed")]
    fn an_analysis_lent_cannot_analyse_again() {
        with_analysis(
            b"8/8/8/8/8/8/8/K6k w - - 0 1",
            VariantHint::StandardLike,
            |_| analyse_cached(b"8/8/8/8/8/8/8/K5k1 w - - 0 1", VariantHint::StandardLike),
        );
    }

    #[test]
    fn cached_analysis_is_the_analysis() {
        // Twice each (miss, then hit), under every hint, valid and invalid.
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rknnbbrq/pppppppp/8/8/8/8/PPPPPPPP/RKNNBBRQ w KQkq - 0 1",
            "rknnbbrq/pppppppp/8/8/8/8/PPPPPPPP/RKNNBBRQ w GAga - 0 1",
            "junk",
        ] {
            for hint in [
                VariantHint::StandardLike,
                VariantHint::Chess960,
                VariantHint::Capablanca,
            ] {
                for _ in 0..2 {
                    let a = analyse_cached(fen.as_bytes(), hint);
                    let b = fen::analyse(fen.as_bytes(), hint);
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{fen} {hint:?}");
                }
            }
        }
    }

    #[test]
    fn missing_variant_names_a_variant_tag_of_standard_chess() {
        let fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1";
        let capa = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
        for (fen, variant, message, help) in [
            (
                fen,
                None,
                "but there is no Variant tag",
                "add [Variant \"Chess960\"]",
            ),
            (
                fen,
                Some("Standard"),
                "but the Variant tag says \"Standard\"",
                "write [Variant \"Chess960\"] instead",
            ),
            (
                capa,
                None,
                "needs a 10×8 variant, but there is no Variant tag",
                "add [Variant \"Capablanca\"] (or the variant played)",
            ),
            (
                capa,
                Some("From Position"),
                "but the Variant tag says \"From Position\"",
                "write [Variant \"Capablanca\"] instead (or the variant played)",
            ),
        ] {
            let mut list = vec![(TagName::SetUp, "1"), (TagName::Fen, fen)];
            if let Some(variant) = variant {
                list.push((TagName::Variant, variant));
            }
            let v = classify(&tags(&list));
            assert_eq!(codes(&v), ["missing-variant"], "{variant:?}");
            let problem = &v.problems[0].problem;
            assert!(problem.message.ends_with(message), "{}", problem.message);
            assert_eq!(problem.help.as_deref(), Some(help));
        }
    }

    #[test]
    fn no_tags_is_standard() {
        let v = classify(&[]);
        assert_eq!(v.class, Class::Standard);
        assert!(v.problems.is_empty());
    }

    #[test]
    fn setup_rules() {
        let v = classify(&tags(&[(TagName::SetUp, "1")]));
        assert_eq!(
            (v.class, codes(&v)),
            (Class::Malformed, vec!["setup-without-fen"])
        );
        let v = classify(&tags(&[
            (TagName::SetUp, "1"),
            (TagName::Variant, "Chess960"),
        ]));
        assert_eq!(codes(&v), vec!["setup-without-fen", "variant-without-fen"]);
        let v = classify(&tags(&[(TagName::SetUp, "yes")]));
        assert_eq!(codes(&v), vec!["setup-value"]);
        let v = classify(&tags(&[(TagName::SetUp, "0")]));
        assert_eq!((v.class, codes(&v).len()), (Class::Standard, 0));
    }

    #[test]
    fn other_variants_are_not_judged() {
        let v = classify(&tags(&[
            (TagName::Variant, "Crazyhouse"),
            (TagName::SetUp, "1"),
            (TagName::Fen, "junk"),
        ]));
        assert_eq!(v.class, Class::Other);
        assert!(v.problems.is_empty());
        let v = classify(&tags(&[
            (TagName::Variant, "Atomic"),
            (TagName::Variant, "Standard"),
        ]));
        assert_eq!(
            (v.class, codes(&v)),
            (Class::Malformed, vec!["duplicate-tag"])
        );
    }

    #[test]
    fn duplicates_compare_variants_loosely() {
        let v = classify(&tags(&[
            (TagName::Variant, "Chess960"),
            (TagName::Variant, "chess 960"),
        ]));
        assert_eq!(codes(&v), vec!["variant-without-fen"]);
        let v = classify(&tags(&[
            (TagName::Variant, "Chess960"),
            (TagName::Variant, "FRC"),
        ]));
        assert_eq!(codes(&v), vec!["duplicate-tag", "variant-without-fen"]);
    }
}
