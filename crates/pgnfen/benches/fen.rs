//! Throughput of the FEN model over `generated/positions.fen` of the corpus
//! (the folder `$PGNFEN_CORPUS` names; else the repository's
//! `samples/positions.fen`, far smaller): `analyse` alone, `analyse` +
//! writing one dialect (what `convert` does), and + writing all three.
//! `cargo bench --bench fen`; `python3 bench/fen_bench.py` runs python-chess on
//! the same records in the same run.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pgnfen::fen::{Dialect, VariantHint, analyse};

fn records() -> Option<Vec<Vec<u8>>> {
    let path = std::env::var_os("PGNFEN_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../samples/positions.fen"),
        |corpus| PathBuf::from(corpus).join("generated/positions.fen"),
    );
    eprintln!("records of {}", path.display());
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (PGNFEN_CORPUS)", path.display()));
    Some(
        bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

fn analyse_all(records: &[Vec<u8>]) -> usize {
    records
        .iter()
        .filter(|r| analyse(r, VariantHint::StandardLike).is_valid())
        .count()
}

fn analyse_write_all(records: &[Vec<u8>]) -> usize {
    let mut bytes = 0;
    for r in records {
        if let Some(p) = analyse(r, VariantHint::StandardLike).position {
            for d in [Dialect::Fen, Dialect::Xfen, Dialect::Shredder] {
                bytes += p.write(d, None).map_or(0, |s| s.len());
            }
        }
    }
    bytes
}

fn analyse_write_one(records: &[Vec<u8>]) -> usize {
    records
        .iter()
        .filter_map(|r| analyse(r, VariantHint::StandardLike).position)
        .map(|p| p.write(Dialect::Shredder, None).map_or(0, |s| s.len()))
        .sum()
}

fn rate(name: &str, n: usize, f: impl Fn() -> usize) {
    let _ = black_box(f());
    let rounds = 5;
    let start = Instant::now();
    for _ in 0..rounds {
        black_box(f());
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name}: {:.0} records/s (one core)",
        (n * rounds) as f64 / secs
    );
}

fn bench(c: &mut Criterion) {
    let Some(records) = records() else {
        panic!("no records read");
    };
    let n = records.len();
    rate("analyse", n, || analyse_all(&records));
    rate("analyse+write shredder", n, || analyse_write_one(&records));
    rate("analyse+write (fen, xfen, shredder)", n, || {
        analyse_write_all(&records)
    });
    let mut group = c.benchmark_group("fen");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(10);
    group.bench_function("analyse", |b| b.iter(|| analyse_all(black_box(&records))));
    group.bench_function("analyse+write shredder", |b| {
        b.iter(|| analyse_write_one(black_box(&records)))
    });
    group.bench_function("analyse+write 3 dialects", |b| {
        b.iter(|| analyse_write_all(black_box(&records)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
