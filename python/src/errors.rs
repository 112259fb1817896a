//! The package's exceptions: every error the native module raises is a
//! `pgnfen.Error`, and also the built-in kind (`pgnfen.UsageError` is a
//! `ValueError`, `pgnfen.InputError` an `OSError`; a missing file a
//! `FileNotFoundError`). The classes live in `pgnfen/_errors.py` (a class
//! with two bases, picklable by name); they are looked up once.

use std::io;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

const MODULE: &str = "pgnfen._errors";

static USAGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INPUT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static MISSING: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static PERMISSION: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DIRECTORY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
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
/// that is also the `OSError` subclass Python would raise for its kind.
pub fn io_error(file: &str, source: &io::Error) -> PyErr {
    let message = format!("{file}: {source}");
    match source.kind() {
        io::ErrorKind::NotFound => raise(&MISSING, "MissingFileError", message),
        io::ErrorKind::PermissionDenied => raise(&PERMISSION, "_PermissionError", message),
        io::ErrorKind::IsADirectory => raise(&DIRECTORY, "_IsADirectoryError", message),
        io::ErrorKind::BrokenPipe => raise(&PIPE, "_BrokenPipeError", message),
        _ => raise(&INPUT, "InputError", message),
    }
}
