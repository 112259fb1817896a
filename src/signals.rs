//! Clean interruption: SIGINT, SIGTERM and SIGHUP remove every temporary output
//! file the run has open and end the program with 128 + the signal's number
//! (130, 143, 129), so that an existing output is never touched and nothing is
//! left behind. A mapped input truncated under the run (SIGBUS) ends it with
//! exit status 2 and a message naming the file. An output that reaches the
//! file size limit (`ulimit -f`) is a write error like any other (the file
//! named, temporaries removed, exit status 2) instead of SIGXFSZ's end of the
//! process, which would leave the temporary file. The library keeps the list
//! of temporary files; this only waits for the signals. A signal inherited
//! as ignored (`nohup` ignores SIGHUP, a shell's background job SIGINT) is
//! left ignored.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};

use pgnfen::pipeline::signals::{exit_removing_temporaries, install_bus_handler};

/// Starts the thread that waits for the signals. Call once, early in `main`.
pub fn install() -> std::io::Result<()> {
    install_bus_handler()?;
    // Caught, so that the write fails with EFBIG (the flag is not read).
    signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)))?;
    // A signal the parent set to be ignored stays ignored: `nohup pgnfen ...
    // &` must outlive the terminal (SIGHUP), and a shell runs background
    // jobs with SIGINT ignored. Only those left to their default action
    // are caught.
    let caught: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|&signal| !ignored(signal))
        .collect();
    let mut signals = signal_hook::iterator::Signals::new(caught)?;
    std::thread::Builder::new()
        .name("pgnfen-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                exit_removing_temporaries(128 + signal);
            }
        })?;
    Ok(())
}

/// Whether `signal`'s action is to be ignored (inherited from the parent).
fn ignored(signal: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one
    // into a zeroed struct.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}
