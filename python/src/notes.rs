//! Notes of a run for the user, which the command line writes on standard
//! error: an input in which no PGN tag line was found (a binary file, a
//! wrong file), a FEN that `convert` left unchanged. In Python each is a
//! warning, `pgnfen.InputWarning`, given on the calling thread when the call
//! returns, or as an iteration goes on (the `warnings` module then shows,
//! filters or raises it as the program asks).
//!
//! The runs' threads cannot give a warning (that needs the GIL, and the
//! calling thread waits without it), so each call keeps its run's notes in a
//! queue of its own ([`Notes`]), bounded: past [`QUEUED`] notes not yet
//! given, further ones are only counted, and the count is given as one last
//! warning. A call gives only its own notes, on its own thread, so that
//! calls running at once in several threads, or a call cut short by Ctrl-C,
//! never hand their warnings to another.

use std::collections::VecDeque;
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pgnfen::pipeline::{Input, Watch};
use pgnfen::select::Selector;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// Notes kept until they are given.
const QUEUED: usize = 100;

static CATEGORY: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The notes of one call's run (the run's [`Watch`]), until [`Notes::give`].
#[derive(Default)]
pub(crate) struct Notes {
    queue: Mutex<VecDeque<String>>,
    /// Notes left out of a full queue, since the last were given.
    left_out: AtomicU64,
}

impl Watch for Notes {
    fn note(&self, line: &str) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        if queue.len() < QUEUED {
            // The command line's prefix says who speaks; a warning's class does.
            queue.push_back(pgnfen::pipeline::note_message(line).to_owned());
        } else {
            self.left_out.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Notes {
    /// The notes of a new call.
    pub(crate) fn new() -> Arc<Notes> {
        Arc::new(Notes::default())
    }

    /// After a run that selected games: a note for each tag of `selector`'s
    /// expressions that no game held (most often a misspelled name), with the
    /// closest name the inputs hold, as the command line warns after its
    /// run. `named_by`: the argument that named the tag (`tags=`).
    pub(crate) fn unseen_tags(&self, selector: &Selector, inputs: &[Input], named_by: &str) {
        for (name, near) in selector.unseen(inputs) {
            let warning = pgnfen::select::unseen_tag_warning(&name, near.as_deref(), named_by);
            self.note(&warning);
        }
    }

    /// The notes kept so far as lines, and the count of those left out as a
    /// last one: for a cluster's worker, which hands them to the client
    /// (`pgnfen.dask`) to be given there.
    pub(crate) fn take_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut *queue).into()
        };
        let left_out = self.left_out.swap(0, Ordering::Relaxed);
        if left_out > 0 {
            lines.push(format!("{left_out} more notes left out"));
        }
        lines
    }

    /// Gives the notes kept so far as `pgnfen.InputWarning`s; the error of
    /// the first the `warnings` module turns into an exception (`-W error`).
    pub(crate) fn give(&self, py: Python<'_>) -> PyResult<()> {
        let (notes, left_out) = {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            if queue.is_empty() && self.left_out.load(Ordering::Relaxed) == 0 {
                return Ok(());
            }
            (
                std::mem::take(&mut *queue),
                self.left_out.swap(0, Ordering::Relaxed),
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
}
