//! Counts the Chess960 start positions of PGN archives with the library's
//! [`Archive`] reader: every game streamed in input order, cut and classified on
//! the worker threads, with bounded memory whatever the size of the input.
//!
//! `cargo run --release --example chess960_positions -- FILE...` (plain,
//! gzip, bzip2, zstd or zip)
//!
//! Prints one line per start position, most common first: the Scharnagl
//! number, the white back rank and the number of games, then the Chess960
//! games that do not start from a start array.

use std::collections::HashMap;
use std::process::ExitCode;

use pgnfen::fen::chess960;
use pgnfen::{Archive, Class};

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: chess960_positions FILE...");
        return ExitCode::from(2);
    }
    match count(&paths) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chess960_positions: {e}");
            ExitCode::from(2)
        }
    }
}

fn count(paths: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut by_position: HashMap<u16, u64> = HashMap::new();
    let (mut games, mut unnumbered) = (0u64, 0u64);
    for game in Archive::open(paths)?.games() {
        let game = game?;
        games += 1;
        if game.class != Class::Chess960 {
            continue;
        }
        match game.chess960_position {
            Some(n) => *by_position.entry(n).or_default() += 1,
            None => unnumbered += 1,
        }
    }
    let mut positions: Vec<(u16, u64)> = by_position.into_iter().collect();
    positions.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (n, count) in &positions {
        let rank: String = chess960::array(*n)
            .map(|roles| roles.iter().map(|r| char::from(r.upper())).collect())
            .unwrap_or_default();
        println!("{n:>3}  {rank}  {count:>10}");
    }
    let chess960: u64 = positions.iter().map(|(_, c)| c).sum::<u64>() + unnumbered;
    println!(
        "{chess960} Chess960 games of {games}, {} distinct start positions, {unnumbered} not from a start array",
        positions.len()
    );
    Ok(())
}
