//! Clean interruption: SIGINT, SIGTERM and SIGHUP remove every temporary output
//! file still open and end the program with 128 + the signal's number (130,
//! 143, 129), so that an existing output is never touched and nothing is left
//! behind. The pipeline's spill files need nothing: they are anonymous (unlinked
//! at creation) and vanish with the process.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Temporary files that exist under a name right now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Starts the thread that waits for the signals. Call once, early in `main`.
pub fn install() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("pgnfen-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held until exit: no temporary file is renamed or created after this.
                let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
                for path in live.iter() {
                    let _ = std::fs::remove_file(path);
                }
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// A temporary file now exists at `path`.
pub fn register(path: &Path) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.to_path_buf());
}

/// Runs `step` (the rename into place, or the removal) and forgets `path`, as
/// one step that a signal cannot cut in two.
pub fn retire<T>(path: &Path, step: impl FnOnce() -> T) -> T {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let result = step();
    live.retain(|p| p != path);
    result
}
