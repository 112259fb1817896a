//! Ctrl-C during a long call. The work runs on a thread of its own with the
//! GIL released; the calling thread wakes every [`POLL`], takes the GIL and
//! lets Python run its signal handlers. When one raises (`KeyboardInterrupt`
//! from the default SIGINT handler), the run is cancelled through
//! [`pgnfen::pipeline::Options::cancel`]: it stops at its next chunk, its
//! temporary outputs are removed and no existing output is touched (they are
//! only replaced when a run commits). The call then raises the handler's
//! exception, as Python code interrupted at that point would.
//!
//! SIGTERM and SIGHUP end a Python process at once when nobody handles them
//! (Python does not), which would leave a run's temporary files behind. So
//! while a call runs, each of the two that still has its default action gets
//! a handler that only notes it; the polling thread then removes every
//! temporary file, restores the default action and raises the signal again,
//! so that the process ends by it as it would have (50 ms later). A handler
//! the program installed (`signal.signal`) is left alone: Python runs it at
//! the next poll, as it runs the one of SIGINT. A process forked during a
//! call (`multiprocessing`) starts with the default actions back: it has no
//! call polling for the signals, and `Pool.terminate()` ends its workers by
//! SIGTERM.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;
use std::time::Instant;

use crossbeam_channel::{RecvTimeoutError, bounded};
use pyo3::prelude::*;

/// How long the calling thread waits with the GIL released before it looks
/// for signals: well inside the half second a user may wait after Ctrl-C.
pub const POLL: Duration = Duration::from_millis(50);

// ---- the interpreter's end, with calls still running on other threads ----
//
// Python delivers signals to its main thread only. A call on another thread
// (a `threading.Thread`, a pool's worker) goes on when the main thread ends
// the program: Ctrl-C while it joins, or its last line with the call on a
// daemon thread. The interpreter then runs its `atexit` functions and
// finalizes; a thread that takes the GIL again after that is ended by
// `pthread_exit`, whose unwinding through this module's frames aborts the
// process ("FATAL: exception not rethrown"), and the call's temporary files
// stay. So [`at_exit`] (registered with `atexit` when the module loads) stops
// every call and removes their temporary files, and a thread other than the
// main one that comes back to Python after it parks for good
// ([`detach`]): the process ends around it.

/// The interpreter has begun to end ([`at_exit`] ran).
static INTERPRETER_ENDING: AtomicBool = AtomicBool::new(false);

/// The cancellation flags of the calls running now ([`run`]).
static RUNNING: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());

/// Some call or iteration waited on a thread other than the main one.
static OFF_MAIN: AtomicBool = AtomicBool::new(false);

fn is_main_thread() -> bool {
    // SAFETY: plain system calls without arguments.
    unsafe { libc::syscall(libc::SYS_gettid) == libc::c_long::from(libc::getpid()) }
}

/// After the interpreter began to end, on a thread other than the main one:
/// never returns (see the notes above [`INTERPRETER_ENDING`]).
fn park_if_ending() {
    if INTERPRETER_ENDING.load(Ordering::SeqCst) && !is_main_thread() {
        loop {
            std::thread::park();
        }
    }
}

/// `py.detach(work)` for a wait that may run on any thread: a thread other
/// than the main one that comes back after the interpreter began to end
/// parks instead of taking the GIL again.
pub fn detach<T, F>(py: Python<'_>, work: F) -> T
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    if !OFF_MAIN.load(Ordering::Relaxed) && !is_main_thread() {
        OFF_MAIN.store(true, Ordering::Relaxed);
    }
    py.detach(|| {
        let result = work();
        park_if_ending();
        result
    })
}

/// How long stopping a call, an iterator or a stream waits for its run's
/// threads ([`run`], [`stop_within`]): they stop within 200 ms unless a read
/// hangs, and with the wait for the signal ([`POLL`]) it stays inside the
/// half second a user may wait after Ctrl-C.
pub const STOP_WAIT: Duration = Duration::from_millis(400);

/// Runs `stop` (which stops the run of an iterator or stream and joins its
/// threads) without the GIL, waiting at most [`STOP_WAIT`] for it. A run
/// stuck in a read that never returns (a file system whose server went
/// away) cannot stop, and an iterator has no output to drop, so Ctrl-C,
/// `close()` and dropping it go on without it: `stop` finishes on a thread
/// of its own once the read returns. (A call does the same once it has
/// removed its run's temporary outputs: see [`run`].)
pub fn stop_within<F: FnOnce() + Send + 'static>(py: Python<'_>, stop: F) {
    let stop = Arc::new(Mutex::new(Some(stop)));
    let theirs = Arc::clone(&stop);
    let (tx, rx) = bounded(1);
    let spawned = std::thread::Builder::new()
        .name("pgnfen-stop".into())
        .spawn(move || {
            let taken = theirs.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(stop) = taken {
                stop();
            }
            let _ = tx.send(());
        });
    detach(py, || match spawned {
        Ok(_) => {
            let _ = rx.recv_timeout(STOP_WAIT);
        }
        // No thread (the limit on threads reached): stopped here, however
        // long it takes.
        Err(_) => {
            let taken = stop.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(stop) = taken {
                stop();
            }
        }
    });
}

/// Registered with `atexit`: stops the calls still running (on other
/// threads), waits up to a second for them to remove their temporary files,
/// then removes what is left. With the GIL released for a moment, a thread
/// that was waiting for it gets it and next comes back to [`detach`], where
/// it parks.
#[pyfunction]
pub fn at_exit(py: Python<'_>) {
    INTERPRETER_ENDING.store(true, Ordering::SeqCst);
    if !OFF_MAIN.load(Ordering::Relaxed) {
        return;
    }
    for cancel in RUNNING.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        cancel.store(true, Ordering::Relaxed);
    }
    py.detach(|| {
        let start = Instant::now();
        while start.elapsed() < POLL * 3
            || (!RUNNING.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
                && start.elapsed() < Duration::from_secs(1))
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        pgnfen::pipeline::signals::remove_temporaries();
    });
}

/// A call's entry in [`RUNNING`], for as long as [`run`] runs (also when
/// its thread cannot start or its work panics).
struct Running(Arc<AtomicBool>);

impl Running {
    fn enter(cancel: &Arc<AtomicBool>) -> Running {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(cancel.clone());
        Running(cancel.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|c| !Arc::ptr_eq(c, &self.0));
    }
}

/// A new cancellation flag, for [`pgnfen::pipeline::Options::cancel`].
pub fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// What a call shares with its run: the flag that stops it, and the notes
/// it gives as warnings when it returns.
pub struct Call {
    /// For [`pgnfen::pipeline::Options::cancel`].
    pub cancel: Arc<AtomicBool>,
    /// The run's [`pgnfen::pipeline::Options::watch`].
    pub notes: Arc<crate::notes::Notes>,
}

impl Call {
    pub fn new(notes: Arc<crate::notes::Notes>) -> Call {
        Call {
            cancel: flag(),
            notes,
        }
    }
}

/// Runs `work` without the GIL on a thread of its own, polling for signals;
/// on a signal handler's exception sets the call's flag, waits up to
/// [`STOP_WAIT`] for `work` to return (it stops within a chunk's work once
/// the flag is set) and returns that exception instead of the result. A run
/// that has not stopped by then is stuck in a read that cannot be taken back
/// (a file system whose server went away): its temporary outputs are removed
/// and the call returns without it; the thread ends when the read returns,
/// finding its outputs gone, or with the process. The run's notes are given
/// as warnings when it returns.
pub fn run<T, F>(py: Python<'_>, call: &Call, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let _ending = EndingSignals::watch();
    let main = is_main_thread();
    let _running = Running::enter(&call.cancel);
    let (tx, rx) = bounded::<()>(1);
    let handle = std::thread::Builder::new()
        .name("pgnfen-call".into())
        .spawn(move || {
            let result = work();
            // The receiver is gone if the call returned without it.
            let _ = tx.send(());
            result
        })
        // A limit on threads (`ulimit -u`): an OSError, not a panic.
        .map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!(
                "cannot start a thread ({e}); the limit on processes and threads (ulimit -u) may be too low"
            ))
        })?;
    let join = |handle: std::thread::JoinHandle<T>| {
        handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    };
    loop {
        // Only the main thread runs signal handlers: another waits for
        // the whole run (still noting SIGTERM and SIGHUP).
        let done = detach(py, || {
            loop {
                match rx.recv_timeout(POLL) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return true,
                    Err(RecvTimeoutError::Timeout) if main => return false,
                    Err(RecvTimeoutError::Timeout) => end_if_signalled(),
                }
            }
        });
        end_if_signalled();
        if done {
            let result = join(handle);
            // Its notes (an input without a tag line) as warnings.
            call.notes.give(py)?;
            return Ok(result);
        }
        if let Err(e) = py.check_signals() {
            call.cancel.store(true, Ordering::Relaxed);
            // The run stops at its next chunk or slice (a pipe is
            // waited for in slices too); its outputs are dropped
            // uncommitted on the worker, so wait for that, a while.
            // SIGTERM and SIGHUP still end the process meanwhile.
            py.detach(|| {
                let start = Instant::now();
                loop {
                    let left = STOP_WAIT.saturating_sub(start.elapsed());
                    match rx.recv_timeout(left.min(POLL)) {
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                            return drop(join(handle));
                        }
                        Err(RecvTimeoutError::Timeout) => end_if_signalled(),
                    }
                    if left.is_zero() {
                        // Stuck in a read: its outputs go now, as they
                        // would have when it stopped.
                        pgnfen::pipeline::signals::remove_cancelled_temporaries();
                        return;
                    }
                }
            });
            return Err(e);
        }
    }
}

/// The signals that end the process unless handled, and that a run must
/// outlive long enough to remove its temporary files.
const ENDING: [libc::c_int; 2] = [libc::SIGTERM, libc::SIGHUP];

/// The ending signal received during a call (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Calls under way, and the signals whose default action they replaced.
static WATCHING: Mutex<(usize, Vec<libc::c_int>)> = Mutex::new((0, Vec::new()));

/// The signals of [`WATCHING`] as a bit mask (bit n: signal n), for the
/// child of a fork, which must not take a lock.
static REPLACED: AtomicU32 = AtomicU32::new(0);

/// In the child of a fork: the default actions back (only async-signal-safe
/// calls, as after any fork of a process with threads).
extern "C" fn default_actions_in_child() {
    let replaced = REPLACED.swap(0, Ordering::SeqCst);
    for signal in ENDING {
        if replaced & (1 << signal) != 0 {
            // SAFETY: `signal` is async-signal-safe in the child of a fork.
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
    RECEIVED.store(0, Ordering::SeqCst);
}

extern "C" fn note_signal(signal: libc::c_int) {
    // Async-signal-safe: one atomic store.
    RECEIVED.store(signal, Ordering::SeqCst);
}

/// While alive, SIGTERM and SIGHUP (those left to their default action)
/// are noted instead of ending the process ([`end_if_signalled`]); the first
/// call under way installs the handler, the last one restores the default.
struct EndingSignals;

impl EndingSignals {
    fn watch() -> EndingSignals {
        static AT_FORK: Once = Once::new();
        AT_FORK.call_once(|| {
            // SAFETY: registers a child handler that makes only
            // async-signal-safe calls.
            unsafe { libc::pthread_atfork(None, None, Some(default_actions_in_child)) };
        });
        let mut watching = WATCHING.lock().unwrap_or_else(|e| e.into_inner());
        if watching.0 == 0 {
            watching.1 = ENDING
                .into_iter()
                .filter(|&signal| replace_default(signal))
                .collect();
            let mask = watching
                .1
                .iter()
                .fold(0, |mask, &signal| mask | 1 << signal);
            REPLACED.store(mask, Ordering::SeqCst);
        }
        watching.0 += 1;
        EndingSignals
    }
}

impl Drop for EndingSignals {
    fn drop(&mut self) {
        {
            let mut watching = WATCHING.lock().unwrap_or_else(|e| e.into_inner());
            watching.0 -= 1;
            if watching.0 == 0 {
                REPLACED.store(0, Ordering::SeqCst);
                for signal in std::mem::take(&mut watching.1) {
                    // SAFETY: restores the default action of a signal whose
                    // default this module replaced.
                    unsafe { libc::signal(signal, libc::SIG_DFL) };
                }
            }
        }
        // One that came after the last poll is not lost.
        end_if_signalled();
    }
}

/// Installs [`note_signal`] for `signal` if its action is the default one.
fn replace_default(signal: libc::c_int) -> bool {
    // SAFETY: sigaction with valid pointers; the handler only stores to an atomic.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
            || old.sa_sigaction != libc::SIG_DFL
        {
            return false;
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = note_signal as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut()) == 0
    }
}

/// If an ending signal came: removes every temporary file of the process's
/// runs and ends the process by that signal (see the module notes).
fn end_if_signalled() {
    let signal = RECEIVED.load(Ordering::SeqCst);
    if signal == 0 {
        return;
    }
    pgnfen::pipeline::signals::end_removing_temporaries(|| {
        // SAFETY: the default action back, then the signal again, which
        // ends the process; `_exit` only if it somehow did not.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
            libc::_exit(128 + signal)
        }
    })
}
