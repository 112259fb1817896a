//! Time controls and speed: the `TimeControl` tag read as a clock, and the
//! speed category lichess names (ultrabullet to correspondence) from its
//! estimated duration.
//!
//! # The grammar
//!
//! The value, once spaces around it are removed, is either `-` (a game
//! without a clock) or one or more *periods* joined by `:`. A period is one of
//!
//! | form    | meaning                                               |
//! |---------|-------------------------------------------------------|
//! | `M/S`   | M moves (M ≥ 1, an integer) in S seconds              |
//! | `M/S+I` | the same with an increment of I seconds per move      |
//! | `S`     | the rest of the game in S seconds (sudden death)      |
//! | `S+I`   | sudden death with an increment of I seconds per move  |
//! | `*S`    | a sandclock (hourglass) of S seconds                  |
//!
//! S and I are written in ASCII digits, with an optional fraction (`10+0.1`,
//! as cutechess and fastchess write fractional clocks). Every period must be
//! readable, but only the first decides the speed. A sudden-death or
//! sandclock period ends the game, so only the last period may be one. A
//! period of no time at all (S = 0 and no increment, or a zero increment) is
//! not a time control. Anything else — `?`, an empty value, `G/90`, `5 min`,
//! `3|2`, `0/300`, `180 + 2`, `00:05:00`, `300+3+1`, digits that are not
//! ASCII — and a game without the tag have an [`Speed::Unknown`] speed.
//!
//! # The speed
//!
//! The estimated duration E (seconds) of the first period is `S + 40×I`; for
//! `M/S` and `M/S+I` with M < 40 the period's time is scaled to 40 moves:
//! `S×40/M + 40×I` (so a day a move, `1/86400`, is correspondence); for `*S`
//! it is S. Then, comparing exactly (no floating-point rounding at the
//! boundaries):
//!
//! | E (seconds)        | speed            |
//! |--------------------|------------------|
//! | E < 30             | `ultrabullet`    |
//! | 30 ≤ E < 180       | `bullet`         |
//! | 180 ≤ E < 480      | `blitz`          |
//! | 480 ≤ E < 1500     | `rapid`          |
//! | 1500 ≤ E < 86400   | `classical`      |
//! | E ≥ 86400          | `correspondence` |
//!
//! # Examples
//!
//! | `TimeControl`          | E (s)   | speed            | base, increment |
//! |------------------------|---------|------------------|-----------------|
//! | `15`                   | 15      | `ultrabullet`    | 15, 0           |
//! | `60+0`                 | 60      | `bullet`         | 60, 0           |
//! | `10+0.1`               | 14      | `ultrabullet`    | 10, 0.1         |
//! | `120+1`                | 160     | `bullet`         | 120, 1          |
//! | `180+2`                | 260     | `blitz`          | 180, 2          |
//! | `300+3`                | 420     | `blitz`          | 300, 3          |
//! | `600+0`                | 600     | `rapid`          | 600, 0          |
//! | `900+10`               | 1300    | `rapid`          | 900, 10         |
//! | `1800+0`               | 1800    | `classical`      | 1800, 0         |
//! | `40/5400+30:1800+30`   | 6600    | `classical`      | 5400, 30        |
//! | `40/7200:3600`         | 7200    | `classical`      | 7200, 0         |
//! | `*60`                  | 60      | `bullet`         | 60, 0           |
//! | `1/86400`              | 3456000 | `correspondence` | 86400, 0        |
//! | `-`                    | —       | `correspondence` | null, null      |
//! | `?`, `G/90`, `5 min`   | —       | `unknown`        | null, null      |
//!
//! ```
//! use pgnfen::speed::{Speed, TimeControl};
//!
//! assert_eq!(Speed::of(Some(b"300+3")), Speed::Blitz);
//! assert_eq!(Speed::of(Some(b"40/5400+30:1800+30")), Speed::Classical);
//! assert_eq!(Speed::of(Some(b"3|2")), Speed::Unknown);
//! assert_eq!(Speed::of(None), Speed::Unknown);
//!
//! let tc = TimeControl::parse(b"10+0.1").expect("a time control");
//! assert_eq!((tc.base(), tc.increment()), (Some(10.0), Some(0.1)));
//! assert_eq!(tc.speed(), Speed::UltraBullet);
//! ```

use std::fmt;

/// The name of the tag a speed is read from.
pub(crate) const TAG: &[u8] = b"TimeControl";

/// How fast a game is played, as lichess names its categories, from the
/// estimated duration of its time control (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Speed {
    /// Estimated duration under 30 seconds
    UltraBullet,
    /// 30 seconds to under 3 minutes
    Bullet,
    /// 3 to under 8 minutes
    Blitz,
    /// 8 to under 25 minutes
    Rapid,
    /// 25 minutes to under a day
    Classical,
    /// A day or more, or no clock at all (`-`)
    Correspondence,
    /// No TimeControl tag, or a value that is not a time control
    Unknown,
}

impl Speed {
    /// Every speed, in the order reports list them (fastest first, unknown last).
    pub const ALL: [Speed; 7] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
        Speed::Unknown,
    ];

    /// The name the commands write: `ultrabullet`, `bullet`, `blitz`, `rapid`,
    /// `classical`, `correspondence`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultrabullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
            Speed::Unknown => "unknown",
        }
    }

    /// One line on the durations of the speed (`--help` shows it).
    pub fn description(self) -> &'static str {
        match self {
            Speed::UltraBullet => "Estimated duration under 30 seconds",
            Speed::Bullet => "30 seconds to under 3 minutes",
            Speed::Blitz => "3 to under 8 minutes",
            Speed::Rapid => "8 to under 25 minutes",
            Speed::Classical => "25 minutes to under a day",
            Speed::Correspondence => "A day or more, or no clock at all (`-`)",
            Speed::Unknown => "No TimeControl tag, or a value that is not a time control",
        }
    }

    /// The speed of a name written by [`Speed::as_str`].
    pub fn from_name(name: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The position of the speed in [`Speed::ALL`], for per-speed arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The speed of a game whose `TimeControl` tag has this value (`None`: no
    /// such tag). The value is the raw one, between the quotes: a PGN escape
    /// (`\"`, `\\`) cannot be part of a time control either way.
    pub fn of(value: Option<&[u8]>) -> Speed {
        let Some(value) = value else {
            return Speed::Unknown;
        };
        Speed::of_plain(value).unwrap_or_else(|| {
            TimeControl::read(value, false).map_or(Speed::Unknown, |tc| tc.speed())
        })
    }

    /// The speed of the form nearly every game has, `S` or `S+I` in whole
    /// seconds (lichess, chess.com), in one pass over the bytes; `None` for
    /// anything else (spaces, fractions, periods, long numbers), which the
    /// full reader decides. `stats` reads every game's value, so this is
    /// the hot path.
    fn of_plain(value: &[u8]) -> Option<Speed> {
        let (mut seconds, mut increment) = (0u64, 0u64);
        let (mut digits, mut plus) = (0usize, false);
        for &b in value {
            match b {
                b'0'..=b'9' => {
                    let d = u64::from(b - b'0');
                    if plus {
                        increment = increment * 10 + d;
                    } else {
                        seconds = seconds * 10 + d;
                    }
                    digits += 1;
                    // Up to 15 digits a number: E stays far inside u64.
                    if digits > 15 {
                        return None;
                    }
                }
                b'+' if !plus && digits > 0 => {
                    plus = true;
                    digits = 0;
                }
                _ => return None,
            }
        }
        if digits == 0 {
            return None;
        }
        if seconds == 0 && increment == 0 {
            // A period of no time.
            return Some(Speed::Unknown);
        }
        let e = seconds + 40 * increment;
        Some(match e {
            0..30 => Speed::UltraBullet,
            30..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            1500..86400 => Speed::Classical,
            _ => Speed::Correspondence,
        })
    }
}

impl std::str::FromStr for Speed {
    type Err = crate::ParseNameError;

    /// A name written by [`Speed::as_str`], in any case (`"Blitz"`).
    ///
    /// ```
    /// use pgnfen::Speed;
    /// assert_eq!("Blitz".parse::<Speed>(), Ok(Speed::Blitz));
    /// assert!("lightning".parse::<Speed>().unwrap_err().to_string().ends_with("classical, correspondence or unknown"));
    /// ```
    fn from_str(s: &str) -> Result<Speed, crate::ParseNameError> {
        crate::ParseNameError::find(
            &Speed::ALL,
            Speed::as_str,
            "speed",
            s,
            "ultrabullet, bullet, blitz, rapid, classical, correspondence or unknown",
        )
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A number of seconds as written: its digits (for the exact speed), and the
/// nearest `f64` (for export).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seconds<'a> {
    /// Units of 10⁻¹⁸ s; the integer part saturates at `Seconds::CAP` seconds
    /// (far beyond any boundary) and fraction digits past the 18th are not
    /// counted here (see `exact`).
    atto: u128,
    /// Whether `atto` is the value: no integer part saturated, no nonzero
    /// fraction digit past the 18th. When not, the speed is decided from
    /// `digits` in arbitrary precision (values no clock writes, but a time
    /// of 10⁻¹⁹ s is still not zero).
    exact: bool,
    /// The number as written (ASCII digits and at most one dot).
    digits: &'a [u8],
    /// The value, rounded to the nearest `f64` (infinite for absurdly long
    /// numbers); NaN when only the speed was asked for ([`Speed::of`] skips
    /// this conversion, the costliest step of reading a value).
    value: f64,
}

impl<'a> Seconds<'a> {
    /// Integer parts are saturated here (≈ 31 million years): the exact
    /// arithmetic then stays far inside `u128`.
    const CAP: u128 = 1_000_000_000_000_000;
    const SCALE: u128 = 1_000_000_000_000_000_000;

    /// The value in seconds.
    pub fn get(self) -> f64 {
        self.value
    }

    fn is_zero(self) -> bool {
        self.exact && self.atto == 0
    }

    /// Digits with an optional fraction (`10`, `0.1`); nothing else, no sign.
    /// `float`: also convert it to `f64`.
    fn parse(s: &'a [u8], float: bool) -> Option<Seconds<'a>> {
        let (int, frac) = match memchr::memchr(b'.', s) {
            Some(p) => (&s[..p], Some(&s[p + 1..])),
            None => (s, None),
        };
        let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
        if !digits(int) || frac.is_some_and(|f| !digits(f)) {
            return None;
        }
        let mut exact = true;
        let whole = int.iter().fold(0u128, |n, &b| {
            let n = n * 10 + u128::from(b - b'0');
            if n > Seconds::CAP {
                exact = false;
            }
            n.min(Seconds::CAP)
        });
        let frac = frac.unwrap_or_default();
        let mut part = 0u128;
        let mut scale = Seconds::SCALE;
        for &b in frac.iter().take(18) {
            scale /= 10;
            part += u128::from(b - b'0') * scale;
        }
        if frac.iter().skip(18).any(|&b| b != b'0') {
            exact = false;
        }
        // ASCII digits and one dot: always UTF-8 and a float Rust can read.
        let value = if float {
            std::str::from_utf8(s)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .unwrap_or(f64::INFINITY)
        } else {
            f64::NAN
        };
        Some(Seconds {
            atto: whole * Seconds::SCALE + part,
            exact,
            digits: s,
            value,
        })
    }

    /// The fraction digits written.
    fn fraction_len(self) -> usize {
        memchr::memchr(b'.', self.digits).map_or(0, |p| self.digits.len() - p - 1)
    }

    /// The decimal digits of the value × 10^`scale` (`scale` at least
    /// [`Self::fraction_len`]), least significant first.
    fn digits_scaled(self, scale: usize) -> impl Iterator<Item = u8> + 'a {
        // ASCII digits and one dot (checked by `parse`).
        std::iter::repeat_n(0, scale - self.fraction_len()).chain(
            self.digits
                .iter()
                .rev()
                .filter(|&&b| b != b'.')
                .map(|&b| b - b'0'),
        )
    }
}

/// One period of a time control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period<'a> {
    /// `M/S` or `M/S+I`: `moves` moves in `seconds`, plus `increment` per move.
    Moves {
        /// M, at least 1 (saturated at `u64::MAX`).
        moves: u64,
        /// S.
        seconds: Seconds<'a>,
        /// I, when written.
        increment: Option<Seconds<'a>>,
    },
    /// `S` or `S+I`: the rest of the game in `seconds`, plus `increment` per move.
    SuddenDeath {
        /// S.
        seconds: Seconds<'a>,
        /// I, when written.
        increment: Option<Seconds<'a>>,
    },
    /// `*S`: a sandclock of `seconds`.
    Sandclock {
        /// S.
        seconds: Seconds<'a>,
    },
}

impl<'a> Period<'a> {
    /// The upper bound (seconds, excluded) of each speed but correspondence.
    const BOUNDS: [(u128, Speed); 5] = [
        (30, Speed::UltraBullet),
        (180, Speed::Bullet),
        (480, Speed::Blitz),
        (1500, Speed::Rapid),
        (86400, Speed::Classical),
    ];

    fn parse(p: &'a [u8], float: bool) -> Option<Period<'a>> {
        if let Some(rest) = p.strip_prefix(b"*") {
            let seconds = Seconds::parse(rest, float)?;
            return (!seconds.is_zero()).then_some(Period::Sandclock { seconds });
        }
        let (moves, clock) = match memchr::memchr(b'/', p) {
            Some(at) => {
                let m = &p[..at];
                if m.is_empty() || !m.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let moves = m.iter().fold(0u64, |n, &b| {
                    n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
                });
                if moves == 0 {
                    return None;
                }
                (Some(moves), &p[at + 1..])
            }
            None => (None, p),
        };
        let (seconds, increment) = match memchr::memchr(b'+', clock) {
            Some(at) => (
                Seconds::parse(&clock[..at], float)?,
                Some(Seconds::parse(&clock[at + 1..], float)?),
            ),
            None => (Seconds::parse(clock, float)?, None),
        };
        // A period of no time: no clock at all, not a time control.
        if seconds.is_zero() && increment.is_none_or(Seconds::is_zero) {
            return None;
        }
        Some(match moves {
            Some(moves) => Period::Moves {
                moves,
                seconds,
                increment,
            },
            None => Period::SuddenDeath { seconds, increment },
        })
    }

    /// The period's time S, in seconds.
    pub fn seconds(&self) -> f64 {
        match self {
            Period::Moves { seconds, .. }
            | Period::SuddenDeath { seconds, .. }
            | Period::Sandclock { seconds } => seconds.get(),
        }
    }

    /// The increment I in seconds (0 when none is written, and for a sandclock).
    pub fn increment(&self) -> f64 {
        match self {
            Period::Moves { increment, .. } | Period::SuddenDeath { increment, .. } => {
                increment.map_or(0.0, Seconds::get)
            }
            Period::Sandclock { .. } => 0.0,
        }
    }

    /// The estimated duration as `(a×S + b×I) / den`: `(a, S, b, I, den)`
    /// (no increment: I is `None`).
    fn duration_terms(&self) -> (u128, Seconds<'a>, u128, Option<Seconds<'a>>, u128) {
        match *self {
            // S×40/M + 40×I = (40×S + 40×M×I) / M, M < 40.
            Period::Moves {
                moves,
                seconds,
                increment,
            } if moves < 40 => {
                let m = u128::from(moves);
                (40, seconds, 40 * m, increment, m)
            }
            Period::Moves {
                seconds, increment, ..
            }
            | Period::SuddenDeath { seconds, increment } => (1, seconds, 40, increment, 1),
            Period::Sandclock { seconds } => (1, seconds, 0, None, 1),
        }
    }

    /// The estimated duration E in seconds (see the module notes).
    pub fn estimated_duration(&self) -> f64 {
        match self {
            Period::Moves {
                moves,
                seconds,
                increment,
            } if *moves < 40 => {
                seconds.get() * 40.0 / *moves as f64 + 40.0 * increment.map_or(0.0, Seconds::get)
            }
            Period::Moves {
                seconds, increment, ..
            }
            | Period::SuddenDeath { seconds, increment } => {
                seconds.get() + 40.0 * increment.map_or(0.0, Seconds::get)
            }
            Period::Sandclock { seconds } => seconds.get(),
        }
    }

    /// The speed this period's estimated duration gives.
    pub fn speed(&self) -> Speed {
        let (_, seconds, _, increment, _) = self.duration_terms();
        if seconds.exact && increment.is_none_or(|i| i.exact) {
            self.speed_counted()
        } else {
            self.speed_in_full()
        }
    }

    /// [`Self::speed`] when every digit is counted in units of 10⁻¹⁸ s (the
    /// usual case).
    fn speed_counted(&self) -> Speed {
        let (a, seconds, b, increment, den) = self.duration_terms();
        let num = a * seconds.atto + b * increment.map_or(0, |i| i.atto);
        Self::BOUNDS
            .iter()
            .find(|(limit, _)| num < limit * Seconds::SCALE * den)
            .map_or(Speed::Correspondence, |&(_, speed)| speed)
    }

    /// [`Self::speed`] from every digit written: a×S + b×I, both × 10^scale,
    /// summed digit by digit, then compared with each bound × den × 10^scale.
    /// Linear in the digits (a big integer's decimal parsing is quadratic: a
    /// value of a million digits took seconds).
    fn speed_in_full(&self) -> Speed {
        let (a, seconds, b, increment, den) = self.duration_terms();
        let scale = seconds
            .fraction_len()
            .max(increment.map_or(0, Seconds::fraction_len));
        // a×S + b×I in decimal digits, least significant first.
        let mut sum: Vec<u8> = Vec::new();
        let mut s = seconds.digits_scaled(scale);
        let mut i = increment.map(|i| i.digits_scaled(scale));
        let mut carry = 0u128;
        loop {
            let (sd, id) = (s.next(), i.as_mut().and_then(Iterator::next));
            if sd.is_none() && id.is_none() {
                break;
            }
            let t = a * u128::from(sd.unwrap_or(0)) + b * u128::from(id.unwrap_or(0)) + carry;
            sum.push((t % 10) as u8);
            carry = t / 10;
        }
        while carry > 0 {
            sum.push((carry % 10) as u8);
            carry /= 10;
        }
        while sum.last() == Some(&0) {
            sum.pop();
        }
        // Whether the sum is below bound × 10^scale (bound's digits followed
        // by `scale` zeros).
        let below = |bound: u128| {
            let digits: Vec<u8> = bound.to_string().bytes().rev().map(|b| b - b'0').collect();
            let len = scale + digits.len();
            if sum.len() != len {
                return sum.len() < len;
            }
            let bound_digit = |k: usize| if k < scale { 0 } else { digits[k - scale] };
            (0..len)
                .rev()
                .find(|&k| sum[k] != bound_digit(k))
                .is_some_and(|k| sum[k] < bound_digit(k))
        };
        Self::BOUNDS
            .iter()
            .find(|(limit, _)| below(limit * den))
            .map_or(Speed::Correspondence, |&(_, speed)| speed)
    }
}

/// A `TimeControl` value that follows the grammar (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl<'a> {
    /// `-`: played without a clock.
    NoClock,
    /// One or more periods.
    Clock {
        /// The first period, which decides the speed.
        first: Period<'a>,
        /// How many periods the value holds.
        periods: usize,
    },
}

impl<'a> TimeControl<'a> {
    /// Reads a raw `TimeControl` value; `None` when it is not a time control.
    pub fn parse(value: &'a [u8]) -> Option<TimeControl<'a>> {
        TimeControl::read(value, true)
    }

    /// [`TimeControl::parse`]; `float`: convert the numbers to `f64` too
    /// (without, only the speed of the result means anything).
    fn read(value: &'a [u8], float: bool) -> Option<TimeControl<'a>> {
        let value = trim_spaces(value);
        if value == b"-" {
            return Some(TimeControl::NoClock);
        }
        let mut first = None;
        let mut periods = 0;
        let mut ended = false;
        for p in value.split(|&b| b == b':') {
            // A sudden-death or sandclock period ends the game: nothing after it.
            if ended {
                return None;
            }
            let period = Period::parse(p, float)?;
            ended = !matches!(period, Period::Moves { .. });
            first.get_or_insert(period);
            periods += 1;
        }
        first.map(|first| TimeControl::Clock { first, periods })
    }

    /// The speed of the time control.
    pub fn speed(&self) -> Speed {
        match self {
            TimeControl::NoClock => Speed::Correspondence,
            TimeControl::Clock { first, .. } => first.speed(),
        }
    }

    /// The first period's time in seconds (`None` for `-`).
    pub fn base(&self) -> Option<f64> {
        match self {
            TimeControl::NoClock => None,
            TimeControl::Clock { first, .. } => Some(first.seconds()),
        }
    }

    /// The first period's increment in seconds, 0 when none is written
    /// (`None` for `-`).
    pub fn increment(&self) -> Option<f64> {
        match self {
            TimeControl::NoClock => None,
            TimeControl::Clock { first, .. } => Some(first.increment()),
        }
    }

    /// The estimated duration of the first period in seconds (`None` for `-`).
    pub fn estimated_duration(&self) -> Option<f64> {
        match self {
            TimeControl::NoClock => None,
            TimeControl::Clock { first, .. } => Some(first.estimated_duration()),
        }
    }
}

/// Spaces around a value are not part of it (`" 300+3 "` is `300+3`); other
/// blanks are (a tab is no more a time control than `3|2`).
fn trim_spaces(value: &[u8]) -> &[u8] {
    let start = value.iter().position(|&b| b != b' ').unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(start, |p| p + 1);
    &value[start..end]
}

/// A game's speed together with the clock of its first period, as `export`
/// and the Python `Game` report them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// The speed ([`Speed::Unknown`] when the tag is missing or unreadable).
    pub speed: Speed,
    /// The first period's time in seconds; `None` for `-` and unknown.
    pub base: Option<f64>,
    /// The first period's increment in seconds (0 when none is written);
    /// `None` for `-` and unknown.
    pub increment: Option<f64>,
}

impl Clock {
    /// The clock of a raw `TimeControl` value (`None`: no such tag).
    pub fn of(value: Option<&[u8]>) -> Clock {
        match value.and_then(TimeControl::parse) {
            Some(tc) => Clock {
                speed: tc.speed(),
                base: tc.base(),
                increment: tc.increment(),
            },
            None => Clock {
                speed: Speed::Unknown,
                base: None,
                increment: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed(v: &str) -> Speed {
        Speed::of(Some(v.as_bytes()))
    }

    #[test]
    fn every_form_reads() {
        for (value, want, base, inc) in [
            ("300+3", Speed::Blitz, 300.0, 3.0),
            ("60", Speed::Bullet, 60.0, 0.0),
            ("10+0.1", Speed::UltraBullet, 10.0, 0.1),
            ("154.283+1.543", Speed::Blitz, 154.283, 1.543),
            ("40/5400", Speed::Classical, 5400.0, 0.0),
            ("40/5400+30:1800+30", Speed::Classical, 5400.0, 30.0),
            ("40/7200:20/3600:900+30", Speed::Classical, 7200.0, 0.0),
            ("*60", Speed::Bullet, 60.0, 0.0),
            ("1/86400", Speed::Correspondence, 86400.0, 0.0),
            ("0+1", Speed::Bullet, 0.0, 1.0),
            (" 300+3 ", Speed::Blitz, 300.0, 3.0),
            ("36000", Speed::Classical, 36000.0, 0.0),
        ] {
            let tc = TimeControl::parse(value.as_bytes()).unwrap_or_else(|| panic!("{value}"));
            assert_eq!(tc.speed(), want, "{value}");
            assert_eq!(tc.base(), Some(base), "{value}");
            assert_eq!(tc.increment(), Some(inc), "{value}");
        }
        let tc = TimeControl::parse(b"40/5400+30:1800+30").unwrap();
        assert!(matches!(tc, TimeControl::Clock { periods: 2, .. }));
        assert_eq!(TimeControl::parse(b"-"), Some(TimeControl::NoClock));
        assert_eq!(TimeControl::parse(b" - "), Some(TimeControl::NoClock));
        assert_eq!(speed("-"), Speed::Correspondence);
        let dash = Clock::of(Some(b"-"));
        assert_eq!((dash.base, dash.increment), (None, None));
        assert_eq!(Clock::of(None).speed, Speed::Unknown);
    }

    #[test]
    fn broken_values_are_unknown() {
        for value in [
            "",
            " ",
            "?",
            "G/90",
            "5 min",
            "3|2",
            "0/300",
            "180 + 2",
            "00:05:00",
            "300+3+1",
            "３００+３",
            "300+",
            "+3",
            ".5",
            "5.",
            "1e3",
            "-300",
            "0",
            "0+0",
            "*0",
            "40/0",
            "300:40/5400",
            "*60:300",
            "-:300",
            "300::60",
            "40/",
            "/300",
            "40//300",
            "*",
            "*60+1",
            "40/5400+30:",
            ":300",
            "3 00",
            "300\t",
            "40.5/300",
            "\\\"300\\\"",
            "300+-3",
            "1/2/3",
        ] {
            assert_eq!(speed(value), Speed::Unknown, "{value:?}");
            assert!(TimeControl::parse(value.as_bytes()).is_none(), "{value:?}");
        }
        assert_eq!(Speed::of(None), Speed::Unknown);
    }

    #[test]
    fn boundaries_are_exact() {
        for (below, at, speed_below, speed_at) in [
            ("29.999", "30", Speed::UltraBullet, Speed::Bullet),
            ("179", "180", Speed::Bullet, Speed::Blitz),
            ("479.9", "480", Speed::Blitz, Speed::Rapid),
            ("1499", "1500", Speed::Rapid, Speed::Classical),
            (
                "86399.999999",
                "86400",
                Speed::Classical,
                Speed::Correspondence,
            ),
        ] {
            assert_eq!(speed(below), speed_below, "{below}");
            assert_eq!(speed(at), speed_at, "{at}");
        }
        // E reached through the increment: 20 + 40×0.25 = 30, 140 + 40×1 = 180,
        // 0 + 40×12 = 480, 1100 + 40×10 = 1500, 0 + 40×2160 = 86400.
        assert_eq!(speed("20+0.25"), Speed::Bullet);
        assert_eq!(speed("20+0.2499"), Speed::UltraBullet);
        assert_eq!(speed("140+1"), Speed::Blitz);
        assert_eq!(speed("0+12"), Speed::Rapid);
        assert_eq!(speed("1100+10"), Speed::Classical);
        assert_eq!(speed("1100+9.99"), Speed::Rapid);
        assert_eq!(speed("0+2160"), Speed::Correspondence);
        // Fractions that are inexact in binary land on the boundary exactly:
        // 26 + 40×0.1 = 30, 29.9 + 40×0.0025 = 30.
        assert_eq!(speed("26+0.1"), Speed::Bullet);
        assert_eq!(speed("29.9+0.0025"), Speed::Bullet);
        assert_eq!(speed("29.999999999999+0.000000000000025"), Speed::Bullet);
        // Fewer than 40 moves: scaled to 40. 10/45 → 180; 1/2160 → 86400.
        assert_eq!(speed("10/45"), Speed::Blitz);
        assert_eq!(speed("10/44.99"), Speed::Bullet);
        assert_eq!(speed("1/2160"), Speed::Correspondence);
        assert_eq!(speed("1/2159.99"), Speed::Classical);
        assert_eq!(speed("3/13.5"), Speed::Blitz); // 13.5×40/3 = 180
        assert_eq!(speed("3/13.49"), Speed::Bullet);
    }

    #[test]
    fn digits_past_the_eighteenth_count() {
        let tiny = format!("0.{}1", "0".repeat(18)); // 10⁻¹⁹ s
        for (value, want) in [
            // A positive time, however small, is a time control.
            (tiny.clone(), Speed::UltraBullet),
            (format!("*{tiny}"), Speed::UltraBullet),
            (format!("0+{tiny}"), Speed::UltraBullet),
            (format!("40/{tiny}"), Speed::UltraBullet),
            // Zeros past the 18th digit are still no time.
            (format!("0.{}", "0".repeat(40)), Speed::Unknown),
            (
                format!("0.{}+0.{}", "0".repeat(30), "0".repeat(25)),
                Speed::Unknown,
            ),
            // E = 29.999999999999999999 + 40 × 2.5×10⁻²⁰ = 30 exactly.
            (
                format!("29.{}+0.{}25", "9".repeat(18), "0".repeat(19)),
                Speed::Bullet,
            ),
            (
                format!("29.{}+0.{}24", "9".repeat(18), "0".repeat(19)),
                Speed::UltraBullet,
            ),
            (format!("29.{}", "9".repeat(60)), Speed::UltraBullet),
            (format!("30.{}1", "0".repeat(60)), Speed::Bullet),
            // Scaled to 40 moves: 13.5 × 40 / 3 = 180.
            (format!("3/13.4{}", "9".repeat(40)), Speed::Bullet),
            (format!("3/13.5{}1", "0".repeat(40)), Speed::Blitz),
            (format!("1/2159.{}", "9".repeat(30)), Speed::Classical),
            // A saturated integer part next to a long fraction.
            (
                format!("{}.{}1", "9".repeat(40), "0".repeat(30)),
                Speed::Correspondence,
            ),
        ] {
            assert_eq!(speed(&value), want, "{value}");
            let tc = TimeControl::parse(value.as_bytes());
            assert_eq!(tc.map_or(Speed::Unknown, |tc| tc.speed()), want, "{value}");
        }
    }

    #[test]
    fn moves_per_period_scale_only_below_forty() {
        // 3 moves in 11.25 s: 150 s for 40 moves.
        assert_eq!(
            TimeControl::parse(b"3/11.25").unwrap().estimated_duration(),
            Some(150.0)
        );
        // 60 moves in 1000 s: not scaled down.
        assert_eq!(speed("60/1000"), Speed::Rapid);
        assert_eq!(speed("39/1000"), Speed::Rapid); // 1025.6
        assert_eq!(speed("20/1000"), Speed::Classical); // 2000
        // The second period does not count.
        assert_eq!(speed("40/120:86400"), Speed::Bullet);
    }

    #[test]
    fn huge_numbers_saturate() {
        let big = "9".repeat(400);
        assert_eq!(speed(&big), Speed::Correspondence);
        assert_eq!(speed(&format!("1/{big}")), Speed::Correspondence);
        assert_eq!(speed(&format!("{big}/30")), Speed::Bullet);
        assert_eq!(speed(&format!("0.{big}")), Speed::UltraBullet);
        let tc = TimeControl::parse(big.as_bytes()).unwrap();
        assert_eq!(tc.base(), Some(f64::INFINITY));
    }

    #[test]
    fn the_plain_path_agrees_with_the_reader() {
        let mut values: Vec<String> = Vec::new();
        for s in [
            "0", "1", "29", "30", "179", "180", "479", "480", "1499", "1500", "86399", "86400",
        ] {
            values.push(s.to_string());
            for i in ["0", "1", "2", "5", "37", "2160", "", "x"] {
                values.push(format!("{s}+{i}"));
            }
        }
        values.extend(
            [
                "999999999999999",
                "9999999999999999",
                "1+999999999999999",
                "+",
                "1++1",
                "00+00",
                "007+1",
            ]
            .map(String::from),
        );
        for v in &values {
            let full = TimeControl::parse(v.as_bytes()).map_or(Speed::Unknown, |tc| tc.speed());
            if let Some(plain) = Speed::of_plain(v.as_bytes()) {
                assert_eq!(plain, full, "{v}");
            }
            assert_eq!(Speed::of(Some(v.as_bytes())), full, "{v}");
        }
    }

    #[test]
    fn a_value_of_a_million_digits_is_read_exactly() {
        // Within 10^-1,000,000 of a bound, on either side.
        let nines = "9".repeat(1_000_000);
        let tiny = format!("0.{}1", "0".repeat(999_999));
        for (value, speed) in [
            (format!("179.{nines}"), Speed::Bullet),
            (format!("179.{nines}+{tiny}"), Speed::Blitz),
            (format!("29.{nines}+0"), Speed::UltraBullet),
            (format!("30.{}1", "0".repeat(999_999)), Speed::Bullet),
        ] {
            assert_eq!(Speed::of(Some(value.as_bytes())), speed, "{}…", &value[..8]);
        }
    }

    proptest::proptest! {
        /// The arbitrary-precision path agrees with the counted one wherever
        /// both apply (up to 18 fraction digits).
        #[test]
        fn both_exact_paths_agree(
            moves in proptest::option::of(1u64..80),
            sandclock in proptest::bool::ANY,
            seconds in (0u64..100_000, proptest::option::of(0u64..1_000_000_000_000_000_000)),
            increment in proptest::option::of((0u64..3000, proptest::option::of(0u64..1_000_000))),
        ) {
            let number = |(whole, frac): (u64, Option<u64>)| match frac {
                Some(f) => format!("{whole}.{f}"),
                None => whole.to_string(),
            };
            let clock = match increment {
                Some(i) => format!("{}+{}", number(seconds), number(i)),
                None => number(seconds),
            };
            let value = match (sandclock, moves) {
                (true, _) => format!("*{}", number(seconds)),
                (false, Some(m)) => format!("{m}/{clock}"),
                (false, None) => clock,
            };
            if let Some(TimeControl::Clock { first, .. }) = TimeControl::parse(value.as_bytes()) {
                proptest::prop_assert_eq!(first.speed_counted(), first.speed_in_full(), "{}", value);
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for (i, s) in Speed::ALL.iter().enumerate() {
            assert_eq!(s.index(), i);
            assert_eq!(Speed::from_name(s.as_str()), Some(*s));
            assert_eq!(s.to_string(), s.as_str());
            assert_eq!(s.as_str().parse::<Speed>(), Ok(*s));
        }
        assert_eq!(Speed::from_name("ultraBullet"), None);
    }
}
