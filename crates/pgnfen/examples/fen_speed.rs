//! Records per second of the FEN model on one core: `analyse` (parse + checks +
//! classify) alone, on the 8×8 records only, and with writing all three dialects.
//!
//! Usage: cargo run --release --example fen_speed -- FILE [SECONDS]

use std::hint::black_box;
use std::time::{Duration, Instant};

use pgnfen::fen::{BoardSize, Dialect, VariantHint, analyse};

fn rate(records: &[&[u8]], seconds: f64, work: impl Fn(&[u8]) -> usize) -> f64 {
    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut done = 0usize;
    while start.elapsed() < budget {
        for r in records {
            black_box(work(r));
        }
        done += records.len();
    }
    done as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: fen_speed FILE [SECONDS]");
        std::process::exit(2);
    };
    let seconds: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let all: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.is_empty())
        .collect();
    let eight: Vec<&[u8]> = all
        .iter()
        .copied()
        .filter(|r| analyse(r, VariantHint::StandardLike).board == Some(BoardSize::Eight))
        .collect();
    let classify = |r: &[u8]| analyse(r, VariantHint::StandardLike).class as usize;
    let write = |r: &[u8]| {
        analyse(r, VariantHint::StandardLike)
            .position
            .map_or(0, |p| {
                [Dialect::Fen, Dialect::Xfen, Dialect::Shredder]
                    .iter()
                    .map(|&d| p.write(d, None).map_or(0, |s| s.len()))
                    .sum()
            })
    };
    println!("records: {} ({} on 8x8)", all.len(), eight.len());
    println!(
        "analyse, all records:          {:>10.0} records/s/core",
        rate(&all, seconds, classify)
    );
    println!(
        "analyse, 8x8 records:          {:>10.0} records/s/core",
        rate(&eight, seconds, classify)
    );
    println!(
        "analyse + write 3 dialects:    {:>10.0} records/s/core",
        rate(&all, seconds, write)
    );
}
