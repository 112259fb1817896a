//! Scanner throughput: builds ~200 MB by repeating the corpus `.pgn` files
//! (the folder `$PGNFEN_CORPUS` names, or the files/directories given as
//! arguments, else the repository's samples/), scans it
//! with `Scanner::feed` in 4 MiB pieces, and times `grep -c '^\[Event '` on the
//! same bytes written to a temporary file.
//!
//! `cargo run --release --example scan_speed [-- [--mb N] [--runs N] [--no-grep] [PATH...]]`
//!
//! For instruction counts, one run without grep:
//! `valgrind --tool=callgrind --toggle-collect='*Scanner*feed*' target/release/examples/scan_speed --mb 1 --runs 1 --no-grep FILE`

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pgnfen::pgn::scan::{Event, Scanner};

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        for q in v {
            collect(&q, out);
        }
    } else if p.extension().is_some_and(|e| e == "pgn") {
        out.push(p.to_path_buf());
    }
}

fn main() {
    let mut mb = 200usize;
    let mut runs = 5usize;
    let mut grep = true;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--mb" {
            mb = args.next().and_then(|v| v.parse().ok()).unwrap_or(mb);
        } else if a == "--runs" {
            runs = args
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(runs)
                .max(1);
        } else if a == "--no-grep" {
            grep = false;
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    if paths.is_empty() {
        paths.push(std::env::var_os("PGNFEN_CORPUS").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples"),
            PathBuf::from,
        ));
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    let mut unit = Vec::new();
    for f in &files {
        let mut d = std::fs::read(f).unwrap_or_default();
        // keep games apart: every file ends with a blank line
        d.extend_from_slice(b"\n\n");
        unit.extend_from_slice(&d);
    }
    if unit.is_empty() {
        eprintln!("no .pgn files under {paths:?}");
        std::process::exit(2);
    }
    let target = mb << 20;
    let mut data = Vec::with_capacity(target + unit.len());
    while data.len() < target {
        data.extend_from_slice(&unit);
    }
    println!(
        "input: {} files repeated to {:.1} MB",
        files.len(),
        data.len() as f64 / 1e6
    );

    let piece = 4 << 20;
    let mut best = f64::MAX;
    let mut games = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let mut s = Scanner::new();
        let mut ev = Vec::new();
        games = 0;
        for p in data.chunks(piece) {
            s.feed(p, &mut ev);
            games += ev
                .iter()
                .filter(|e| matches!(e, Event::GameStart { .. }))
                .count();
            ev.clear();
        }
        s.finish(&mut ev);
        games += ev
            .iter()
            .filter(|e| matches!(e, Event::GameStart { .. }))
            .count();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "scanner: {games} games, best of {runs}: {:.3} s, {:.0} MB/s (one core, 4 MiB pieces)",
        best,
        data.len() as f64 / 1e6 / best
    );

    if !grep {
        return;
    }
    let mut tmp = tempfile::NamedTempFile::new().expect("temp file");
    tmp.write_all(&data).expect("write temp file");
    tmp.flush().expect("flush");
    let mut gbest = f64::MAX;
    let mut out = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        match std::process::Command::new("grep")
            .arg("-c")
            .arg("^\\[Event ")
            .arg(tmp.path())
            .output()
        {
            Ok(o) => out = String::from_utf8_lossy(&o.stdout).trim().to_string(),
            Err(e) => {
                println!("grep: {e}");
                return;
            }
        }
        gbest = gbest.min(t.elapsed().as_secs_f64());
    }
    println!(
        "grep -c '^\\[Event ': {out} lines, best of 3: {:.3} s, {:.0} MB/s (file in page cache)",
        gbest,
        data.len() as f64 / 1e6 / gbest
    );
}
