//! Ctrl-C during a long call. The work runs on a thread of its own with the
//! GIL released; the calling thread wakes every [`POLL`], takes the GIL and
//! lets Python run its signal handlers. When one raises (`KeyboardInterrupt`
//! from the default SIGINT handler), the run is cancelled through
//! [`pgnfen::pipeline::Options::cancel`]: it stops at its next chunk, its
//! temporary outputs are removed and no existing output is touched (they are
//! only replaced when a run commits). The call then raises the handler's
//! exception, as Python code interrupted at that point would.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossbeam_channel::{RecvTimeoutError, bounded};
use pyo3::prelude::*;

/// How long the calling thread waits with the GIL released before it looks
/// for signals: well inside the half second a user may wait after Ctrl-C.
pub const POLL: Duration = Duration::from_millis(50);

/// A new cancellation flag, for [`pgnfen::pipeline::Options::cancel`].
pub fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// Runs `work` without the GIL on a scoped thread, polling for signals; on a
/// signal handler's exception sets `cancel`, waits for `work` to return (it
/// stops within a chunk's work once `cancel` is set) and returns that
/// exception instead of the result.
pub fn run<T, F>(py: Python<'_>, cancel: &Arc<AtomicBool>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    std::thread::scope(|scope| {
        let (tx, rx) = bounded::<()>(1);
        let handle = scope.spawn(move || {
            let result = work();
            // The receiver may be gone only if the caller panicked.
            let _ = tx.send(());
            result
        });
        let join = |handle: std::thread::ScopedJoinHandle<'_, T>| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        loop {
            let done = py.detach(|| match rx.recv_timeout(POLL) {
                Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                Err(RecvTimeoutError::Timeout) => false,
            });
            if done {
                return Ok(join(handle));
            }
            if let Err(e) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                // The run stops at its next chunk; its outputs are dropped
                // uncommitted on the worker, so wait for that (briefly).
                py.detach(|| drop(join(handle)));
                return Err(e);
            }
        }
    })
}
