//! The engine's jobs of counting: each game's class, problems and speed, found
//! on the worker threads.

use super::*;
use crate::problem::ProblemCounts;

/// The per-game facts statistics need; no allocation.
#[derive(Clone, Copy, Debug)]
pub struct GameFacts {
    /// The game's class.
    pub class: Class,
    /// Its Chess960 start position (0–959), for a Chess960 game from a start array.
    pub chess960_position: Option<u16>,
    /// Problems found, by [`Code`].
    pub problems: ProblemCounts,
    /// `duplicate-tag` problems beyond the tags a header keeps (not in `problems`).
    pub unlisted_duplicates: u64,
    /// The game's speed, from its `TimeControl` tag.
    pub speed: Speed,
    /// Whether the game satisfies the `--tag` expressions and `--speed` list
    /// (always without any).
    pub matched: bool,
}

/// The one extra tag [`StatsJob`] reads.
static TIME_CONTROL: std::sync::LazyLock<[Vec<u8>; 1]> =
    std::sync::LazyLock::new(|| [crate::speed::TAG.to_vec()]);

/// The pipeline job of counting: classifies each game and reads its speed.
#[derive(Debug)]
pub struct StatsJob;

impl Job for StatsJob {
    type Game = GameFacts;

    fn game(&self, header: &Header<'_>) -> GameFacts {
        facts(header, Speed::of(header.extra(0)))
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        &*TIME_CONTROL
    }
}

/// Classifies each game and tells whether it satisfies the `--tag`
/// expressions and `--speed` list of the selector, which must read the
/// speed ([`Selector::with_time_control`]; unknown otherwise).
pub(crate) struct TaggedStatsJob<'a>(pub &'a Selector);

impl Job for TaggedStatsJob<'_> {
    type Game = GameFacts;

    fn game(&self, header: &Header<'_>) -> GameFacts {
        let (matched, speed) = self.0.judge(|i| header.extra(i));
        let speed = speed.unwrap_or(Speed::Unknown);
        if matched {
            facts(header, speed)
        } else {
            GameFacts {
                class: Class::Standard,
                chess960_position: None,
                problems: ProblemCounts::default(),
                unlisted_duplicates: 0,
                speed,
                matched: false,
            }
        }
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.0.names()
    }
}

fn facts(header: &Header<'_>, speed: Speed) -> GameFacts {
    if header.is_empty() {
        return GameFacts {
            class: Class::Standard,
            chess960_position: None,
            problems: ProblemCounts::default(),
            unlisted_duplicates: 0,
            speed,
            matched: true,
        };
    }
    let tally = header.tally();
    GameFacts {
        class: tally.class,
        chess960_position: tally.chess960_position,
        problems: tally.problems,
        unlisted_duplicates: header.unlisted(),
        speed,
        matched: true,
    }
}
