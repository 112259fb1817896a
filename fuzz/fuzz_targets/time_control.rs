//! `cargo fuzz run time_control`: the reader of `TimeControl` values agrees
//! with a second reader written here from the grammar alone (the documented
//! decisions included: only spaces are trimmed, a period of no time is none,
//! `M` is at least 1), on whether a value is a time control, on how many
//! periods it has and, for numbers of up to 9 fraction digits, on the speed,
//! computed here in whole nanoseconds. The fast path of [`Speed::of`] gives the
//! full reader's speed; [`Clock::of`] gives its speed, and base and increment
//! that are finite or infinite but never negative or NaN.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnfen::speed::{Clock, Speed, TimeControl};

/// A number of seconds as the reference reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    /// In nanoseconds: at most 12 integer digits and 9 fraction digits
    /// (leading and trailing zeros aside).
    Nanos(u128),
    /// Beyond that range (and so not zero): the speed is not compared.
    Far,
}

impl Num {
    fn is_zero(self) -> bool {
        self == Num::Nanos(0)
    }
}

/// `DIGITS` or `DIGITS.DIGITS`, nothing else.
fn number(s: &[u8]) -> Option<Num> {
    let (int, frac) = match s.iter().position(|&b| b == b'.') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let all_digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    if !all_digits(int) || frac.is_some_and(|f| !all_digits(f)) {
        return None;
    }
    let int = &int[int.iter().position(|&b| b != b'0').unwrap_or(int.len())..];
    let frac = frac.unwrap_or_default();
    let frac = &frac[..frac.iter().rposition(|&b| b != b'0').map_or(0, |p| p + 1)];
    if int.len() > 12 || frac.len() > 9 {
        return Some(Num::Far);
    }
    let mut nanos = 0u128;
    for &b in int {
        nanos = nanos * 10 + u128::from(b - b'0');
    }
    for i in 0..9 {
        nanos = nanos * 10 + frac.get(i).map_or(0, |&b| u128::from(b - b'0'));
    }
    Some(Num::Nanos(nanos))
}

#[derive(Clone, Copy, Debug)]
enum Period {
    /// `M/S[+I]`, M saturated far above 40.
    Moves(u128, Num, Option<Num>),
    /// `S[+I]`.
    SuddenDeath(Num, Option<Num>),
    /// `*S`.
    Sandclock(Num),
}

fn period(p: &[u8]) -> Option<Period> {
    if let Some(rest) = p.strip_prefix(b"*") {
        let s = number(rest)?;
        return (!s.is_zero()).then_some(Period::Sandclock(s));
    }
    let (moves, clock) = match p.iter().position(|&b| b == b'/') {
        Some(at) => {
            let m = &p[..at];
            if m.is_empty() || !m.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let moves = m
                .iter()
                .fold(0u128, |n, &b| (n * 10 + u128::from(b - b'0')).min(1 << 64));
            if moves == 0 {
                return None;
            }
            (Some(moves), &p[at + 1..])
        }
        None => (None, p),
    };
    let (s, i) = match clock.iter().position(|&b| b == b'+') {
        Some(at) => (number(&clock[..at])?, Some(number(&clock[at + 1..])?)),
        None => (number(clock)?, None),
    };
    if s.is_zero() && i.is_none_or(Num::is_zero) {
        return None;
    }
    Some(match moves {
        Some(m) => Period::Moves(m, s, i),
        None => Period::SuddenDeath(s, i),
    })
}

/// The value's periods (none for `-`), or `None` when it is no time control.
fn read(value: &[u8]) -> Option<Vec<Period>> {
    let start = value.iter().position(|&b| b != b' ').unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(start, |p| p + 1);
    let value = &value[start..end];
    if value == b"-" {
        return Some(Vec::new());
    }
    let periods: Vec<Period> = value
        .split(|&b| b == b':')
        .map(period)
        .collect::<Option<_>>()?;
    // Sudden death and sandclock end the game: only the last may be one.
    let last = periods.len() - 1;
    periods[..last]
        .iter()
        .all(|p| matches!(p, Period::Moves(..)))
        .then_some(periods)
}

/// The speed of the first period, when every number is in range.
fn speed(first: Period) -> Option<Speed> {
    let nanos = |n: Num| match n {
        Num::Nanos(v) => Some(v),
        Num::Far => None,
    };
    let inc = |i: Option<Num>| i.map_or(Some(0), nanos);
    // E × den in nanoseconds.
    let (e, den) = match first {
        Period::Moves(m, s, i) if m < 40 => (40 * nanos(s)? + 40 * m * inc(i)?, m),
        Period::Moves(_, s, i) | Period::SuddenDeath(s, i) => (nanos(s)? + 40 * inc(i)?, 1),
        Period::Sandclock(s) => (nanos(s)?, 1),
    };
    let below = |seconds: u128| e < seconds * 1_000_000_000 * den;
    Some(if below(30) {
        Speed::UltraBullet
    } else if below(180) {
        Speed::Bullet
    } else if below(480) {
        Speed::Blitz
    } else if below(1500) {
        Speed::Rapid
    } else if below(86400) {
        Speed::Classical
    } else {
        Speed::Correspondence
    })
}

fuzz_target!(|data: &[u8]| {
    let ours = TimeControl::parse(data);
    let reference = read(data);
    assert_eq!(ours.is_some(), reference.is_some(), "{data:?}: {ours:?}");
    let full = ours.map_or(Speed::Unknown, |tc| tc.speed());
    match (ours, &reference) {
        (Some(TimeControl::NoClock), Some(periods)) => assert!(periods.is_empty()),
        (Some(TimeControl::Clock { periods, .. }), Some(expected)) => {
            assert_eq!(periods, expected.len(), "{data:?}");
            if let Some(speed) = speed(expected[0]) {
                assert_eq!(full, speed, "{data:?}");
            }
        }
        _ => {}
    }
    assert_eq!(Speed::of(Some(data)), full, "{data:?}");
    let clock = Clock::of(Some(data));
    assert_eq!(clock.speed, full);
    let clocked = matches!(ours, Some(TimeControl::Clock { .. }));
    assert_eq!(clock.base.is_some(), clocked);
    assert_eq!(clock.increment.is_some(), clocked);
    for seconds in [clock.base, clock.increment].into_iter().flatten() {
        assert!(seconds >= 0.0, "{data:?}: {clock:?}");
    }
});
