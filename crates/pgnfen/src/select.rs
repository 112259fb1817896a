//! `--tag EXPR`: selecting games by any header tag.
//!
//! An expression is `NAME OP VALUE`, with no blanks around the operator:
//!
//! * `NAME` is a tag name: ASCII letters, digits and `_`, case-sensitive.
//! * `OP` is one of `=`, `!=`, `~`, `!~`, `<`, `<=`, `>`, `>=`.
//! * `VALUE` is the rest of the expression, taken literally (no escapes; it
//!   may be empty). It may not begin with `=`, `!`, `~`, `<` or `>`: that is
//!   almost always a mistyped operator (`WhiteElo>>2500`, `Event==x`).
//!
//! The game's value is the tag's value with PGN escapes decoded (`\"`, `\\`).
//! `=`/`!=` compare bytes. `~`/`!~` search the value for the regular expression
//! (Rust `regex` syntax, unanchored: `^`/`$` anchor it). `<`, `<=`, `>`, `>=`
//! compare numbers when both sides are decimal numbers (an optional sign,
//! digits, optionally `.` and digits: `2500`, `-3`, `0.5`; white space around
//! it ignored; compared exactly, however long), and bytes otherwise (which orders PGN dates `YYYY.MM.DD`; a
//! date with `??` sorts after the digits). A game without the tag satisfies
//! only `!=` and `!~`. When a header holds the tag more than once, the first
//! pair counts.
//!
//! ```
//! use pgnfen::select::TagExpr;
//!
//! let strong: TagExpr = "WhiteElo>=2500".parse()?;
//! assert!(strong.holds(Some(b"2600")));
//! assert!(!strong.holds(Some(b"999")));
//! assert!(!strong.holds(None)); // a game without the tag
//! let open: TagExpr = "Event~^Titled Arena".parse()?;
//! assert!(open.holds(Some(b"Titled Arena May '24")));
//! assert!("WhiteElo>>2500".parse::<TagExpr>().is_err()); // a mistyped operator
//! # Ok::<(), pgnfen::select::ExprError>(())
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use regex::bytes::Regex;

use crate::pgn::scan::MAX_EXTRA_TAGS;
use crate::pgn::tags::decode_value;
use crate::speed::Speed;

/// A comparison operator of `--tag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`: the value is exactly this.
    Eq,
    /// `!=`: the value is not this (or the tag is absent).
    Ne,
    /// `~`: the regular expression matches somewhere in the value.
    Match,
    /// `!~`: it does not (or the tag is absent).
    NotMatch,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// The operators by spelling, two-byte ones first (the longest match wins).
    const SPELLINGS: [(&'static str, Op); 8] = [
        ("!=", Op::Ne),
        ("!~", Op::NotMatch),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=", Op::Eq),
        ("~", Op::Match),
        ("<", Op::Lt),
        (">", Op::Gt),
    ];

    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        Self::SPELLINGS
            .iter()
            .find(|(_, op)| *op == self)
            .map_or("?", |(s, _)| s)
    }
}

/// One parsed `--tag` expression.
#[derive(Clone, Debug)]
pub struct TagExpr {
    // Read-only (see the methods of the same names): `numeric` and `regex`
    // are derived from `op` and `value` when the expression is read.
    name: String,
    op: Op,
    value: String,
    /// Whether the value is a number, for `<`..`>=`.
    numeric: bool,
    /// The compiled regular expression, for `~`/`!~`.
    regex: Option<Regex>,
    /// Whether a game of the run held the tag at all, shared by every clone of
    /// the expression: the command keeps its own copy and asks
    /// [`TagExpr::was_seen`] after the run, so that a misspelled name
    /// (`whiteelo`) is reported instead of silently selecting nothing.
    seen: Arc<AtomicBool>,
}

/// Why an expression is malformed, and where (byte range in the expression).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    /// The expression as given.
    pub expr: String,
    /// The byte range at fault.
    pub at: std::ops::Range<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ExprError {
    /// The message, then the expression and a caret under the fault.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `at` as given may cut a character or lie outside the expression
        // (its fields are public): moved back to character boundaries inside.
        let boundary = |mut i: usize| {
            i = i.min(self.expr.len());
            while !self.expr.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let (start, end) = (boundary(self.at.start), boundary(self.at.end));
        let mut pad = self.expr[..start].chars().count();
        let width = self.expr[start..end.max(start)].chars().count().max(1);
        // The expression stands on a line of its own, after two blanks, which
        // a GitHub runner skips: an expression that begins with `::` would be
        // a workflow command there. Its first `:` is shown as `\u{3a}` (the
        // notation of escaped characters), the caret moved to match.
        let shown = if self.expr.trim_start().starts_with("::") {
            if start > self.expr.find(':').unwrap_or(0) {
                pad += "\\u{3a}".len() - 1;
            }
            std::borrow::Cow::Owned(self.expr.replacen(':', "\\u{3a}", 1))
        } else {
            std::borrow::Cow::Borrowed(self.expr.as_str())
        };
        write!(
            f,
            "{}\n  {}\n  {}{}",
            self.message,
            shown,
            " ".repeat(pad),
            "^".repeat(width)
        )
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_op_byte(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'~' | b'<' | b'>')
}

impl TagExpr {
    /// The tag name (case-sensitive).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The comparison.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The value compared with, as written.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Parses `NAME OP VALUE` (see the module notes).
    pub fn parse(expr: &str) -> Result<TagExpr, ExprError> {
        let err = |at: std::ops::Range<usize>, message: String| ExprError {
            expr: expr.to_string(),
            at,
            message,
        };
        let bytes = expr.as_bytes();
        let name_len = bytes.iter().take_while(|&&b| is_name_byte(b)).count();
        if name_len == 0 {
            let what = if bytes.first().is_some_and(|&b| is_op_byte(b)) {
                "expected a tag name before the operator"
            } else {
                "expected a tag name (letters, digits, `_`) followed by an operator"
            };
            let width = expr.chars().next().map_or(1, char::len_utf8);
            return Err(err(0..width, what.to_string()));
        }
        let rest = &expr[name_len..];
        let Some(&(spelling, op)) = Op::SPELLINGS.iter().find(|(s, _)| rest.starts_with(s)) else {
            let width = rest.chars().next().map_or(1, char::len_utf8);
            let message = if rest.is_empty() {
                "expected an operator (= != ~ !~ < <= > >=) and a value after the tag name"
                    .to_string()
            } else {
                format!(
                    "expected an operator (= != ~ !~ < <= > >=) after the tag name, found {:?}",
                    rest.chars().next().unwrap_or(' ')
                )
            };
            return Err(err(name_len..name_len + width, message));
        };
        let value_at = name_len + spelling.len();
        let value = &expr[value_at..];
        if value.bytes().next().is_some_and(is_op_byte) {
            let extra = value.bytes().take_while(|&b| is_op_byte(b)).count();
            return Err(err(
                name_len..value_at + extra,
                format!(
                    "`{}` is not an operator (one of = != ~ !~ < <= > >=); a value may not begin with = ! ~ < or >",
                    &expr[name_len..value_at + extra]
                ),
            ));
        }
        let regex = match op {
            Op::Match | Op::NotMatch => Some(Regex::new(value).map_err(|e| {
                let detail = match &e {
                    regex::Error::Syntax(s) => s
                        .lines()
                        .rev()
                        .find(|l| l.starts_with("error:"))
                        .unwrap_or(s)
                        .trim_start_matches("error:")
                        .trim()
                        .to_string(),
                    other => other.to_string(),
                };
                err(
                    value_at..expr.len().max(value_at + 1),
                    format!("invalid regular expression: {detail}"),
                )
            })?),
            _ => None,
        };
        Ok(TagExpr {
            name: expr[..name_len].to_string(),
            op,
            value: value.to_string(),
            numeric: Decimal::parse(value.as_bytes()).is_some(),
            regex,
            seen: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Whether a game read by a run that used this expression (or a clone of
    /// it) held the tag.
    pub fn was_seen(&self) -> bool {
        self.seen.load(AtomicOrdering::Relaxed)
    }

    /// The tags named by `exprs` that no game of a finished run held (the
    /// expressions record what they saw), each with the closest tag name that the
    /// inputs do hold, if one is near: `whiteelo` gives `Some("WhiteElo")`. A
    /// selection on a misspelled tag keeps no game (or every game, for `!=` and
    /// `!~`) without any other sign that something is off; the command line warns
    /// with this.
    pub fn unseen(
        exprs: &[TagExpr],
        inputs: &[crate::pipeline::Input],
    ) -> Vec<(String, Option<String>)> {
        closest_tag_names(&unseen_names(exprs), inputs)
    }

    /// Notes that a game held the tag. A load before the store: once set, the
    /// flag's cache line is only read, never written again by every worker.
    fn mark_seen(&self) {
        if !self.seen.load(AtomicOrdering::Relaxed) {
            self.seen.store(true, AtomicOrdering::Relaxed);
        }
    }

    /// Whether a game whose tag `NAME` has the raw (still escaped) value
    /// `raw`, or none, satisfies the expression.
    pub fn holds(&self, raw: Option<&[u8]>) -> bool {
        let Some(raw) = raw else {
            return matches!(self.op, Op::Ne | Op::NotMatch);
        };
        let value = decode_value(raw);
        let value: &[u8] = &value;
        match self.op {
            Op::Eq => value == self.value.as_bytes(),
            Op::Ne => value != self.value.as_bytes(),
            Op::Match => self.regex.as_ref().is_some_and(|r| r.is_match(value)),
            Op::NotMatch => !self.regex.as_ref().is_some_and(|r| r.is_match(value)),
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let want = self.value.as_bytes();
                let order = match (self.numeric, Decimal::parse(value)) {
                    (true, Some(a)) => Decimal::parse(want).map_or(Ordering::Equal, |b| a.cmp(&b)),
                    _ => value.cmp(want),
                };
                match self.op {
                    Op::Lt => order == Ordering::Less,
                    Op::Le => order != Ordering::Greater,
                    Op::Gt => order == Ordering::Greater,
                    _ => order != Ordering::Less,
                }
            }
        }
    }
}

impl std::str::FromStr for TagExpr {
    type Err = ExprError;

    /// Parses `NAME OP VALUE`, e.g. `"WhiteElo>=2500"` (see the module docs).
    fn from_str(expr: &str) -> Result<TagExpr, ExprError> {
        TagExpr::parse(expr)
    }
}

impl std::error::Error for ExprError {}

/// Every `--tag` of a command, and its `--speed` list: the distinct tag names
/// they read (the scanner reports only these) and the expressions, all of
/// which must hold.
///
/// The `TimeControl` tag is among the names only when a speed is needed (a
/// `--speed` list, [`Selector::with_time_control`]): reading one more tag's
/// value costs every game a little, so the commands that do not need it do
/// not pay for it.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    names: Vec<Vec<u8>>,
    /// Each expression with the index of its name in `names`.
    exprs: Vec<(usize, TagExpr)>,
    /// The speeds a game must have one of (none: any speed).
    speeds: Vec<Speed>,
    /// The index of `TimeControl` in `names`, when it is read.
    time_control: Option<usize>,
}

impl Selector {
    /// The selector of all of `exprs` (each tag name looked for once).
    pub fn new(exprs: &[TagExpr]) -> Selector {
        let mut s = Selector::default();
        for e in exprs {
            let i = s.name_index(e.name.as_bytes());
            s.exprs.push((i, e.clone()));
        }
        s
    }

    /// The index of `name` in the names read, added when missing.
    fn name_index(&mut self, name: &[u8]) -> usize {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_vec());
                self.names.len() - 1
            }
        }
    }

    /// Also requires a game's speed to be one of `speeds` (nothing more when
    /// the list is empty), reading its `TimeControl` tag for that.
    pub fn with_speeds(mut self, speeds: &[Speed]) -> Selector {
        if !speeds.is_empty() {
            self.speeds = speeds.to_vec();
            self = self.with_time_control();
        }
        self
    }

    /// Reads each game's `TimeControl` tag also without a speed list, so
    /// that the run knows each game's speed (`split`'s `{speed}`, `stats`'s
    /// counts by speed), selecting nothing more.
    pub fn with_time_control(mut self) -> Selector {
        if self.time_control.is_none() {
            self.time_control = Some(self.name_index(crate::speed::TAG));
        }
        self
    }

    /// The tags of this selector's expressions that no game of its finished
    /// runs held, each with the closest tag name the inputs hold:
    /// [`TagExpr::unseen`] for the expressions it was made of.
    pub fn unseen(&self, inputs: &[crate::pipeline::Input]) -> Vec<(String, Option<String>)> {
        closest_tag_names(&self.unseen_names(), inputs)
    }

    /// The tags of this selector's expressions that no game of its finished
    /// runs held, in the order of the expressions, each once: for runs over
    /// parts of the inputs, where a tag is unseen when no part saw it.
    pub fn unseen_names(&self) -> Vec<&str> {
        unseen_names(self.exprs.iter().map(|(_, e)| e))
    }

    /// The speeds a game must have one of (empty: any).
    pub fn speeds(&self) -> &[Speed] {
        &self.speeds
    }

    /// Whether there is no expression and no speed list (every game matches).
    pub fn is_empty(&self) -> bool {
        self.exprs.is_empty() && self.speeds.is_empty()
    }

    /// More distinct tag names than the scanner can look for are a usage error.
    pub fn validate(&self) -> Result<(), crate::Error> {
        if self.names.len() > MAX_EXTRA_TAGS {
            let speed_reads_time_control = self.time_control.is_some()
                && !self
                    .exprs
                    .iter()
                    .any(|(_, e)| e.name.as_bytes() == crate::speed::TAG);
            return Err(crate::error::Usage::TooManyTags {
                names: self.names.len(),
                speed_reads_time_control,
            }
            .into());
        }
        Ok(())
    }

    /// The tag names to ask the scanner for.
    pub(crate) fn names(&self) -> &[Vec<u8>] {
        &self.names
    }

    /// Whether every expression holds and the speed is listed; `value(i)`
    /// gives the raw value of the first pair of tag `names()[i]` in the game,
    /// if any.
    #[cfg(feature = "export")]
    pub(crate) fn matches<'v>(&self, value: impl Fn(usize) -> Option<&'v [u8]>) -> bool {
        self.judge(value).0
    }

    /// [`Selector::matches`], and the game's speed when it is read (see
    /// [`Selector::with_time_control`]).
    /// Every expression's tag is noted as seen when the game holds it
    /// ([`TagExpr::was_seen`]), also past the first expression that fails.
    pub(crate) fn judge<'v>(
        &self,
        value: impl Fn(usize) -> Option<&'v [u8]>,
    ) -> (bool, Option<Speed>) {
        self.note_seen(&value);
        let speed = self.time_control.map(|i| Speed::of(value(i)));
        let listed = self.speeds.is_empty() || speed.is_some_and(|s| self.speeds.contains(&s));
        (
            listed && self.exprs.iter().all(|(i, e)| e.holds(value(*i))),
            speed,
        )
    }

    /// Notes which of the expressions' tags the game holds, without judging
    /// it: for callers that may decide on a game before its tags are looked
    /// at (`filter` by class).
    pub(crate) fn note_seen<'v>(&self, value: impl Fn(usize) -> Option<&'v [u8]>) {
        for (i, e) in &self.exprs {
            if value(*i).is_some() {
                e.mark_seen();
            }
        }
    }
}

/// Each of `names` (tags no game held) with the closest tag name met at the
/// start of `inputs`, if one is near: `whiteelo` gives `Some("WhiteElo")`.
pub fn closest_tag_names(
    names: &[&str],
    inputs: &[crate::pipeline::Input],
) -> Vec<(String, Option<String>)> {
    if names.is_empty() {
        return Vec::new();
    }
    let seen = tag_names_at_start(inputs);
    names
        .iter()
        .map(|&name| {
            let near = closest(name, seen.iter().map(String::as_str)).map(str::to_string);
            (name.to_string(), near)
        })
        .collect()
}

/// The warning about a tag no game held, as every front end words it:
/// `named_by` is what named the tag (`--tag`, `tags=`), `near` the closest
/// name the inputs hold.
///
/// ```
/// use pgnfen::select::unseen_tag_warning;
/// assert_eq!(
///     unseen_tag_warning("whiteelo", Some("WhiteElo"), "--tag"),
///     "no game held the tag whiteelo named by --tag (tag names are case-sensitive); \
///      did you mean WhiteElo?"
/// );
/// ```
pub fn unseen_tag_warning(name: &str, near: Option<&str>, named_by: &str) -> String {
    let hint = match near {
        Some(near) => format!("; did you mean {near}?"),
        None => String::new(),
    };
    format!("no game held the tag {name} named by {named_by} (tag names are case-sensitive){hint}")
}

/// The tag names no game of a run held: the names of the expressions of
/// `exprs` (each once, in order) that [`TagExpr::was_seen`] says were never seen.
pub(crate) fn unseen_names<'a>(exprs: impl IntoIterator<Item = &'a TagExpr>) -> Vec<&'a str> {
    let mut names: Vec<&str> = Vec::new();
    for e in exprs {
        if !e.was_seen() && !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    names
}

/// How much of each input [`tag_names_at_start`] reads: the first games of a
/// file hold the names its other games use, and a misspelling warning must
/// not cost a second pass over a large archive.
pub(crate) const NAMES_SAMPLE: u64 = 1 << 20;

/// The distinct tag names of the tag lines in the first [`NAMES_SAMPLE`]
/// bytes (decompressed) of each input, in order of appearance: candidates for
/// a `did you mean` after a run in which a `--tag` name was never seen. Only
/// regular files are read again (standard input and pipes cannot be); an
/// input that cannot be read gives no names (the run already said why).
pub(crate) fn tag_names_at_start(inputs: &[crate::pipeline::Input]) -> Vec<String> {
    use std::io::Read;
    const MAX_NAMES: usize = 1000;
    let mut names: Vec<String> = Vec::new();
    for input in inputs {
        let crate::pipeline::Input::File(path) = input else {
            continue;
        };
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let count = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let Ok(reader) = input.open(count) else {
            continue;
        };
        let mut head = Vec::new();
        if reader.take(NAMES_SAMPLE).read_to_end(&mut head).is_err() && head.is_empty() {
            continue;
        }
        for line in head.split(|&b| b == b'\n' || b == b'\r') {
            let line = line.trim_ascii_start();
            let Some(rest) = line.strip_prefix(b"[") else {
                continue;
            };
            let rest = rest.trim_ascii_start();
            let len = rest.iter().take_while(|&&b| is_name_byte(b)).count();
            if len == 0 {
                continue;
            }
            let name = String::from_utf8_lossy(&rest[..len]);
            if !names.iter().any(|n| *n == name) {
                names.push(name.into_owned());
                if names.len() >= MAX_NAMES {
                    return names;
                }
            }
        }
    }
    names
}

/// The number of single-character edits (insertions, deletions,
/// substitutions) between `a` and `b`, ignoring ASCII case: `whiteelo` is 0
/// from `WhiteElo`, `WhiteEl` 1.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// The name of `candidates` nearest to `name` (`did you mean ...?`): the
/// nearest in edit distance (case ignored), among those close enough to be a
/// slip of the keyboard (a third of the name's letters, at least one: two
/// edits make any name of one or two letters into `FEN` or `ECO`); a name
/// differing only in case is preferred to any other.
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// A decimal number `[+-]digits[.digits]`, ASCII white space around it
/// ignored, normalised for exact comparison (borrowing its digits: no
/// allocation per game).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Decimal<'a> {
    negative: bool,
    /// Integer digits without leading zeros.
    int: &'a [u8],
    /// Fraction digits without trailing zeros.
    frac: &'a [u8],
}

impl<'a> Decimal<'a> {
    fn parse(s: &'a [u8]) -> Option<Decimal<'a>> {
        // `WhiteElo>= 2500` means the number: compared byte by byte, the
        // space would sort before every digit and keep every game.
        let s = s.trim_ascii();
        let (negative, s) = match s.first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = match s.iter().position(|&b| b == b'.') {
            Some(p) => (&s[..p], &s[p + 1..]),
            None => (s, &[][..]),
        };
        let digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
        if int.is_empty() || !digits(int) || !digits(frac) || (s.contains(&b'.') && frac.is_empty())
        {
            return None;
        }
        let int = &int[int.iter().position(|&b| b != b'0').unwrap_or(int.len())..];
        let frac = &frac[..frac.iter().rposition(|&b| b != b'0').map_or(0, |p| p + 1)];
        // -0 is 0.
        let negative = negative && !(int.is_empty() && frac.is_empty());
        Some(Decimal {
            negative,
            int,
            frac,
        })
    }

    fn cmp_magnitude(&self, other: &Decimal<'_>) -> Ordering {
        self.int
            .len()
            .cmp(&other.int.len())
            .then_with(|| self.int.cmp(other.int))
            .then_with(|| self.frac.cmp(other.frac))
    }
}

impl Ord for Decimal<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Decimal<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_shows_any_range_without_panicking() {
        // Fields set by hand: a range that cuts a character, one past the end.
        #[allow(clippy::reversed_empty_ranges)]
        let ranges = [1..2, 0..99, 7..3, 99..100];
        for at in ranges {
            let e = ExprError {
                expr: "Élo>=1".into(),
                at: at.clone(),
                message: "x".into(),
            };
            assert!(e.to_string().contains("Élo>=1"), "{at:?}");
        }
    }

    fn holds(expr: &str, value: Option<&str>) -> bool {
        TagExpr::parse(expr)
            .unwrap()
            .holds(value.map(str::as_bytes))
    }

    #[test]
    fn operators() {
        assert!(holds("WhiteElo>=2500", Some("2500")));
        assert!(!holds("WhiteElo>2500", Some("2500")));
        assert!(holds("WhiteElo>2500", Some("2600")));
        // Numeric, not byte order: 900 < 2500.
        assert!(holds("WhiteElo<2500", Some("900")));
        assert!(holds("WhiteElo<=2500", Some("02500")));
        assert!(holds("Score>-1.5", Some("-1.25")));
        assert!(holds("Score<0.5", Some("0.25")));
        // White space around a number leaves it a number, on either side.
        assert!(!holds("WhiteElo>= 2500", Some("900")));
        assert!(holds("WhiteElo>= 2500 ", Some("2600")));
        assert!(holds("WhiteElo<2500", Some(" 900")));
        assert!(holds(
            "X<99999999999999999999",
            Some("99999999999999999998")
        ));
        // A non-number compares bytewise.
        // "?" sorts after the digits.
        assert!(!holds("WhiteElo<2500", Some("?")));
        assert!(holds("WhiteElo>2500", Some("?")));
        assert!(holds("Date>=2024.01.01", Some("2024.03.15")));
        assert!(!holds("Date>=2024.01.01", Some("2023.12.31")));
        assert!(holds("Result=1-0", Some("1-0")));
        assert!(!holds("Result=1-0", Some("0-1")));
        assert!(holds("Result!=1-0", Some("0-1")));
        assert!(holds("Event~Classical", Some("Rated Classical game")));
        assert!(!holds("Event~^Classical", Some("Rated Classical game")));
        assert!(holds("Variant!~960", Some("Standard")));
        assert!(holds("Event=", Some("")));
    }

    #[test]
    fn missing_tags_satisfy_only_the_negations() {
        for (expr, want) in [
            ("A=x", false),
            ("A!=x", true),
            ("A~x", false),
            ("A!~x", true),
            ("A<x", false),
            ("A<=x", false),
            ("A>x", false),
            ("A>=x", false),
        ] {
            assert_eq!(holds(expr, None), want, "{expr}");
        }
    }

    #[test]
    fn values_are_unescaped() {
        assert!(holds(r#"White=Smith "Jr""#, Some(r#"Smith \"Jr\""#)));
        assert!(holds(r"Site~\\", Some(r"a\\b")));
    }

    #[test]
    fn an_expression_that_is_a_workflow_command_starts_no_line_as_one() {
        for expr in ["::error title=T::Injected", " ::warning::x", "::"] {
            let e = TagExpr::parse(expr).unwrap_err();
            let text = e.to_string();
            assert!(
                text.lines().all(|l| !l.trim_start().starts_with("::")),
                "{text}"
            );
            assert!(text.contains("\\u{3a}:"), "{text}");
        }
        // The caret still points at the fault, past the escaped colon.
        let e = ExprError {
            expr: "::abc".into(),
            at: 3..4,
            message: "m".into(),
        };
        assert_eq!(e.to_string(), "m\n  \\u{3a}:abc\n          ^");
    }

    #[test]
    fn malformed_expressions_point_at_the_fault() {
        let e = TagExpr::parse("WhiteElo>>2500").unwrap_err();
        assert_eq!(e.at, 8..10);
        assert!(
            e.to_string().ends_with("\n  WhiteElo>>2500\n          ^^"),
            "{e}"
        );
        let e = TagExpr::parse("WhiteElo 2500").unwrap_err();
        assert_eq!(e.at, 8..9);
        let e = TagExpr::parse("WhiteElo").unwrap_err();
        assert_eq!(e.at, 8..9);
        assert!(e.message.contains("expected an operator"));
        let e = TagExpr::parse(">=2500").unwrap_err();
        assert_eq!(e.at, 0..1);
        let e = TagExpr::parse("Event~(a").unwrap_err();
        assert_eq!(e.at, 6..8);
        assert!(e.message.starts_with("invalid regular expression"), "{e}");
        let e = TagExpr::parse("Event==x").unwrap_err();
        assert_eq!(e.at, 5..7);
    }

    #[test]
    fn selectors_share_names() {
        let exprs: Vec<_> = ["WhiteElo>=2000", "BlackElo>=2000", "WhiteElo<2500"]
            .iter()
            .map(|e| TagExpr::parse(e).unwrap())
            .collect();
        let s = Selector::new(&exprs);
        assert_eq!(s.names().len(), 2);
        let values = [Some(b"2100".as_slice()), Some(b"2050".as_slice())];
        assert!(s.matches(|i| values[i]));
        let values = [Some(b"2600".as_slice()), Some(b"2050".as_slice())];
        assert!(!s.matches(|i| values[i]));
    }

    #[test]
    fn every_expression_notes_its_tag_even_after_one_fails() {
        let exprs: Vec<_> = ["WhiteElo>=2500", "Event=x"]
            .iter()
            .map(|e| TagExpr::parse(e).unwrap())
            .collect();
        let s = Selector::new(&exprs);
        assert_eq!(unseen_names(&exprs), ["WhiteElo", "Event"]);
        // WhiteElo fails first: Event is still noted (the clones share the flag).
        let values = [Some(b"1000".as_slice()), Some(b"y".as_slice())];
        assert!(!s.matches(|i| values[i]));
        assert!(exprs.iter().all(TagExpr::was_seen));
        assert!(unseen_names(&exprs).is_empty());
    }

    #[test]
    fn a_selector_names_its_unseen_tags_once_in_order() {
        let exprs: Vec<_> = ["event~a", "WhiteElo>=2500", "event!=b", "Xyzzy=1"]
            .iter()
            .map(|e| TagExpr::parse(e).unwrap())
            .collect();
        let s = Selector::new(&exprs).with_speeds(&[Speed::Blitz]);
        assert_eq!(s.unseen_names(), ["event", "WhiteElo", "Xyzzy"]);
        // A game with WhiteElo (names: event, WhiteElo, Xyzzy, TimeControl).
        let values = [None, Some(b"2600".as_slice()), None, None];
        assert!(!s.matches(|i| values[i]));
        assert_eq!(s.unseen_names(), ["event", "Xyzzy"]);
        // The closest names come from the inputs' first tag lines; a
        // stream that cannot be read again gives none.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn");
        std::fs::write(&path, "[Event \"x\"]\n[WhiteElo \"1\"]\n\n*\n").unwrap();
        let unseen = s.unseen(&[crate::pipeline::Input::File(path)]);
        assert_eq!(
            unseen,
            [
                ("event".to_string(), Some("Event".to_string())),
                ("Xyzzy".to_string(), None)
            ]
        );
        assert_eq!(
            unseen_tag_warning("event", Some("Event"), "tags="),
            "no game held the tag event named by tags= (tag names are case-sensitive); did you mean Event?"
        );
        assert_eq!(
            closest_tag_names(&["event"], &[crate::pipeline::Input::Stdin]),
            [("event".to_string(), None)]
        );
    }

    #[test]
    fn names_are_read_from_the_start_of_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn");
        std::fs::write(
            &path,
            "[Event \"x\"]\r\n [WhiteElo \"2500\"]\n[Event \"y\"]\n\n1. e4 *\n",
        )
        .unwrap();
        let inputs = [
            crate::pipeline::Input::Stdin,
            crate::pipeline::Input::File(path),
            crate::pipeline::Input::File(dir.path().join("missing.pgn")),
        ];
        assert_eq!(tag_names_at_start(&inputs), ["Event", "WhiteElo"]);
    }

    #[test]
    fn nearest_names() {
        assert_eq!(edit_distance("whiteelo", "WhiteElo"), 0);
        assert_eq!(edit_distance("WhiteEl", "WhiteElo"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        let seen = ["White", "WhiteElo", "BlackElo", "Event"];
        assert_eq!(closest("whiteelo", seen), Some("WhiteElo"));
        assert_eq!(closest("WhitElo", seen), Some("WhiteElo"));
        assert_eq!(closest("Evnt", seen), Some("Event"));
        assert_eq!(closest("TimeControl", seen), None);
        // A short name is near only a name one edit away.
        let seen = ["FEN", "ECO", "Event", "White"];
        assert_eq!(closest("E", seen), None);
        assert_eq!(closest("X", seen), None);
        assert_eq!(closest("Ec", seen), Some("ECO"));
        assert_eq!(closest("Ev", seen), None);
        assert_eq!(closest("Eco", seen), Some("ECO"));
        assert_eq!(closest("Whte", seen), Some("White"));
    }

    #[test]
    fn speeds_compose_with_expressions() {
        let exprs = [TagExpr::parse("WhiteElo>=2000").unwrap()];
        let s = Selector::new(&exprs).with_speeds(&[Speed::Blitz, Speed::Unknown]);
        assert!(!s.is_empty());
        assert_eq!(s.names(), [b"WhiteElo".to_vec(), b"TimeControl".to_vec()]);
        let game = |elo: &'static str, tc: Option<&'static str>| {
            let values = [Some(elo.as_bytes()), tc.map(str::as_bytes)];
            s.judge(move |i| values[i])
        };
        assert_eq!(game("2100", Some("300+3")), (true, Some(Speed::Blitz)));
        assert_eq!(game("2100", None), (true, Some(Speed::Unknown)));
        assert_eq!(game("2100", Some("3|2")), (true, Some(Speed::Unknown)));
        assert_eq!(game("2100", Some("600+0")), (false, Some(Speed::Rapid)));
        assert_eq!(game("1900", Some("300+3")), (false, Some(Speed::Blitz)));
        // A --tag on TimeControl shares the name.
        let s = Selector::new(&[TagExpr::parse("TimeControl~^300").unwrap()])
            .with_speeds(&[Speed::Blitz]);
        assert_eq!(s.names().len(), 1);
        assert!(s.matches(|_| Some(b"300+3".as_slice())));
        assert!(!s.matches(|_| Some(b"3000".as_slice())));
        // Reading the speed selects nothing.
        let s = Selector::new(&[]).with_time_control();
        assert!(s.is_empty());
        assert_eq!(s.judge(|_| None), (true, Some(Speed::Unknown)));
        assert_eq!(Selector::new(&[]).judge(|_| None), (true, None));
    }

    #[test]
    fn the_speed_counts_against_the_name_limit() {
        let exprs: Vec<_> = (0..MAX_EXTRA_TAGS)
            .map(|i| TagExpr::parse(&format!("T{i}=x")).unwrap())
            .collect();
        assert!(Selector::new(&exprs).validate().is_ok());
        let e = Selector::new(&exprs)
            .with_speeds(&[Speed::Blitz])
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains("TimeControl"), "{e}");
    }

    #[test]
    fn decimals_compare_exactly() {
        fn d(s: &str) -> Decimal<'_> {
            Decimal::parse(s.as_bytes()).unwrap()
        }
        assert_eq!(d("-0").cmp(&d("0.000")), Ordering::Equal);
        assert_eq!(d("1.50").cmp(&d("1.5")), Ordering::Equal);
        assert_eq!(d("-2").cmp(&d("-10")), Ordering::Greater);
        assert_eq!(d("10").cmp(&d("9.99")), Ordering::Greater);
        assert_eq!(d(" 2500\t"), d("2500"));
        for bad in [
            "", " ", "-", "1.", ".5", "1e3", "12a", "+-1", "1.2.3", "- 1", "1 0",
        ] {
            assert!(Decimal::parse(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
