//! What `pgnfen.check()` and `pgnfen.fen_records()` share: JSON objects made
//! on a thread of their own, handed to the Python loop through a bounded
//! queue and made into dicts only as the loop takes them, so that memory
//! stays bounded whatever the inputs hold. The loop waits with the GIL
//! released and in short spells, so that Ctrl-C is seen; leaving the loop,
//! `close()`, dropping the iterator or Ctrl-C stops the thread's run.

use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, RecvTimeoutError};
use pyo3::prelude::*;
use serde_json::Value;

use pgnfen::Error;

use crate::interrupt::Call;
use crate::{command_error, interrupt, to_py};

/// The most objects taken from the queue per release of the GIL (a run of a
/// book may bring more at once).
const BATCH: usize = 256;

/// What the queue carries: one object (a problem) or a run of them (a book's
/// records, made a chunk at a time).
pub(crate) trait Message: Send + 'static {
    /// Appends the message's objects to `ready`, in order.
    fn put_into(self, ready: &mut Vec<Value>);
}

impl Message for Value {
    fn put_into(self, ready: &mut Vec<Value>) {
        ready.push(self);
    }
}

impl Message for Vec<Value> {
    fn put_into(self, ready: &mut Vec<Value>) {
        ready.extend(self);
    }
}

/// The receiving end of a run on its own thread, for a Python iterator.
pub(crate) struct JsonStream<M> {
    rx: Option<Receiver<M>>,
    handle: Option<JoinHandle<Result<(), Error>>>,
    /// Its flag, set to stop the run (also by Ctrl-C while it runs), and
    /// its notes, given as warnings as objects are taken.
    call: Call,
    /// Objects taken from the queue, not yet yielded (reversed: popped from
    /// the end).
    ready: Vec<Value>,
    /// The run's name in the error of a thread that failed (`check`).
    what: &'static str,
    /// The process whose thread runs.
    pub(crate) owner: crate::iterators::Owner,
}

impl<M: Message> JsonStream<M> {
    /// The stream of the run on `handle`, which sends to `rx` and stops when
    /// the call's flag is set or the receiver is gone.
    pub(crate) fn new(
        rx: Receiver<M>,
        handle: JoinHandle<Result<(), Error>>,
        call: Call,
        what: &'static str,
    ) -> JsonStream<M> {
        JsonStream {
            rx: Some(rx),
            handle: Some(handle),
            call,
            ready: Vec::new(),
            what,
            owner: crate::iterators::Owner::here(),
        }
    }

    /// The next object as a dict; `None` at the end of the run, or its error
    /// (after every object it sent). Ctrl-C stops the run and is raised.
    pub(crate) fn next(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            if let Some(value) = self.ready.pop() {
                let object = to_py(py, &value)?;
                // A file name shown otherwise (not UTF-8, control
                // characters, a leading `:`) went through JSON as shown: its
                // original instead, as `Game.file` gives it.
                if crate::paths::any_shown_otherwise()
                    && let Some(Value::String(file)) = value.get("file")
                {
                    object
                        .bind(py)
                        .set_item("file", crate::paths::file_name(py, file))?;
                }
                return Ok(Some(object));
            }
            let Some(rx) = self.rx.as_ref() else {
                return Ok(None);
            };
            let ready = &mut self.ready;
            let end = crate::interrupt::detach(py, || wait(rx, ready));
            if end {
                let result = crate::interrupt::detach(py, || self.finish());
                self.call.notes.give(py)?;
                return match result {
                    Some(Err(e)) => Err(command_error(e)),
                    _ => Ok(None),
                };
            }
            // Also when objects came: a consumer written in C (`list(...)`)
            // gives Python no other moment to run its signal handlers.
            if let Err(e) = py.check_signals() {
                self.stop(py);
                return Err(e);
            }
            self.call.notes.give(py)?;
        }
    }

    /// Stops the run now and waits for its thread (a while only: see
    /// [`crate::interrupt::stop_within`]); the stream is then empty.
    pub(crate) fn stop(&mut self, py: Python<'_>) {
        self.call.cancel.store(true, Ordering::Relaxed);
        self.ready.clear();
        // Closing the queue stops a run still sending.
        let rx = self.rx.take();
        let handle = self.handle.take();
        crate::interrupt::stop_within(py, move || {
            drop(rx);
            if let Some(handle) = handle {
                let _ = handle.join();
            }
        });
    }

    /// Closes the queue (a run still sending stops) and waits for the
    /// thread: its result, once.
    fn finish(&mut self) -> Option<Result<(), Error>> {
        self.rx = None;
        let handle = self.handle.take()?;
        Some(handle.join().unwrap_or_else(|_| {
            Err(Error::Io {
                file: format!("<{}>", self.what),
                error: std::io::Error::other(format!(
                    "the {} thread failed unexpectedly",
                    self.what
                )),
            })
        }))
    }
}

/// Waits up to [`interrupt::POLL`] for a message and takes it, and those
/// already queued up to [`BATCH`] objects, into `ready` (reversed, to be
/// popped); true at the end of the run.
fn wait<M: Message>(rx: &Receiver<M>, ready: &mut Vec<Value>) -> bool {
    match rx.recv_timeout(interrupt::POLL) {
        Ok(message) => {
            message.put_into(ready);
            while ready.len() < BATCH {
                match rx.try_recv() {
                    Ok(message) => message.put_into(ready),
                    Err(_) => break,
                }
            }
            ready.reverse();
            false
        }
        Err(RecvTimeoutError::Timeout) => false,
        Err(RecvTimeoutError::Disconnected) => true,
    }
}

impl<M> JsonStream<M> {
    /// In the child of a fork: lets go of the queue and the thread, which
    /// are the parent's, without touching them; the stream is then empty.
    pub(crate) fn let_go(&mut self) {
        std::mem::forget(self.rx.take());
        std::mem::forget(self.handle.take());
        self.ready.clear();
    }
}

impl<M> Drop for JsonStream<M> {
    fn drop(&mut self) {
        if !self.owner.is_here() {
            return self.let_go();
        }
        // The run stops at its next send; its thread ends on its own (not
        // joined here: a drop must not block).
        self.call.cancel.store(true, Ordering::Relaxed);
        self.rx = None;
    }
}

/// The Python face of an iterator whose field `stream` is a [`JsonStream`]
/// (see [`crate::iterators`]).
macro_rules! json_iterator_methods {
    ($iterator:ident) => {
        impl $crate::iterators::Reading for $iterator {
            type Item = Py<PyAny>;

            fn next_item(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
                self.stream.next(py)
            }

            fn stop_reading(&mut self, py: Python<'_>) {
                self.stream.stop(py)
            }

            fn owner(&self) -> $crate::iterators::Owner {
                self.stream.owner
            }

            fn let_go(&mut self) {
                self.stream.let_go()
            }
        }

        $crate::iterators::iterator_methods!($iterator);
    };
}
pub(crate) use json_iterator_methods;
