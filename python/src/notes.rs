//! Notes of a run for the user, which the command line writes on standard
//! error: an input in which no PGN tag line was found (a binary file, a
//! wrong path), a FEN that `convert` left unchanged. In Python each is a
//! warning, `pgnfen.InputWarning`, given on the calling thread when the call
//! returns, or as an iteration goes on (the `warnings` module then shows,
//! filters or raises it as the program asks).
//!
//! The runs' threads cannot give a warning (that needs the GIL, and the
//! calling thread waits without it), so their notes wait in one queue of the
//! process, bounded: past [`QUEUED`] notes not yet given, further ones are
//! only counted, and the count is given as one last warning.

use std::collections::VecDeque;
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pgnfen::pipeline::Watch;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// Notes kept until they are given.
const QUEUED: usize = 100;

static QUEUE: Mutex<VecDeque<String>> = Mutex::new(VecDeque::new());
/// Notes left out of a full queue, since the last were given.
static LEFT_OUT: AtomicU64 = AtomicU64::new(0);
static CATEGORY: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The watch of a run: keeps its notes for [`give`].
struct Notes;

impl Watch for Notes {
    fn note(&self, line: &str) {
        let mut queue = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        if queue.len() < QUEUED {
            // The command line's prefix says who speaks; a warning's class does.
            let text = line.strip_prefix("pgnfen: ").unwrap_or(line);
            let text = text.strip_prefix("warning: ").unwrap_or(text);
            queue.push_back(text.to_owned());
        } else {
            LEFT_OUT.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The watch that keeps a run's notes (see the module notes).
pub(crate) fn watch() -> Arc<dyn Watch> {
    Arc::new(Notes)
}

/// Gives the notes kept so far as `pgnfen.InputWarning`s; the error of the
/// first the `warnings` module turns into an exception (`-W error`).
pub(crate) fn give(py: Python<'_>) -> PyResult<()> {
    let (notes, left_out) = {
        let mut queue = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        if queue.is_empty() && LEFT_OUT.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        (
            std::mem::take(&mut *queue),
            LEFT_OUT.swap(0, Ordering::Relaxed),
        )
    };
    let category = CATEGORY.import(py, "pgnfen._errors", "InputWarning")?;
    let warn = |text: &str| {
        let message = CString::new(text.replace('\0', "\\0")).expect("no NUL left");
        PyErr::warn(py, category.as_any(), &message, 1)
    };
    for note in &notes {
        warn(note)?;
    }
    if left_out > 0 {
        warn(&format!("{left_out} more notes left out"))?;
    }
    Ok(())
}
