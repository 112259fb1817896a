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

/// A file or folder of the test corpus, which lives outside the repository:
/// `PGNFEN_CORPUS` names its folder. The tests that call this are
/// `#[ignore = "needs PGNFEN_CORPUS"]`; run on purpose without it, they fail
/// with this message rather than pass without testing.
pub fn corpus(rel: &str) -> std::path::PathBuf {
    let root = std::env::var_os("PGNFEN_CORPUS")
        .expect("this test needs the corpus: set PGNFEN_CORPUS to its folder");
    let path = std::path::Path::new(&root).join(rel);
    assert!(
        path.exists(),
        "{} not found (PGNFEN_CORPUS)",
        path.display()
    );
    path
}

/// Peak resident memory (KiB) of `pgnfen -q ARGS` (standard output discarded)
/// and its exit code. The child is reaped with `wait4`, whose resource usage is
/// that one process's own (not the maximum over every child of the test
/// process, which tests running side by side would mix).
pub fn peak_kib(args: &[&str]) -> (u64, Option<i32>) {
    let child = bin()
        .arg("-q")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("pgnfen runs");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own unreaped child; status and usage are valid pointers.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    // `child` is not waited on again: dropping a Child neither waits nor kills.
    drop(child);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // Linux reports ru_maxrss in KiB.
    (usage.ru_maxrss as u64, code)
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
