//! `pgnfen stats`: counts by class, Chess960 start positions and problems, as
//! a table for people or one JSON object.

use std::io::{self, Write};

use pgnfen::fen::chess960;
use pgnfen::stats::{self, Counts};
use pgnfen::{Class, Code, Speed};

use crate::cli::{Format, Global, StatsArgs};
use crate::commands::{Error, Outcome, inputs, options};
use crate::format::thousands;

pub fn run(global: &Global, args: &StatsArgs) -> Result<Outcome, Error> {
    let options = stats::Options {
        selector: args.select.selector(),
        moves: args.moves,
        run: options(global),
    };
    let inputs = inputs(&args.inputs);
    let counts = stats::run(&inputs, &options)?;
    crate::commands::warn_unseen_tags(global, &args.select.tag, &inputs);
    let mut out = io::stdout().lock();
    let written = match args.format {
        Format::Json => counts.write_json(&mut out),
        Format::Text => write_text(&mut out, &counts, &selected_by(args)),
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| Error::writing("<stdout>", e))?;
    Ok(Outcome::Clean)
}

/// The flags that selected the games counted, as the table's note on the
/// others names them: only those given.
fn selected_by(args: &StatsArgs) -> String {
    let given = [
        ("--tag", !args.select.tag.is_empty()),
        ("--speed", !args.select.speed.is_empty()),
    ];
    let names: Vec<&str> = given.iter().filter(|g| g.1).map(|g| g.0).collect();
    names.join(" and ")
}

fn write_text(out: &mut impl Write, counts: &Counts, selected_by: &str) -> io::Result<()> {
    let tagged = counts.tagged;
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
            "{} {} read did not match {selected_by} and {} not counted",
            thousands(counts.unmatched),
            if counts.unmatched == 1 {
                "game"
            } else {
                "games"
            },
            if counts.unmatched == 1 { "is" } else { "are" }
        )?;
    }
    write_speeds(out, counts)?;
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
    if let Some(m) = &counts.moves {
        writeln!(
            out,
            "\nmoves: {} checked, {} with an illegal move, {} not checked",
            thousands(m.checked),
            thousands(m.illegal),
            thousands(m.not_checked)
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

/// The speed-by-class table: a row per speed, a column per class that has
/// games (every class column would make a wide table of zeros), and totals.
fn write_speeds(out: &mut impl Write, counts: &Counts) -> io::Result<()> {
    let classes: Vec<Class> = Class::ALL
        .into_iter()
        .filter(|c| counts.classes[c.index()] > 0)
        .collect();
    let width = |n: u64| thousands(n).len();
    // Each column as wide as its name and its largest count.
    let widths: Vec<usize> = classes
        .iter()
        .map(|c| c.as_str().len().max(width(counts.classes[c.index()])))
        .collect();
    let total_width = "total".len().max(width(counts.games));
    write!(out, "\n{:<14}", "speed")?;
    for (c, w) in classes.iter().zip(&widths) {
        write!(out, " {:>w$}", c.as_str())?;
    }
    writeln!(out, " {:>total_width$} {:>7}", "total", "%")?;
    let pct = |n: u64| {
        if counts.games == 0 {
            0.0
        } else {
            100.0 * n as f64 / counts.games as f64
        }
    };
    for speed in Speed::ALL {
        write!(out, "{:<14}", speed.as_str())?;
        for (c, w) in classes.iter().zip(&widths) {
            let n = counts.speed_classes[speed.index()][c.index()];
            write!(out, " {:>w$}", thousands(n))?;
        }
        let n = counts.speeds[speed.index()];
        writeln!(out, " {:>total_width$} {:>6.2}%", thousands(n), pct(n))?;
    }
    write!(out, "{:<14}", "total")?;
    for (c, w) in classes.iter().zip(&widths) {
        write!(out, " {:>w$}", thousands(counts.classes[c.index()]))?;
    }
    writeln!(out, " {:>total_width$}", thousands(counts.games))
}

/// The white back rank of Chess960 start position `n`, e.g. `RNBQKBNR` for 518.
fn chess960_array(n: u16) -> String {
    chess960::array(n).map_or_else(
        || "?".repeat(8),
        |rank| rank.iter().map(|r| char::from(r.upper())).collect(),
    )
}
