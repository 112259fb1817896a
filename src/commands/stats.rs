//! `pgnfen stats`: counts by class, Chess960 start positions and problems.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::class::Class;
use crate::cli::{Format, Global, StatsArgs};
use crate::commands::format::thousands;
use crate::commands::{Error, Outcome, check_inputs_exist, inputs, options};
use crate::fen::chess960;
use crate::pipeline::{self, GameInfo, Header, Job, Sink};
use crate::problem::Code;
use crate::select::Selector;

/// The per-game facts statistics need; no allocation.
#[derive(Clone, Copy, Debug)]
pub struct GameFacts {
    pub class: Class,
    pub chess960_position: Option<u16>,
    pub problems: [u16; Code::ALL.len()],
    /// `duplicate-tag` problems beyond the tags a header keeps (not in `problems`).
    pub unlisted_duplicates: u64,
    /// Whether the game satisfies the `--tag` expressions (always without any).
    pub matched: bool,
}

/// Classifies each game.
pub struct StatsJob;

impl Job for StatsJob {
    type Game = GameFacts;

    fn game(&self, header: &Header<'_>) -> GameFacts {
        facts(header)
    }
}

/// Classifies each game and tells whether it satisfies the `--tag` expressions.
pub struct TaggedStatsJob<'a>(pub &'a Selector);

impl Job for TaggedStatsJob<'_> {
    type Game = GameFacts;

    fn game(&self, header: &Header<'_>) -> GameFacts {
        if self.0.matches(|i| header.extra(i)) {
            facts(header)
        } else {
            GameFacts {
                class: Class::Standard,
                chess960_position: None,
                problems: [0; Code::ALL.len()],
                unlisted_duplicates: 0,
                matched: false,
            }
        }
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.0.names()
    }
}

fn facts(header: &Header<'_>) -> GameFacts {
    let mut problems = [0u16; Code::ALL.len()];
    if header.is_empty() {
        return GameFacts {
            class: Class::Standard,
            chess960_position: None,
            problems,
            unlisted_duplicates: 0,
            matched: true,
        };
    }
    let verdict = header.verdict();
    for p in &verdict.problems {
        let slot = &mut problems[p.problem.code as usize];
        *slot = slot.saturating_add(1);
    }
    GameFacts {
        class: verdict.class,
        chess960_position: verdict.chess960_position,
        problems,
        unlisted_duplicates: verdict.unlisted_duplicates,
        matched: true,
    }
}

/// The counts of one or more archives.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Games counted (with `--tag`: the games that satisfy it).
    pub games: u64,
    /// Games read that did not satisfy `--tag` (not in any other count).
    pub unmatched: u64,
    /// Chess960 games that do not start from a start array (no position number).
    pub chess960_unnumbered: u64,
    pub classes: [u64; Class::ALL.len()],
    pub chess960_positions: BTreeMap<u16, u64>,
    pub problems: [u64; Code::ALL.len()],
}

impl Counts {
    pub fn add(&mut self, facts: &GameFacts) {
        if !facts.matched {
            self.unmatched += 1;
            return;
        }
        self.games += 1;
        self.classes[facts.class.index()] += 1;
        if let Some(n) = facts.chess960_position {
            *self.chess960_positions.entry(n).or_default() += 1;
        } else if facts.class == Class::Chess960 {
            self.chess960_unnumbered += 1;
        }
        for (total, n) in self.problems.iter_mut().zip(facts.problems) {
            *total += u64::from(n);
        }
        self.problems[Code::DuplicateTag as usize] += facts.unlisted_duplicates;
    }

    /// Chess960 start positions, most common first (ties by number).
    pub fn top_positions(&self, n: usize) -> Vec<(u16, u64)> {
        let mut v: Vec<_> = self
            .chess960_positions
            .iter()
            .map(|(&k, &c)| (k, c))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

impl Sink<GameFacts> for Counts {
    fn begin_game(&mut self, _info: &GameInfo, game: GameFacts) -> io::Result<()> {
        self.add(&game);
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }

    fn wants_bytes(&self) -> bool {
        false
    }
}

#[derive(Serialize)]
struct JsonStats {
    games: u64,
    /// Only with `--tag`: games read that did not satisfy it.
    #[serde(skip_serializing_if = "Option::is_none")]
    unmatched: Option<u64>,
    classes: serde_json::Map<String, serde_json::Value>,
    chess960_positions: serde_json::Map<String, serde_json::Value>,
    problems: serde_json::Map<String, serde_json::Value>,
}

pub fn run(global: &Global, args: &StatsArgs) -> Result<Outcome, Error> {
    let inputs = inputs(&args.inputs);
    check_inputs_exist(&inputs)?;
    let mut counts = Counts::default();
    let tags = Selector::new(&args.tag);
    tags.validate()?;
    if tags.is_empty() {
        pipeline::run(&inputs, &StatsJob, &mut counts, &options(global))?;
    } else {
        pipeline::run(
            &inputs,
            &TaggedStatsJob(&tags),
            &mut counts,
            &options(global),
        )?;
    }
    let tagged = !tags.is_empty();
    let mut out = io::stdout().lock();
    let written = match args.format {
        Format::Json => write_json(&mut out, &counts, tagged),
        Format::Text => write_text(&mut out, &counts, tagged),
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| Error::writing("<stdout>", e))?;
    Ok(Outcome::Clean)
}

pub fn write_json(out: &mut impl Write, counts: &Counts, tagged: bool) -> io::Result<()> {
    let classes = Class::ALL
        .iter()
        .map(|c| (c.as_str().to_string(), counts.classes[c.index()].into()))
        .collect();
    let chess960_positions = counts
        .top_positions(usize::MAX)
        .into_iter()
        .map(|(n, c)| (n.to_string(), c.into()))
        .collect();
    let problems = Code::ALL
        .iter()
        .filter(|c| counts.problems[**c as usize] > 0)
        .map(|c| (c.as_str().to_string(), counts.problems[*c as usize].into()))
        .collect();
    let json = JsonStats {
        games: counts.games,
        unmatched: tagged.then_some(counts.unmatched),
        classes,
        chess960_positions,
        problems,
    };
    serde_json::to_writer(&mut *out, &json)?;
    writeln!(out)
}

fn write_text(out: &mut impl Write, counts: &Counts, tagged: bool) -> io::Result<()> {
    let pct = |n: u64| {
        if counts.games == 0 {
            0.0
        } else {
            100.0 * n as f64 / counts.games as f64
        }
    };
    writeln!(out, "{:<12} {:>12} {:>7}", "class", "games", "%")?;
    for class in Class::ALL {
        let n = counts.classes[class.index()];
        writeln!(
            out,
            "{:<12} {:>12} {:>6.2}%",
            class.as_str(),
            thousands(n),
            pct(n)
        )?;
    }
    writeln!(out, "{:<12} {:>12}", "total", thousands(counts.games))?;
    if tagged {
        writeln!(
            out,
            "{} {} read did not match --tag and are not counted",
            thousands(counts.unmatched),
            if counts.unmatched == 1 {
                "game"
            } else {
                "games"
            }
        )?;
    }
    const TOP: usize = 10;
    let top = counts.top_positions(TOP);
    let distinct = counts.chess960_positions.len();
    if !top.is_empty() {
        if distinct > TOP {
            writeln!(
                out,
                "\nChess960 start positions: the {TOP} most common of {} distinct:",
                thousands(distinct as u64)
            )?;
        } else {
            writeln!(
                out,
                "\nChess960 start positions ({distinct} distinct), most common:"
            )?;
        }
        for (n, c) in top {
            writeln!(out, "  {n:>3}  {}  {:>10}", chess960_array(n), thousands(c))?;
        }
    }
    if counts.chess960_unnumbered > 0 {
        writeln!(
            out,
            "{}{} Chess960 {} not from a start array (no position number)",
            if counts.chess960_positions.is_empty() {
                "\n"
            } else {
                ""
            },
            thousands(counts.chess960_unnumbered),
            if counts.chess960_unnumbered == 1 {
                "game"
            } else {
                "games"
            }
        )?;
    }
    if counts.problems.iter().any(|&n| n > 0) {
        writeln!(out, "\nproblems:")?;
        for code in Code::ALL {
            let n = counts.problems[code as usize];
            if n > 0 {
                writeln!(
                    out,
                    "  {:<20} {:>8} {:>10}",
                    code.as_str(),
                    code.severity().as_str(),
                    thousands(n)
                )?;
            }
        }
    }
    Ok(())
}

/// The white back rank of Chess960 start position `n`, e.g. `RNBQKBNR` for 518.
fn chess960_array(n: u16) -> String {
    chess960::array(n).map_or_else(
        || "?".repeat(8),
        |rank| rank.iter().map(|r| char::from(r.upper())).collect(),
    )
}
