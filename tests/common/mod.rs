//! Running the real binary, for the integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The pgnfen binary, without a progress bar.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pgnfen"));
    c.arg("--no-progress");
    c
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("pgnfen runs")
}

/// Runs with `input` on standard input (written from another thread, so that a
/// large input cannot dead-lock against a full output pipe). `close_stdout`
/// closes the reading end of standard output at once, as `| head` does.
pub fn run_piped(args: &[&str], input: &[u8], close_stdout: bool) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    if close_stdout {
        drop(child.stdout.take());
    }
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Runs with `input` on standard input.
pub fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    run_piped(args, input, false)
}

/// The JSON a successful run printed.
pub fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The class counts of `stats --format json`, in the order `Class::ALL` lists them.
pub fn classes(v: &serde_json::Value) -> Vec<u64> {
    ["standard", "setup", "chess960", "crc", "other", "malformed"]
        .iter()
        .map(|c| v["classes"][c].as_u64().unwrap())
        .collect()
}
