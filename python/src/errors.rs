//! The package's exceptions: every error the native module raises is a
//! `pgnfen.Error`, and also the built-in kind (`pgnfen.UsageError` is a
//! `ValueError`, `pgnfen.InputError` an `OSError`; a missing file a
//! `FileNotFoundError`). The classes live in `pgnfen/_errors.py` (a class
//! with two bases, picklable by name); they are looked up once.

use std::io;

use pgnfen::pipeline::output::os_error_code;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

const MODULE: &str = "pgnfen._errors";

static USAGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INPUT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static MISSING: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PERMISSION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DIRECTORY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NOT_DIRECTORY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PIPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// An exception of class `name` (of `pgnfen._errors`) with `message`; when
/// the class cannot be had (the package half installed), the import's error.
fn raise(lock: &'static PyOnceLock<Py<PyType>>, name: &str, message: String) -> PyErr {
    Python::attach(|py| match lock.import(py, MODULE, name) {
        Ok(class) => PyErr::from_type(class.clone(), message),
        Err(e) => e,
    })
}

/// A bad argument: `pgnfen.UsageError` (a `ValueError`).
pub fn usage(message: impl Into<String>) -> PyErr {
    raise(&USAGE, "UsageError", message.into())
}

/// An iterator (or stream) that another thread is reading at this moment,
/// as Python's generators refuse it ("generator already executing"): a
/// `pgnfen.UsageError`, not pyo3's `RuntimeError` of a borrowed object.
pub fn busy() -> PyErr {
    usage(
        "this pgnfen iterator is being read by another thread: an iterator \
         belongs to one thread at a time (close it from that thread, or stop \
         it with Ctrl-C)",
    )
}

/// A failure that is neither a bad argument nor I/O (a value that cannot
/// cross into Python): `pgnfen.Error`.
pub fn internal(message: impl Into<String>) -> PyErr {
    raise(&ERROR, "Error", message.into())
}

/// Standard output (or an output pipe) closed under the run.
pub fn broken_pipe() -> PyErr {
    raise(&PIPE, "_BrokenPipeError", "broken pipe".into())
}

/// An I/O error as the CLI words it (`FILE: what`): a `pgnfen.InputError`
/// that is also the `OSError` subclass Python would raise for its kind, with
/// `filename` (the path as given), `strerror` and, for an error of the
/// operating system, `errno`, as Python's own `OSError`s have them.
pub fn io_error(file: &str, source: &io::Error) -> PyErr {
    let message = format!("{file}: {}", pgnfen::pipeline::io_words(source));
    io_error_saying(file, source, message)
}

/// [`io_error`] with the words of a message of the command line's that
/// says more than the file and the system's error (which folder `split`
/// could not make, and why).
pub fn io_error_saying(file: &str, source: &io::Error, message: String) -> PyErr {
    let (lock, name) = match source.kind() {
        io::ErrorKind::NotFound => (&MISSING, "MissingFileError"),
        io::ErrorKind::PermissionDenied => (&PERMISSION, "_PermissionError"),
        io::ErrorKind::IsADirectory => (&DIRECTORY, "_IsADirectoryError"),
        io::ErrorKind::NotADirectory => (&NOT_DIRECTORY, "_NotADirectoryError"),
        io::ErrorKind::BrokenPipe => (&PIPE, "_BrokenPipeError"),
        _ => (&INPUT, "InputError"),
    };
    Python::attach(|py| {
        let class = match lock.import(py, MODULE, name) {
            Ok(class) => class,
            Err(e) => return e,
        };
        let made = class.call1((message,)).and_then(|e| {
            // Also the code inside an error that wraps it (an output's
            // folder that cannot take its temporary file).
            e.setattr("errno", errno(source))?;
            e.setattr("strerror", strerror(source))?;
            e.setattr("filename", crate::paths::file_name(py, file))?;
            Ok(e)
        });
        match made {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        }
    })
}

/// The error's code of the operating system; for a folder given as a file,
/// which pgnfen finds by looking rather than by a failed call, the code
/// Python's own `open` gives it (`EISDIR`).
fn errno(source: &io::Error) -> Option<i32> {
    os_error_code(source)
        .or_else(|| (source.kind() == io::ErrorKind::IsADirectory).then_some(libc::EISDIR))
}

/// The error's words without Rust's ` (os error N)` ending (`errno` holds N).
fn strerror(source: &io::Error) -> String {
    pgnfen::pipeline::io_words(source)
}
